"""Reading inputs with line numbers and writing outputs atomically and byte-stably.

Writers go through a temporary file in the target folder and ``os.replace``, so a failing stage
leaves either the old file or the new one, never half a file. JSON is written with sorted keys,
two-space indent and a final newline, so a re-run with the same inputs produces the same bytes.
"""

from __future__ import annotations

import contextlib
import functools
import csv
import hashlib
import io
import json
import math
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.errors import InputError, Problem, shorten

if TYPE_CHECKING:
    from yaml import MappingNode, SafeLoader


@functools.cache
def _umask() -> int:
    """The process umask, read once (Linux: /proc/self/status; elsewhere set and restored at once)."""
    with contextlib.suppress(OSError, ValueError, StopIteration), open("/proc/self/status", encoding="ascii") as fh:
        return int(next(line for line in fh if line.startswith("Umask:")).split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it over ``path``, on error delete it.

    The file gets the mode a plain ``open`` would give a new file (``0o666`` less the umask, usually
    0644), whatever it replaces, not the 0600 of a temporary file: every output has the same mode.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_paths(paths: Sequence[str | os.PathLike]) -> Iterator[list[Path]]:
    """:func:`atomic_path` for several files at once: one temporary path per target, in order; on
    success every temporary file is renamed over its target, on error every one is deleted, so
    either all targets change or none (short of a failure between two renames)."""
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(atomic_path(p)) for p in paths]


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")


def _clean(value: Any) -> Any:
    """Make a value JSON-safe and stable: nan/inf become None, tuples lists, numpy scalars Python."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dumps_json(data: Any) -> str:
    """Stable JSON text: sorted keys, indent 2, UTF-8 kept, nan written as null, final newline."""
    return json.dumps(_clean(data), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(path: str | os.PathLike, data: Any) -> None:
    """Write ``data`` as stable JSON (see :func:`dumps_json`) atomically."""
    write_text(path, dumps_json(data))


def write_jsonl(path: str | os.PathLike, rows: Iterable[dict]) -> None:
    """Write one stable JSON object per line, atomically.

    ``rows`` may be a generator: each line is written as it comes, so memory does not grow with the
    file; an error raised while iterating leaves the old file (or none) in place.
    """
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8", newline="\n") as out:
        for r in rows:
            out.write(json.dumps(_clean(r), sort_keys=True, ensure_ascii=False) + "\n")


def write_csv(path: str | os.PathLike, header: tuple[str, ...], rows: Iterable[Sequence[object]]) -> None:
    """Write a CSV with a header row and ``\\n`` line ends, atomically (plot data for ``dvc plots``).

    ``rows`` may be a generator: rows are written as they come.
    """
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def write_parquet(path: str | os.PathLike, table: Any, provenance: dict | None = None) -> None:
    """Write a pyarrow Table or pandas DataFrame to Parquet atomically, without the pandas index.

    ``provenance`` (for example the hashes of the inputs) is stored as stable JSON under the
    schema metadata key ``assay`` (``pyarrow.parquet.read_schema(path).metadata[b"assay"]``). The
    pandas metadata is dropped, since it would carry library versions into the bytes.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not isinstance(table, pa.Table):
        table = pa.Table.from_pandas(table, preserve_index=False)
    meta = {b"assay": dumps_json(provenance).encode("utf-8")} if provenance is not None else None
    table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


class _NotJSON(ValueError):
    """A JSON text that :func:`json.loads` accepts but assay refuses (``NaN``, ``Infinity``)."""


def _refuse_constant(name: str) -> Any:
    raise _NotJSON(f"{name} is not valid JSON")


#: The integers JSON input may hold: a 64-bit signed integer (what Parquet, SQLite and PostgreSQL store).
INT_RANGE = (-(2**63), 2**63 - 1)


def _bounded_int(text: str) -> int:
    """A JSON integer, refused (not crashed on) when it has more digits than a 64-bit integer can hold."""
    if len(text.lstrip("-")) > 19 or not INT_RANGE[0] <= (value := int(text)) <= INT_RANGE[1]:
        raise _NotJSON(f"the integer {shorten(text, 40)} ({len(text.lstrip('-'))} digits) is outside the 64-bit "
                       "range: write a smaller number, or a string")
    return value


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or exponent, refused when it overflows to infinity (``1e999``)."""
    value = float(text)
    if math.isinf(value):
        raise _NotJSON(f"the number {shorten(text, 40)} is too large for a float (it would read as infinity): "
                       "write a finite number")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """An object's members as a dict, refusing a key given twice (``json.loads`` would keep the last)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _NotJSON(f"key {key!r} appears twice in one object (JSON would keep only the last): keep one")
        out[key] = value
    return out


