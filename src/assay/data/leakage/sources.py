"""Leakage sources read as a stream of chunks: memory is bounded by the chunk size, not the file size.

A sources folder holds one file per source (name = file name without extension):

* ``.jsonl``: the ``question`` field of every non-blank line; a line that is not a JSON object or
  has no non-empty ``question`` is an error.
* any other file: text, one unit per line, with a leading ``Q:``/``A:``/``Question:``/``Answer:``
  label removed; blank lines are skipped.

A unit's number (``line`` in the report) is its 1-based index among the source's units: for JSONL
the n-th question, for text the n-th non-blank line. Errors name the physical file line.

Every line is read with a byte limit (``max_line_bytes``), so a file without newlines cannot fill
memory. A line that is too long, holds a NUL byte (a binary file) or is not valid UTF-8 is an
error; the reader collects every bad line up to :data:`~assay.core.errors.MAX_PROBLEMS`, stops
handing out chunks after the first, and the caller fails once (:meth:`SourceFolder.chunks`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assay.core.confinement import confined_file
from assay.core.errors import MAX_PROBLEMS, InputError, Problem
from assay.core.io import parse_json_line
from assay.core.records import id_key

LABEL = re.compile(r"^\s*(q|a|question|answer)\s*[:.)]\s*", re.IGNORECASE)
CHUNK_LINES = 100_000
MAX_LINE_BYTES = 65_536


@dataclass(frozen=True)
class Chunk:
    """Up to ``chunk_lines`` consecutive units of one source; ``texts[k]`` is unit ``first + k``."""

    source: str
    first: int
    texts: list[str]


def _units(raw: str, jsonl: bool, path: str, number: int, problems: list[Problem]) -> list[str]:
    """The units on one decoded physical line (zero, one, or more for text split by rarer line breaks)."""
    if not jsonl:
        return [u for u in (LABEL.sub("", part).strip() for part in raw.splitlines()) if u]
    if not raw.strip():
        return []
    row, why = parse_json_line(raw.rstrip("\r\n"))  # NaN, a repeated key, a lone surrogate: refused too
    if why is not None:
        problems.append(Problem(path, number, None, why, "write one JSON object per line"))
        return []
    if not isinstance(row, dict):
        problems.append(Problem(path, number, None, f"expected a JSON object, got {type(row).__name__}",
                                "write one JSON object per line"))
        return []
    q = row.get("question")
    if not isinstance(q, str) or not q.strip():
        problems.append(Problem(path, number, "question", f"{q!r} is not a non-empty string", "give every line a question"))
        return []
    return [q]


def read_chunks(path: Path, name: str, chunk_lines: int, max_line_bytes: int,
                problems: list[Problem]) -> Iterator[Chunk]:
    """Chunks of the units of one source file, in order.

    Bad lines are appended to ``problems`` (which may already hold other files' problems); after
    the first one no further chunk is yielded, and reading stops once ``problems`` is full.
    """
    shown = str(path)
    jsonl = path.suffix == ".jsonl"
    clean = not problems
    texts: list[str] = []
    first = 1
    with open(path, "rb") as fh:
        number = 0
        while len(problems) < MAX_PROBLEMS - 1:
            raw = fh.readline(max_line_bytes + 1)
            if not raw:
                break
            number += 1
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # skip the rest of the line, a block at a time
                    raw = fh.readline(1 << 20)
                problems.append(Problem(shown, number, None, f"line longer than {max_line_bytes} bytes",
                                        "split it, remove it, or raise leakage.max_line_bytes"))
                continue
            if b"\0" in raw:
                problems.append(Problem(shown, number, None, "NUL byte: this looks like a binary file",
                                        "keep only text or JSONL files in the sources folder"))
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                problems.append(Problem(shown, number, None, f"not valid UTF-8 (byte {error.start + 1} of the line)",
                                        "re-save the file as UTF-8"))
                continue
            texts.extend(_units(line, jsonl, shown, number, problems))
            clean = clean and not problems
            while clean and len(texts) >= chunk_lines:
                yield Chunk(name, first, texts[:chunk_lines])
                first += chunk_lines
                texts = texts[chunk_lines:]
    if len(problems) >= MAX_PROBLEMS - 1:
        problems.append(Problem(shown, None, None, f"stopped reading after {MAX_PROBLEMS - 1} bad lines",
                                "fix these and run again to see any others"))
    if clean and texts:
        yield Chunk(name, first, texts)


@dataclass
class SourceFolder:
    """The sources in a folder, streamed file by file and chunk by chunk.

    Raises (on construction):
        InputError: the folder does not exist, two files share a name (``a.txt`` and ``a.jsonl``), or a
            file is a symlink leading outside the repository (:func:`assay.core.confinement.confined_file`).
    """

    folder: Path
    chunk_lines: int = CHUNK_LINES
    max_line_bytes: int = MAX_LINE_BYTES
    files: dict[str, Path] = field(init=False)

    def __post_init__(self) -> None:
        self.folder = Path(self.folder)
        if not self.folder.is_dir():
            raise InputError([Problem(str(self.folder), None, None, "sources folder not found",
                                      "create it or set inputs.sources in params.yaml")])
        self.files = {}
        folded: dict[object, str] = {}
        clashes = []
        for f in sorted(p for p in self.folder.iterdir() if p.is_file() and not p.name.startswith(".")):
            outside = confined_file(f)
            if outside is not None:  # a symlink out of the repository: never read what it points at
                clashes.append(outside)
            elif id_key(f.stem) in folded:  # a.txt and A.jsonl are one name on a case-insensitive disk
                first = self.files[folded[id_key(f.stem)]]
                clashes.append(Problem(str(f), None, None, f"source name {f.stem!r} is also used by {first.name} "
                                       "(names are compared ignoring case and width)", "rename one of the two files"))
            else:
                self.files[f.stem] = f
                folded[id_key(f.stem)] = f.stem
        if clashes:
            raise InputError(clashes)

    @property
    def names(self) -> list[str]:
        """Source names, sorted."""
        return list(self.files)

    def warnings(self, units: Mapping[str, int]) -> list[str]:
        """Plain-language warnings: an empty folder, or sources with no units (given units per name)."""
        if not self.files:
            return [f"{self.folder.as_posix()} has no source files: only the dev/holdout split was checked"]
        return [f"source {name!r} ({self.files[name].name}) has no lines to check" for name in self.files if not units.get(name)]

    def chunks(self) -> Iterator[Chunk]:
        """Every chunk of every source, by source name then unit.

        Raises:
            InputError: after the last chunk, naming every bad line (file:line and the fix).
        """
        problems: list[Problem] = []
        for name, path in self.files.items():
            if len(problems) >= MAX_PROBLEMS:
                break
            yield from read_chunks(path, name, self.chunk_lines, self.max_line_bytes, problems)
        if problems:
            raise InputError(problems)


@dataclass
class SourceTexts:
    """Sources already in memory (``{name: texts}``), with the same interface as :class:`SourceFolder`."""

    texts: Mapping[str, Sequence[str]]
    chunk_lines: int = CHUNK_LINES

    @property
    def names(self) -> list[str]:
        return sorted(self.texts)

    def warnings(self, units: Mapping[str, int]) -> list[str]:
        return [f"source {name!r} has no lines to check" for name in self.names if not units.get(name)]

    def chunks(self) -> Iterator[Chunk]:
        for name in self.names:
            texts = list(self.texts[name])
            for start in range(0, len(texts), self.chunk_lines):
                yield Chunk(name, start + 1, texts[start:start + self.chunk_lines])


def load_sources(folder: str | Path, max_line_bytes: int = MAX_LINE_BYTES) -> dict[str, list[str]]:
    """Every source in ``folder`` as a list of units, sorted by name (small folders and tests).

    Raises:
        InputError: as :class:`SourceFolder` and :meth:`SourceFolder.chunks`.
    """
    out: dict[str, list[str]] = {}
    src = SourceFolder(Path(folder), chunk_lines=1 << 30, max_line_bytes=max_line_bytes)
    for chunk in src.chunks():
        out.setdefault(chunk.source, []).extend(chunk.texts)
    return {name: out.get(name, []) for name in src.names}
