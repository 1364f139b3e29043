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

import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import assay
from assay.core.errors import AssayError
from assay.core.io import atomic_path, write_text
from assay.core.pin import DISTRIBUTION, PIN_FILE
from assay.pipeline.generate import HEADER, dvc_yaml
from assay.pipeline.parts import project_parts, resolve_parts
from assay.pipeline.template import render
from assay.project.blank import empty_example_lists, without_example_data
from assay.project.examples import EXAMPLES, RENDERED, files_for
from assay.project.study_start import unopened


class ProjectError(AssayError):
    """A project cannot be written or changed as asked (a non-empty folder, an unknown example, ...)."""


@dataclass
class InitResult:
    """What ``init`` or ``add`` did, for the command to print.

    Attributes:
        root: the project folder.
        parts: the parts the project uses now.
        written: project-relative paths written (sorted).
        kept: paths that existed and were left as they were (sorted).
        commands: what was run to set the folder up (``git init``, ``dvc init``).
    """

    root: Path
    parts: tuple[str, ...]
    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)


def template_text(name: str) -> str:
    """The project template ``name`` shipped in ``assay/project/templates/``."""
    return resources.files("assay.project").joinpath(f"templates/{name}").read_text(encoding="utf-8")


def template_values(root: Path, parts: tuple[str, ...]) -> dict[str, str]:
    """The ``@@name@@`` values of the project templates for a project at ``root`` using ``parts``."""
    return {"parts": "[" + ", ".join(parts) + "]", "reference_source": PIN_FILE, "salt": f"{root.name or 'assay'}-v1",
            "version": assay.__version__, "distribution": DISTRIBUTION, "pin_file": PIN_FILE,
            "parts_list": ", ".join(parts)}


def params_text(root: Path, parts: tuple[str, ...], example: str) -> str:
    """params.yaml for ``parts`` and ``example`` (only the sections of those parts)."""
    return render(template_text("params.yaml"), (*parts, example), template_values(root, parts))


def project_files(root: Path, parts: tuple[str, ...], example: str) -> dict[str, bytes | str]:
    """Every file a new project holds, by project-relative path (text for generated files, bytes for data)."""
    values = template_values(root, parts)
    files: dict[str, bytes | str] = {
        "params.yaml": params_text(root, parts, example),
        "dvc.yaml": dvc_yaml(parts, "installed"),
        PIN_FILE: render(template_text("requirements.txt"), parts, values),
        "README.md": render(template_text("README.md"), (*parts, example), values),
        ".github/workflows/assay.yml": render(template_text("workflow.yml"), ("installed", *parts), values),
        ".gitignore": template_text("gitignore"),
        ".dvcignore": template_text("dvcignore"),
    }
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


def _run(args: list[str], cwd: Path, result: InitResult, shown: str) -> None:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ProjectError(f"{shown} failed in {cwd}: {(proc.stderr or proc.stdout).strip()}")
    result.commands.append(shown)


def _inside_git(root: Path) -> Path | None:
    proc = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True)
    return Path(proc.stdout.strip()) if proc.returncode == 0 else None


