"""Writing a new evaluation project (``assay init``) and adding a part to one (``assay add``).

A project holds its data under ``data/``, ``params.yaml`` with a section per chosen part,
``dvc.yaml`` generated for those parts (:mod:`assay.pipeline.generate`, installed layout), the pin
of the assay version in :data:`~assay.pipeline.generate.PIN_FILE` (a dependency of every stage), a
short README and a CI workflow that recomputes before it trusts (``.github/workflows/assay.yml``).

Nothing the user wrote is overwritten: ``init`` refuses a non-empty folder unless ``force``, and then
writes only the files that are missing; ``add`` appends the new part's params sections, copies
only the example files that are missing and rewrites only ``dvc.yaml``, which assay generates.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import unicodedata
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import assay
from assay.core.errors import AssayError
from assay.core.io import atomic_path, write_text
from assay.core.install import InstallSource
from assay.core.pin import CONSTRAINTS_FILE, DISTRIBUTION, PIN_FILE
from assay.pipeline.generate import dvc_yaml, is_generated
from assay.pipeline.parts import project_parts, resolve_parts
from assay.pipeline.template import render
from assay.project.blank import CASE_QRELS, CASE_QUERIES, empty_example_lists, own_relevance_inputs, without_example_data
from assay.project.examples import EXAMPLES, RENDERED, files_for
from assay.project.install import WHEELS, InstallPin, constraints_text, install_pin
from assay.project.study_start import unopened


class ProjectError(AssayError):
    """A project cannot be written or changed as asked (a non-empty folder, an unknown example, ...)."""


@dataclass
class InitResult:
    """What ``init`` or ``add`` did, for the command to print.

    Attributes:
        root: the project folder.
        parts: the parts the project uses now.
        written: project-relative paths written (sorted; the workflow of a project in a subfolder of a
            repository is written at that repository's root, ``../.github/...``).
        kept: paths that existed and were left as they were (sorted).
        commands: what was run to set the folder up (``git init``, ``dvc init``).
        notes: what the user must do that assay could not (e.g. commit ``wheels/`` for CI).
    """

    root: Path
    parts: tuple[str, ...]
    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


#: a project in a subfolder of a repository: its path goes into the workflow's cache globs and paths
SUBDIR = re.compile(r"[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*")
WORKFLOW = ".github/workflows/assay.yml"


def template_text(name: str) -> str:
    """The project template ``name`` shipped in ``assay/project/templates/``."""
    return resources.files("assay.project").joinpath(f"templates/{name}").read_text(encoding="utf-8")


def yaml_string(value: str) -> str:
    """``value`` as a YAML double-quoted scalar that reads back as exactly ``value`` (JSON's quoting is YAML's).

    >>> yaml_string("my eval: v2 #1")
    '"my eval: v2 #1"'
    """
    return json.dumps(value, ensure_ascii=False)


def folder_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a project folder's name, or ``None`` when it can.

    Refused: empty, ``.`` and ``..``, longer than 255 bytes in UTF-8 (Linux's limit), and any control
    character, line or paragraph separator (YAML folds U+2028/U+2029 as line breaks), lone surrogate
    or unassigned code point (they cannot be written to params.yaml or typed back). Spaces, ``:``,
    ``#`` and brackets are fine: every value written to YAML is quoted.

    >>> folder_name_problem("[draft]") is None, folder_name_problem("a" + chr(9) + "b")
    (True, 'holds the control character U+0009 (fix: use printable characters)')
    """
    if name in ("", ".", ".."):
        return "is not a folder name (fix: name a new folder, e.g. my-eval)"
    for char in name:
        if unicodedata.category(char) in ("Cc", "Cs", "Cn", "Zl", "Zp"):
            kind = {"Cc": "control character", "Cs": "lone surrogate", "Cn": "unassigned code point",
                    "Zl": "line separator", "Zp": "paragraph separator"}
            return f"holds the {kind[unicodedata.category(char)]} U+{ord(char):04X} (fix: use printable characters)"
    if len(name.encode("utf-8", "surrogatepass")) > 255:
        return "is longer than 255 bytes, the longest folder name Linux allows (fix: a shorter name)"
    return None


def template_values(root: Path, parts: tuple[str, ...], pin: InstallPin | None = None,
                    subdir: str | None = None) -> dict[str, str]:
    """The ``@@name@@`` values of the project templates for a project at ``root`` using ``parts``.

    Args:
        pin: how assay is pinned (default: ``assay-eval==`` the running version, from an index).
        subdir: the project's folder relative to the root of the git repository it is in, when not that root.
    """
    pin = pin or install_pin(InstallSource(kind="index", version=assay.__version__))
    name = root.resolve().name or "assay"
    how = {"index": f"`{DISTRIBUTION}=={pin.source.version}` from an index",
           "vcs": f"a git URL at commit {pin.source.commit}",
           "archive": f"`{DISTRIBUTION}=={pin.source.version}` from the file under `wheels/`",
           "directory": f"`{DISTRIBUTION}=={pin.source.version}`, installed from a folder CI cannot reach",
           "editable": f"`{DISTRIBUTION}=={pin.source.version}`, installed from a folder CI cannot reach"}
    return {"parts": "[" + ", ".join(parts) + "]", "reference_source": PIN_FILE, "salt": yaml_string(f"{name}-v1"),
            "version": assay.__version__, "distribution": DISTRIBUTION, "pin_file": PIN_FILE,
            "parts_list": ", ".join(parts), "requirement": "\n".join(pin.lines), "install_how": how[pin.source.kind],
            "prefix": f"{subdir}/" if subdir else "", "working_directory": subdir or "."}


def params_text(root: Path, parts: tuple[str, ...], example: str) -> str:
    """params.yaml for ``parts`` and ``example`` (only the sections of those parts)."""
    return render(template_text("params.yaml"), (*parts, example), template_values(root, parts))


def project_files(root: Path, parts: tuple[str, ...], example: str, pin: InstallPin | None = None,
                  subdir: str | None = None) -> dict[str, bytes | str]:
    """Every file a new project holds, by path relative to ``root`` (text for generated files, bytes for data).

    The workflow goes to the repository's root when ``subdir`` is given (``../.github/workflows/assay.yml``).
    """
    values = template_values(root, parts, pin, subdir)
    workflow = os.path.join(*[".."] * len(Path(subdir).parts), WORKFLOW) if subdir else WORKFLOW
    files: dict[str, bytes | str] = {
        "params.yaml": params_text(root, parts, example),
        "dvc.yaml": dvc_yaml(parts, "installed"),
        PIN_FILE: render(template_text("requirements.txt"), parts, values),
        CONSTRAINTS_FILE: constraints_text(),
        "README.md": render(template_text("README.md"), (*parts, example), values),
        workflow: render(template_text("workflow.yml"), ("installed", *parts, *(["subdir"] if subdir else [])), values),
        ".gitignore": template_text("gitignore"),
        ".dvcignore": template_text("dvcignore"),
    }
    if pin is not None and pin.wheel is not None:
        files[f"{WHEELS}/{Path(pin.wheel).name}"] = Path(pin.wheel).read_bytes()
    return {**files, **data_files(parts, example)}


def data_files(parts: tuple[str, ...], example: str, chosen: tuple[str, ...] | None = None) -> dict[str, bytes | str]:
    """The example's data files for ``parts``, by project-relative path; templates among them are
    rendered for ``chosen`` (the project's parts, default ``parts``). A study comes unopened
    (:func:`~assay.project.study_start.unopened`)."""
    out: dict[str, bytes | str] = {}
    for source, dest in files_for(example, parts):
        out[dest] = (render(source.read_text(encoding="utf-8"), chosen or parts) if Path(dest).name in RENDERED
                     else source.read_bytes())
    return unopened(out)


def _write(root: Path, rel: str, content: bytes | str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        write_text(path, content)
    else:
        with atomic_path(path) as tmp:
            tmp.write_bytes(content)


def check_destinations(root: Path, rels: Iterable[str], boundary: dict[str, Path] | None = None) -> None:
    """Refuse, before anything is written, a destination that would escape its folder or cannot be a file.

    Each ``root/rel`` must resolve (symlinks followed) inside ``boundary.get(rel, root)``: a ``data``
    link to another folder would have ``init --force`` write there. Every existing folder on the way
    must be a folder (``.github/workflows`` as a file is refused here, not after half the files).

    Raises:
        ProjectError: naming the path, what it is and the fix.
    """
    for rel in rels:
        inside = (boundary or {}).get(rel, root).resolve()
        path = root / rel
        resolved = path.resolve()
        if resolved != inside and inside not in resolved.parents:
            raise ProjectError(f"{path} resolves to {resolved}, outside {inside} (a symlink on the way): writing "
                               "through it would change files outside the project (fix: remove the link, or make it "
                               "point inside the project)")
        for parent in path.parents:
            if parent.exists() and not parent.is_dir():
                raise ProjectError(f"{parent} is a file where a folder is needed to write {rel} (fix: rename or "
                                   "remove it, then run assay init again)")


def _run(args: list[str], cwd: Path, result: InitResult, shown: str) -> None:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ProjectError(f"{shown} failed in {cwd}: {(proc.stderr or proc.stdout).strip()}")
    result.commands.append(shown)


def _inside_git(root: Path) -> Path | None:
    """The top folder of the git repository holding ``root`` (or its nearest existing ancestor); ``None`` outside one."""
    here = root.resolve()
    while not here.is_dir():
        here = here.parent
    proc = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=here, capture_output=True, text=True)
    return Path(proc.stdout.strip()).resolve() if proc.returncode == 0 else None


def _subdir(root: Path, top: Path | None) -> str | None:
    """``root`` relative to the repository's ``top`` (``None`` when it is the top or outside git).

    Raises:
        ProjectError: a path the workflow's cache globs cannot hold.
    """
    if top is None or root.resolve() == top:
        return None
    rel = root.resolve().relative_to(top).as_posix()
    if not SUBDIR.fullmatch(rel):
        raise ProjectError(f"{root} is the folder {rel!r} of the git repository {top}, and the workflow written at "
                           "its root names that folder in cache paths and globs, which need letters, digits, '.', "
                           "'_', '-' and '/' only (fix: rename the folder, or make it a repository of its own "
                           f"with `git init -b main {root}` first)")
    return rel


def _check_root_workflow(top: Path, subdir: str) -> None:
    """Refuse when the repository's root already has a workflow at :data:`WORKFLOW` for another folder.

    GitHub reads workflows only under the root's ``.github/workflows``; keeping another project's file
    there would leave this project without CI and say nothing.
    """
    existing = top / WORKFLOW
    if not existing.is_file():
        return
    text = existing.read_text(encoding="utf-8", errors="replace")
    if re.search(rf"^\s*working-directory:\s*{re.escape(subdir)}\s*(#.*)?$", text, re.MULTILINE):
        return  # this project's own workflow, written before: kept
    raise ProjectError(f"{existing} exists and does not run in {subdir}, and GitHub reads workflows only there (fix: "
                       f"`git mv {WORKFLOW} .github/workflows/assay-other.yml` in {top} to keep it under another name, "
                       "then run assay init again)")


def init_project(target: str | Path, parts: Iterable[str] = ("core", "judge"), example: str = "minimal",
                 force: bool = False, setup: bool = True, pin: InstallPin | None = None) -> InitResult:
    """Write a ready evaluation project at ``target``; run ``git init -b main`` and ``dvc init`` there when needed.

    Inside an existing git repository the workflow is written at that repository's root
    (``.github/workflows/assay.yml``, the only place GitHub reads), running in the project's folder.

    Args:
        target: the project folder (created when absent).
        parts: the parts to use (``core`` is added; ``study`` brings ``retrieval``).
        example: ``minimal`` (a small starter) or ``demo`` (the NodiNet demo).
        force: allow a non-empty folder; files that exist are kept, only missing ones are written.
        setup: run ``git init`` / ``dvc init`` when the folder is not already a repository.
        pin: how to pin assay (default: as the running assay was installed, :func:`install_pin`).

    Raises:
        ProjectError: a name that cannot be a folder, a non-empty folder without ``force``, an unknown
            example, a symlink or file in the way, a failed git/dvc init.
        InputError: an unknown part.
    """
    if example not in EXAMPLES:
        raise ProjectError(f"--example {example!r} is not an example (fix: use one of {', '.join(EXAMPLES)})")
    chosen = resolve_parts(parts)
    root = Path(target)
    problem = folder_name_problem(root.resolve().name)
    if problem:
        raise ProjectError(f"{str(target)!r} {problem}")
    if root.exists() and not root.is_dir():
        raise ProjectError(f"{root} is a file (fix: name a new or empty folder)")
    present = sorted(p.name for p in root.iterdir() if p.name != ".git") if root.exists() else []
    if present and not force:
        shown = ", ".join(present[:5]) + (" ..." if len(present) > 5 else "")
        raise ProjectError(f"{root} is not empty ({shown}) (fix: name a new or empty folder, or add --force to write "
                           "only the files that are missing and keep every file that exists)")
    top = _inside_git(root)
    subdir = _subdir(root, top)
    pin = pin or install_pin()
    files = project_files(root, chosen, example, pin, subdir)
    boundary = {rel: top for rel in files if top is not None and rel.startswith("..")}
    check_destinations(root, files, boundary)
    if top is not None and subdir is not None:
        _check_root_workflow(top, subdir)
    root.mkdir(parents=True, exist_ok=True)
    result = InitResult(root=root, parts=chosen, notes=[pin.note] if pin.note else [])
    for rel, content in sorted(files.items()):
        if os.path.lexists(root / rel):
            result.kept.append(rel)
        else:
            _write(root, rel, content)
            result.written.append(rel)
    if setup:
        if top is None:
            _run(["git", "init", "-q", "-b", "main"], root, result, "git init -b main")
        if not (root / ".dvc").is_dir():
            _run([sys.executable, "-m", "dvc", "init", "-q", *(["--subdir"] if subdir else [])], root, result, "dvc init")
    return result


SECTION = re.compile(r"^([A-Za-z_][\w-]*):", re.MULTILINE)


def _sections(text: str) -> dict[str, str]:
    """Top-level sections of a params text, each with its lines up to the next section (trailing blanks trimmed)."""
    starts = [(m.start(), m.group(1)) for m in SECTION.finditer(text)]
    out = {}
    for (start, name), (end, _) in zip(starts, [*starts[1:], (len(text), "")], strict=True):
        out[name] = text[start:end].rstrip("\n") + "\n"
    return out


def _check_generated(dvc_file: Path, before: tuple[str, ...]) -> None:
    """Refuse a dvc.yaml that is not exactly what assay generated (by its digest), naming the stages at stake.

    Raises:
        ProjectError: the stages assay did not generate (or changed by hand), and the fix.
    """
    text = dvc_file.read_text(encoding="utf-8")
    if is_generated(text) or text == dvc_yaml(before, "installed"):
        return
    import yaml

    expected = yaml.safe_load(dvc_yaml(before, "installed"))["stages"]
    try:
        found = (yaml.safe_load(text) or {}).get("stages") or {}
    except yaml.YAMLError as error:
        raise ProjectError(f"{dvc_file} is not valid YAML ({str(error).splitlines()[0]}) and assay did not generate "
                           "it (fix: repair it, or delete it and run `assay pipeline`)") from None
    if not isinstance(found, dict):
        found = {}
    extra = sorted(name for name in found if name not in expected)
    edited = sorted(name for name in found if name in expected and found[name] != expected[name])
    removed = sorted(name for name in expected if name not in found)
    said = [f"{what}: {', '.join(names)}" for what, names in (("stages assay did not generate", extra),
                                                              ("generated stages changed by hand", edited),
                                                              ("generated stages removed", removed)) if names]
    raise ProjectError(f"{dvc_file} was not generated by assay as it stands ({'; '.join(said) or 'it was edited'}), so "
                       "adding a part would overwrite it (fix: move your own stages to a dvc.yaml in a subfolder, which "
                       "DVC also reads, and let `assay pipeline` write this file again; then run `assay add` again)")


def _edit_parts(params: Path, after: tuple[str, ...]) -> str:
    """params.yaml's text with ``parts`` set to ``after``; every other byte is kept.

    ruamel.yaml's round-trip parser locates the ``parts`` list and each item (line and column); the
    new parts are written there in the list's own style: into a flow list (``[core, judge]``) as
    ``, name``, into a block list as a new ``- name`` line with its neighbours' indentation. (Dumping
    the whole document again would re-indent it to one width, drop quotes and turn ``null`` into
    nothing.) A missing ``parts`` key is added first. The result is parsed again and must read back
    as ``after``.

    Raises:
        ProjectError: params.yaml is not valid YAML, not a mapping, or its ``parts`` is not a list.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError

    text = params.read_text(encoding="utf-8")
    try:
        doc = YAML(typ="rt").load(text)
    except YAMLError as error:
        raise ProjectError(f"{params} is not valid YAML ({str(error).splitlines()[0]}) (fix: repair it)") from None
    if not isinstance(doc, CommentedMap):
        raise ProjectError(f"{params} is not a mapping of sections (fix: start from `assay init`'s params.yaml)")
    parts = doc.get("parts")
    if "parts" not in doc:
        text = f"parts: [{', '.join(after)}]\n\n" + text
    elif not isinstance(parts, CommentedSeq):
        raise ProjectError(f"{params}: field 'parts': {parts!r} is not a list (fix: e.g. parts: [core, judge])")
    else:
        text = _insert_items(text, parts, after)
    check = YAML(typ="rt").load(text)
    if sorted(check["parts"]) != sorted(after):  # pragma: no cover - a bug here must not write a wrong file
        raise ProjectError(f"{params}: could not set parts to {list(after)} (got {list(check['parts'])}); nothing written")
    return text


def _insert_items(text: str, seq: Any, after: tuple[str, ...]) -> str:
    """``text`` with the items of ``after`` that ``seq`` (a located ruamel list) lacks appended to it."""
    lines = text.splitlines(keepends=True)
    missing = [part for part in after if part not in list(seq)]
    if not missing:
        return text
    if not len(seq):  # `parts: []`: just after the '['
        line, at, insert = seq.lc.line, seq.lc.col + 1, ", ".join(missing)
    elif seq.fa.flow_style():
        line, col = seq.lc.item(len(seq) - 1)
        at, insert = col + len(_item_text(lines[line], col)), "".join(f", {part}" for part in missing)
    else:
        line, col = seq.lc.item(len(seq) - 1)
        prefix = lines[line][:col]
        lines[line + 1:line + 1] = [f"{prefix}{part}\n" for part in missing]
        return "".join(lines)
    lines[line] = lines[line][:at] + insert + lines[line][at:]
    return "".join(lines)


def _item_text(line: str, col: int) -> str:
    """The scalar starting at ``col`` in a flow list's ``line`` (quoted or plain, up to ``,``/``]``/space)."""
    rest = line[col:]
    if rest[:1] in ("'", '"'):
        return rest[: rest.index(rest[0], 1) + 1]
    return re.match(r"[^,\]\s#]*", rest).group(0)  # type: ignore[union-attr]


def add_part(root: str | Path, part: str, example: str | None = None) -> InitResult:
    """Add ``part`` (and what it needs) to the project at ``root`` without touching the user's data.

    ``example`` None wires no example data in (:mod:`assay.project.blank`): the queue part's
    snapshot lists start empty and no example snapshot or queue is copied; the retrieval part reads
    the project's own corpus, with queries and qrels made from its cases; the study part, which has
    nothing of the project's own to start from, is refused (it needs ``example``).

    The ``parts`` list of params.yaml is updated round-trip (ruamel.yaml: comments and styles kept)
    and the new parts' sections are appended; example files of the new parts are copied where none
    exists; dvc.yaml is generated again. Everything is checked before anything is written.

    Raises:
        ProjectError: no params.yaml, a dvc.yaml that is not what assay generated (naming the stages), or
            the study part without ``example``.
        InputError: an unknown part.
    """
    base = Path(root)
    params = base / "params.yaml"
    if not params.exists():
        raise ProjectError(f"{params} not found (fix: run `assay init` first, or run this in the project folder)")
    if example is not None and example not in EXAMPLES:
        raise ProjectError(f"--example {example!r} is not an example (fix: use one of {', '.join(EXAMPLES)})")
    before = project_parts(params)
    after = resolve_parts([*before, part])
    result = InitResult(root=base, parts=after)
    new = [p for p in after if p not in before]
    if not new:
        return result
    _refuse_study_without_example(new, example)
    dvc_file = base / "dvc.yaml"
    if dvc_file.exists():
        _check_generated(dvc_file, before)
    import yaml

    text = _edit_parts(params, after)
    inputs = yaml.safe_load(text).get("inputs") or {}
    text = _with_new_sections(text, base, after, example, str(inputs.get("corpus", "data/corpus")))
    files = data_files(tuple(new), example or "minimal", after)
    data = files if example else without_example_data(files)
    own = example is None and "retrieval" in new and not any(os.path.lexists(base / r) for r in (CASE_QUERIES, CASE_QRELS))
    check_destinations(base, ["params.yaml", "dvc.yaml", *data, *((CASE_QUERIES, CASE_QRELS) if own else ())])
    if own:  # the queries and qrels of the team's own cases; validated before anything is written
        from assay.relevance.case_queries import case_queries

        case_queries(base / str(inputs.get("cases", "data/cases.jsonl")), base / str(inputs.get("corpus", "data/corpus")))
    write_text(params, text)
    result.written.append("params.yaml")
    write_text(dvc_file, dvc_yaml(after, "installed"))
    result.written.append("dvc.yaml")
    for rel, content in sorted(data.items()):
        if os.path.lexists(base / rel):
            result.kept.append(rel)
        else:
            _write(base, rel, content)
            result.written.append(rel)
    if own:
        _write_case_queries(base, inputs, result)
    result.written.sort()
    return result


def _refuse_study_without_example(new: list[str], example: str | None) -> None:
    """Refuse adding the study part with no example: nothing of the project's own can start a study.

    Raises:
        ProjectError: naming what a study starts from and the ``--example`` fix.
    """
    if example is None and "study" in new:
        raise ProjectError("the study part starts from a protocol (data/relevance/study.yaml), a study corpus and the "
                           "judgments people hand in, which assay cannot make for you; nothing was changed (fix: `assay "
                           "add study --example minimal` starts from the synthetic demo study, marked synthetic, to "
                           "replace step by step as docs/relevance-study.md says)")


def _with_new_sections(text: str, base: Path, after: tuple[str, ...], example: str | None, corpus: str) -> str:
    """``text`` (params.yaml) with the sections of ``after`` it lacks appended; without ``example`` their
    example lists are empty and the retrieval part reads ``corpus`` (:mod:`assay.project.blank`)."""
    import yaml

    have = yaml.safe_load(text)
    added = params_text(base, after, example or "minimal")
    if example is None:
        added = own_relevance_inputs(empty_example_lists(added), corpus)
    for name, block in _sections(added).items():
        if name not in have:
            text = text.rstrip("\n") + "\n\n" + block
        elif isinstance(have[name], dict):  # a section of every part (inputs): the keys the new part reads
            text = _with_keys(text, name, block, set(have[name]))
    return text


KEY = re.compile(r"^  ([A-Za-z_][\w-]*):")


def _with_keys(text: str, section: str, block: str, have: set[str]) -> str:
    """``text`` with the keys of ``block`` (one section of the template, ``section:``) that ``have`` lacks,
    each with its comment and its more-indented lines, inserted after the section's last line.

    >>> print(_with_keys("inputs:\\n  cases: c\\n\\nrag: {}\\n", "inputs", "inputs:\\n  cases: c\\n  pairs: p  # labelled\\n", {"cases"}))
    inputs:
      cases: c
      pairs: p  # labelled
    <BLANKLINE>
    rag: {}
    <BLANKLINE>
    """
    lines, keep = [], False
    for line in block.splitlines(keepends=True)[1:]:
        key = KEY.match(line)
        if key:
            keep = key.group(1) not in have
        if keep and line.strip():
            lines.append(line)
    if not lines:
        return text
    start = re.search(rf"^{re.escape(section)}:", text, re.MULTILINE)
    if start is None:  # pragma: no cover - the caller found the section
        return text
    nxt = SECTION.search(text, start.end())
    end = nxt.start() if nxt else len(text)
    body = text[start.start():end].rstrip("\n") + "\n"
    return text[:start.start()] + body + "".join(lines) + ("\n" + text[end:] if nxt else "")


def _write_case_queries(base: Path, inputs: dict, result: InitResult) -> None:
    """Write the retrieval part's queries and qrels from the project's cases (neither file exists yet)."""
    from assay.relevance.case_queries import write_case_queries

    (base / CASE_QUERIES).parent.mkdir(parents=True, exist_ok=True)
    n = write_case_queries(base / str(inputs.get("cases", "data/cases.jsonl")), base / str(inputs.get("corpus", "data/corpus")),
                           base / CASE_QUERIES, base / CASE_QRELS)
    result.written += [CASE_QUERIES, CASE_QRELS]
    result.notes.append(f"retrieval reads your own corpus; its {n} queries and their qrels are made from your cases "
                        f"({CASE_QUERIES}, {CASE_QRELS}); after changing the cases run `assay corpus queries` again")


__all__ = ["InitResult", "ProjectError", "add_part", "check_destinations", "folder_name_problem", "init_project",
           "params_text", "project_files", "yaml_string"]