_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(value: Any) -> str | None:
    """The first string in ``value`` (walking lists and dicts, keys included) that holds a lone surrogate, else ``None``.

    ``json.loads('"\\ud800"')`` gives such a string: it is not text, cannot be written as UTF-8,
    and would crash whatever encodes it later.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def decode_utf8(raw: bytes, path: str | os.PathLike, first_line: int = 1) -> str:
    """Decode ``raw`` as UTF-8, or raise one InputError naming the line and byte position of the bad byte.

    ``first_line`` is the file line ``raw`` starts on (for a line cut out of a file). A leading
    UTF-8 byte order mark is dropped.

    >>> decode_utf8(b"ok", "f.txt")
    'ok'
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError([utf8_problem(path, raw, error, first_line)]) from None
    return text.removeprefix("\ufeff")


def utf8_problem(path: str | os.PathLike, raw: bytes, error: UnicodeDecodeError, first_line: int = 1) -> Problem:
    """The Problem for a UnicodeDecodeError in ``raw``: line, column in bytes and file-relative byte offset."""
    line = first_line + raw.count(b"\n", 0, error.start)
    column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
    bad = raw[error.start:error.end].hex(" ")
    return Problem(str(path), line, None, f"not valid UTF-8: byte(s) {bad} at byte {column} of the line ({error.reason})",
                   "save the file as UTF-8 (for example `iconv -f latin1 -t utf-8`), or remove the byte")


def read_text(path: str | os.PathLike) -> str:
    """A whole text file as UTF-8, with a clean InputError for a missing file or invalid UTF-8."""
    p = Path(path)
    if not p.is_file():
        raise InputError([Problem(str(path), None, None, "file not found", "check the path")])
    return decode_utf8(p.read_bytes(), path)


def parse_json_line(text: str) -> tuple[Any, str | None]:
    """Parse one JSON text strictly: ``(value, None)``, or ``(None, why)`` when it is not JSON.

    Refused beyond :func:`json.loads`: ``NaN``, ``Infinity`` and ``-Infinity`` (not JSON, and a
    number nobody can compare against), an object with the same key twice (``json.loads`` keeps
    the last silently), a string with a lone surrogate escape (``"\\ud800"``: not text), an
    integer outside the 64-bit range (a 5000-digit number), a number that overflows to infinity
    (``1e999``), and nesting too deep for the parser (a RecursionError becomes a reason, not a crash).

    >>> parse_json_line('{"a": 1}')
    ({'a': 1}, None)
    >>> parse_json_line('{"a": NaN}')
    (None, 'NaN is not valid JSON')
    >>> parse_json_line('{"a": 1, "a": 2}')[1]
    "key 'a' appears twice in one object (JSON would keep only the last): keep one"
    """
    try:
        value = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_unique_keys,
                           parse_int=_bounded_int, parse_float=_finite_float)
    except json.JSONDecodeError as error:
        return None, f"not valid JSON ({error.msg} at column {error.colno})"
    except _NotJSON as error:
        return None, str(error)
    except RecursionError:
        return None, "not valid JSON here: nested too deeply to read"
    if ("\\ud" in text or "\\uD" in text) and (bad := lone_surrogate(value)) is not None:
        shown = bad.encode("utf-8", "backslashreplace").decode("utf-8")[:60]
        return None, (f"a string holds a lone surrogate escape ('{shown}'), which is not text: write the character "
                      "itself or a valid surrogate pair")
    return value, None


def iter_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, dict | Problem]]:
    """A JSON Lines file one line at a time: ``(line_number, object)``, or ``(line_number, Problem)``
    for a line that is not UTF-8, not JSON (``NaN`` and too-deep nesting included) or not an object.

    Blank lines are skipped; a byte order mark on line 1 is dropped. Memory holds one line at a time.

    Raises:
        InputError: only when the file does not exist (when iteration starts).
    """
    p = Path(path)
    if not p.is_file():
        raise InputError([Problem(str(path), None, None, "file not found", "check the path")])
    one_per_line = "write one JSON object per line"
    with p.open("rb") as f:
        for number, raw in enumerate(f, start=1):
            if raw.endswith(b"\n"):
                raw = raw[:-1]
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]  # a byte order mark some editors write
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                yield number, utf8_problem(path, raw, error, number)
                continue
            if not line.strip():
                continue
            obj, why = parse_json_line(line.rstrip("\r"))
            if why is not None:
                yield number, Problem(str(path), number, None, why, one_per_line)
            elif not isinstance(obj, dict):
                yield number, Problem(str(path), number, None, f"expected a JSON object, got {type(obj).__name__}",
                                      one_per_line)
            else:
                yield number, obj