def init_project(target: str | Path, parts: Iterable[str] = ("core", "judge"), example: str = "minimal",
                 force: bool = False, setup: bool = True) -> InitResult:
    """Write a ready evaluation project at ``target``; run ``git init`` and ``dvc init`` there when needed.

    Args:
        target: the project folder (created when absent).
        parts: the parts to use (``core`` is added; ``study`` brings ``retrieval``).
        example: ``minimal`` (a small starter) or ``demo`` (the NodiNet demo).
        force: allow a non-empty folder; files that exist are kept, only missing ones are written.
        setup: run ``git init`` / ``dvc init`` when the folder is not already a repository.

    Raises:
        ProjectError: a non-empty folder without ``force``, an unknown example, a failed git/dvc init.
        InputError: an unknown part.
    """
    if example not in EXAMPLES:
        raise ProjectError(f"--example {example!r} is not an example (fix: use one of {', '.join(EXAMPLES)})")
    chosen = resolve_parts(parts)
    root = Path(target)
    if root.exists() and not root.is_dir():
        raise ProjectError(f"{root} is a file (fix: name a new or empty folder)")
    present = sorted(p.name for p in root.iterdir() if p.name != ".git") if root.exists() else []
    if present and not force:
        shown = ", ".join(present[:5]) + (" ..." if len(present) > 5 else "")
        raise ProjectError(f"{root} is not empty ({shown}) (fix: name a new or empty folder, or add --force to write "
                           "only the files that are missing and keep every file that exists)")
    root.mkdir(parents=True, exist_ok=True)
    result = InitResult(root=root, parts=chosen)
    for rel, content in sorted(project_files(root, chosen, example).items()):
        if (root / rel).exists():
            result.kept.append(rel)
        else:
            _write(root, rel, content)
            result.written.append(rel)
    if setup:
        top = _inside_git(root)
        if top is None:
            _run(["git", "init", "-q"], root, result, "git init")
        if not (root / ".dvc").is_dir():
            subdir = ["--subdir"] if top is not None and top.resolve() != root.resolve() else []
            _run([sys.executable, "-m", "dvc", "init", "-q", *subdir], root, result, "dvc init")
    return result


SECTION = re.compile(r"^([A-Za-z_][\w-]*):", re.MULTILINE)
PARTS_LINE = re.compile(r"^parts:.*$", re.MULTILINE)


def _sections(text: str) -> dict[str, str]:
    """Top-level sections of a params text, each with its lines up to the next section (trailing blanks trimmed)."""
    starts = [(m.start(), m.group(1)) for m in SECTION.finditer(text)]
    out = {}
    for (start, name), (end, _) in zip(starts, [*starts[1:], (len(text), "")], strict=True):
        out[name] = text[start:end].rstrip("\n") + "\n"
    return out


def add_part(root: str | Path, part: str, example: str | None = None) -> InitResult:
    """Add ``part`` (and what it needs) to the project at ``root`` without touching the user's data.

    ``example`` None wires no example data in (:mod:`assay.project.blank`): the queue part's
    snapshot lists start empty and no example snapshot or queue is copied.

    The ``parts`` line of params.yaml is updated and the new parts' sections are appended; example
    files of the new parts are copied where none exists; dvc.yaml is generated again.

    Raises:
        ProjectError: no params.yaml, or a dvc.yaml that assay did not generate.
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
    dvc_file = base / "dvc.yaml"
    if dvc_file.exists() and not dvc_file.read_text(encoding="utf-8").startswith(HEADER):
        raise ProjectError(f"{dvc_file} was not generated by assay, so adding a part would overwrite your stages "
                           "(fix: move your own stages to another file, then run `assay pipeline`)")
    text = params.read_text(encoding="utf-8")
    parts_value = template_values(base, after)["parts"]
    text = PARTS_LINE.sub(f"parts: {parts_value}", text, count=1) if PARTS_LINE.search(text) else f"parts: {parts_value}\n\n" + text
    have = _sections(text)
    added = params_text(base, after, example or "minimal")
    for name, block in _sections(added if example else empty_example_lists(added)).items():
        if name not in have:
            text = text.rstrip("\n") + "\n\n" + block
    write_text(params, text)
    result.written.append("params.yaml")
    write_text(dvc_file, dvc_yaml(after, "installed"))
    result.written.append("dvc.yaml")
    files = data_files(tuple(new), example or "minimal", after)
    for rel, content in sorted((files if example else without_example_data(files)).items()):
        if (base / rel).exists():
            result.kept.append(rel)
        else:
            _write(base, rel, content)
            result.written.append(rel)
    result.written.sort()
    return result


__all__ = ["InitResult", "ProjectError", "add_part", "init_project", "params_text", "project_files"]