def scan_jsonl(path: str | os.PathLike) -> tuple[list[tuple[int, dict]], list[Problem]]:
    """Read a JSON Lines file as ``(line_number, object)`` pairs plus one Problem per bad line.

    Never stops at a bad line: a line that is not UTF-8, not JSON (``NaN`` and too-deep nesting
    included) or not an object is one Problem, and reading goes on with the next line. Blank lines
    are skipped. Use :func:`iter_jsonl` to hold one line at a time.

    Raises:
        InputError: only when the file does not exist.
    """
    rows: list[tuple[int, dict]] = []
    problems: list[Problem] = []
    for number, obj in iter_jsonl(path):
        if isinstance(obj, Problem):
            problems.append(obj)
        else:
            rows.append((number, obj))
    return rows, problems


def read_jsonl(path: str | os.PathLike) -> list[tuple[int, dict]]:
    """Read a JSON Lines file as ``(line_number, object)`` pairs; blank lines are skipped.

    Raises:
        InputError: every line that is not a JSON object (see :func:`scan_jsonl`), each named by
            file and line.
    """
    rows, problems = scan_jsonl(path)
    if problems:
        raise InputError(problems)
    return rows


def read_table_rows(path: str | os.PathLike) -> list[tuple[int, dict]]:
    """Read JSONL (``.jsonl``/``.json``) or CSV (``.csv``/``.tsv``) rows as ``(line_number, dict)``.

    CSV line numbers count the header as line 1, so the first data row is line 2.
    """
    p = Path(path)
    if p.suffix.lower() in (".csv", ".tsv"):
        if not p.exists():
            raise InputError([Problem(str(path), None, None, "file not found", "check the path")])
        text = decode_utf8(p.read_bytes(), path)
        reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t" if p.suffix.lower() == ".tsv" else ",")
        return [(i, dict(row)) for i, row in enumerate(reader, start=2)]
    return read_jsonl(path)


#: The problem named when a YAML input's aliases expand it too far; :func:`load_yaml_text` gives its fix.
ALIAS_REFUSED = "too many values through aliases"
#: The most values (scalars, lists and mappings, each alias counted as all it stands for) a YAML input may hold.
MAX_YAML_NODES = 1_000_000


def expanded_size(node: Any) -> int:
    """The number of YAML nodes ``node`` stands for when every alias in it is written out.

    PyYAML composes an alias as the node it names, so the graph is shared; each node's size is
    computed once (memoised by identity), which keeps this linear in the file even for an alias bomb.

    >>> import yaml
    >>> expanded_size(yaml.compose("{a: &x [1, 2], b: [*x, *x]}"))
    13
    """
    return expanded_sizes(node)[id(node)]


def expanded_sizes(node: Any) -> dict[int, int]:
    """:func:`expanded_size` of ``node`` and of every node under it, keyed by ``id(node)``."""
    import yaml

    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(node, False)]
    while stack:
        item, done = stack.pop()
        if id(item) in sizes:
            continue
        if isinstance(item, yaml.SequenceNode):
            children = list(item.value)
        elif isinstance(item, yaml.MappingNode):
            children = [n for pair in item.value for n in pair]
        else:
            sizes[id(item)] = 1
            continue
        if done:
            sizes[id(item)] = 1 + sum(sizes[id(c)] for c in children)
        else:
            stack.append((item, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes


@functools.cache
def unique_key_loader(base: type[SafeLoader] | None = None) -> type[SafeLoader]:
    """A safe YAML loader class (subclass of ``base``, default ``yaml.SafeLoader``) that refuses a key given twice in one mapping.

    PyYAML keeps the last of two equal keys silently; this loader raises a ``ConstructorError``
    at the second key's line instead. Aliases (``*name``, merge keys ``<<: *name`` included) are
    read, but a document whose aliases expand it beyond :data:`MAX_YAML_NODES` values is refused
    with a ``ComposerError`` at the line of its largest alias: nine nested aliases of nine items
    each (an "alias bomb", a few hundred bytes) stand for 387 million values, which would exhaust
    memory in whatever walks them.
    """
    import yaml

    # the base is chosen at run time, which mypy cannot check as a class's base
    class UniqueKeyLoader(base or yaml.SafeLoader):  # type: ignore[misc]
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.events.AliasEvent):
                event = self.peek_event()
                node = super().compose_node(parent, index)
                self.__dict__.setdefault("_aliases", []).append((node, event))
                return node
            return super().compose_node(parent, index)

        def compose_document(self) -> Any:
            node = super().compose_document()
            aliases = self.__dict__.pop("_aliases", [])
            sizes = expanded_sizes(node) if aliases and node is not None else {}
            if sizes and sizes[id(node)] > MAX_YAML_NODES:
                target, event = max(aliases, key=lambda pair: sizes[id(pair[0])])
                raise yaml.composer.ComposerError(
                    None, None, f"{ALIAS_REFUSED}: the aliases expand the file to {sizes[id(node)]:,} values, over "
                                f"the {MAX_YAML_NODES:,} an input file may hold (*{shorten(str(event.anchor), 40)} "
                                f"alone stands for {sizes[id(target)]:,})", event.start_mark)
            return node

        def construct_yaml_int(self, node: Any) -> int:
            digits = len(str(node.value).replace("_", "").lstrip("+-"))
            if digits > 19:  # Python refuses to read 4,300+ digits, with a ValueError and no line
                raise yaml.constructor.ConstructorError(
                    None, None, f"the integer {shorten(str(node.value), 40)} ({digits} digits) is outside the 64-bit range",
                    node.start_mark)
            return int(super().construct_yaml_int(node))

        def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node.start_mark.line + 1)
                except TypeError:  # an unhashable key: let PyYAML report it
                    continue
                if first != key_node.start_mark.line + 1:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {key!r} appears twice in one mapping (first on line {first}; YAML would "
                                    "keep only the last)", key_node.start_mark)
            return super().construct_mapping(node, deep=deep)

    UniqueKeyLoader.add_constructor("tag:yaml.org,2002:int", UniqueKeyLoader.construct_yaml_int)
    return UniqueKeyLoader


def load_yaml_text(text: str, path: str | os.PathLike) -> Any:
    """Parse YAML ``text`` safely, refusing duplicate keys; every problem an InputError naming ``path`` and line."""
    import yaml

    try:
        return yaml.load(text, Loader=unique_key_loader())  # noqa: S506 - a SafeLoader subclass
    except RecursionError:
        raise InputError([Problem(str(path), None, None, "not valid YAML here: nested too deeply to read",
                                  "flatten the nesting")]) from None
    except ValueError as error:  # a well-formed scalar that cannot be built, such as the date 2024-13-45
        raise InputError([Problem(str(path), None, None, f"a value cannot be read ({shorten(str(error))})",
                                  "correct the value")]) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = shorten(str(getattr(error, "problem", error)))
        fix = ("keep one of the two keys" if "appears twice" in problem else
               "write the values out, without aliases that multiply them" if ALIAS_REFUSED in problem
               else "fix the YAML syntax")
        raise InputError([Problem(str(path), line, None, f"not valid YAML ({problem})", fix)]) from None


def read_yaml(path: str | os.PathLike) -> Any:
    """Load a YAML file (see :func:`load_yaml_text`): a syntax error or a repeated key is an InputError naming file and line."""
    return load_yaml_text(read_text(path), path)


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's exact bytes.

    Raises:
        InputError: the file does not exist (named, with the fix).
    """
    if not Path(path).is_file():
        raise InputError([Problem(str(path), None, None, "file not found", "check the path in params.yaml")])
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sha256_path(path: str | os.PathLike) -> str:
    """:func:`sha256_file` of a file; :func:`sha256_tree` of a folder, without ``__pycache__`` (Python writes it on import).

    Raises:
        FileNotFoundError: ``path`` does not exist.
    """
    if Path(path).is_dir():
        return sha256_tree(path, skip=("__pycache__",))
    return sha256_file(path)


def sha256_tree(folder: str | os.PathLike, pattern: str = "*", skip: tuple[str, ...] = ()) -> str:
    """Hex SHA-256 over the relative names and bytes of the files under ``folder`` matching ``pattern``.

    Sorted by relative path, so it does not depend on directory listing order. Hidden files are
    skipped, and so is everything under a folder named in ``skip`` (such as ``__pycache__``).
    """
    root = Path(folder)
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob(pattern) if p.is_file() and not p.name.startswith(".")
                    and not set(p.relative_to(root).parts[:-1]) & set(skip)):
        rel = f.relative_to(root).as_posix()
        h.update(rel.encode() + b"\0" + sha256_file(f).encode() + b"\n")
    return h.hexdigest()
