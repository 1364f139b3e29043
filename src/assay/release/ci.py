"""What ``assay ci`` checks before it recomputes anything: the pipeline is the one the installed assay declares.

``assay verify`` runs the change's own dvc.yaml in its scratch copy, so a pull request that adds a
stage copying forged files over the recomputed ones, or deletes a stage and lists its outputs as
another stage's dependencies, makes verify compare a forged file with itself (issue 31, attacks 1
and 2). ``assay ci`` first regenerates dvc.yaml from params ``parts`` with the installed assay
(:func:`assay.pipeline.generate.dvc_yaml`) and refuses a committed one that differs
(:func:`pipeline_difference`), and refuses any other file DVC would read stages from
(:func:`foreign_stage_files`). Only then does it recompute, with
:func:`assay.release.verify.verify` ``(strict=True)``, and run the gate on the recomputed outputs.

No YAML is parsed here: a committed dvc.yaml is compared as text (so an alias bomb costs nothing),
and a ``.dvc`` file is read only for a ``cmd:`` key at the start of a line.
"""

from __future__ import annotations

import re
from pathlib import Path

from assay.core.errors import AssayError

STAGE_LINE = re.compile(r"^  ([^\s#:][^:]*):\s*$")
CMD_LINE = re.compile(r"^\s*cmd\s*:", re.MULTILINE)
#: how much of a differing line a message quotes
QUOTE = 120


class PipelineRefused(AssayError):
    """The committed pipeline is not the one the installed assay generates from the parts (exit 2)."""

    exit_code = 2


def _stages(text: str) -> list[str]:
    """Stage names of a dvc.yaml as text: the two-space-indented keys under the top-level ``stages:``."""
    names: list[str] = []
    inside = False
    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            inside = line.rstrip() == "stages:"
            continue
        if inside and (match := STAGE_LINE.match(line)):
            names.append(match.group(1).strip().strip("'\""))
    return names


def _quote(line: str) -> str:
    return repr(line if len(line) <= QUOTE else line[:QUOTE] + "...")


def describe_difference(committed: str, generated: str) -> str:
    """How ``committed`` dvc.yaml differs from ``generated``: stages added or missing, else the first differing line.

    >>> describe_difference("stages:\\n  a:\\n  evil:\\n", "stages:\\n  a:\\n")
    "stage 'evil' is not one assay declares for these parts"
    >>> describe_difference("stages:\\n  a:\\n    cmd: x\\n", "stages:\\n  a:\\n    cmd: y\\n")
    "line 3: committed '    cmd: x', assay generates '    cmd: y'"
    """
    have, want = _stages(committed), _stages(generated)
    extra = [s for s in have if s not in want]
    missing = [s for s in want if s not in have]
    said = []
    if extra:
        said.append(f"stage{'s' if len(extra) > 1 else ''} {', '.join(map(repr, extra))} "
                    f"{'are' if len(extra) > 1 else 'is'} not one assay declares for these parts")
    if missing:
        said.append(f"stage{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
                    f"that the parts need {'are' if len(missing) > 1 else 'is'} missing")
    if said:
        return "; ".join(said)
    old, new = committed.splitlines(), generated.splitlines()
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return f"line {number}: committed {_quote(a)}, assay generates {_quote(b)}"
    if len(old) != len(new):
        number = min(len(old), len(new)) + 1
        if len(old) > len(new):
            return f"line {number}: committed {_quote(old[number - 1])}, assay generates (end of file)"
        return f"line {number}: committed (end of file), assay generates {_quote(new[number - 1])}"
    return "line endings or the final newline differ"


def pipeline_difference(root: str | Path = ".") -> str | None:
    """Why ``root/dvc.yaml`` is not what the installed assay generates from ``root/params.yaml``'s parts; ``None`` when equal.

    The layout (``source`` or ``installed``) is detected as ``assay pipeline`` does. A missing
    dvc.yaml is a difference.

    Raises:
        InputError: params.yaml's ``parts`` is not a list of known parts.
    """
    from assay.pipeline.generate import detect_layout, dvc_yaml
    from assay.pipeline.parts import project_parts

    base = Path(root)
    generated = dvc_yaml(project_parts(base / "params.yaml"), detect_layout(base))
    target = base / "dvc.yaml"
    if not target.is_file():
        return "dvc.yaml is missing"
    committed = target.read_bytes().decode("utf-8", errors="replace")
    return None if committed == generated else describe_difference(committed, generated)


def foreign_stage_files(root: str | Path, tracked: list[str]) -> list[str]:
    """Tracked files other than the root dvc.yaml from which DVC would read stages, with why.

    DVC collects stages from every ``dvc.yaml`` in the repository and runs the ``cmd`` of a
    ``.dvc`` file written in the old single-stage format; a ``.dvc`` file from ``dvc add`` has no
    ``cmd`` and is an input, so it is allowed.
    """
    found = []
    for rel in tracked:
        name = rel.rsplit("/", 1)[-1]
        if name in ("dvc.yaml", "dvc.yml") and rel != "dvc.yaml":
            found.append(f"{rel}: a second pipeline file; DVC would run its stages")
        elif name.endswith(".dvc") and (Path(root) / rel).is_file():
            head = (Path(root) / rel).read_bytes()[:65536].decode("utf-8", errors="replace")
            if CMD_LINE.search(head):
                found.append(f"{rel}: a .dvc file with a `cmd`; DVC would run it as a stage")
    return found


def check_pipeline(root: str | Path, tracked: list[str]) -> None:
    """Refuse a pipeline the installed assay did not declare, before anything runs.

    Raises:
        PipelineRefused: dvc.yaml differs from what ``assay pipeline`` writes, or another tracked
            file declares stages; the message names each difference and the fix.
    """
    problems = []
    if (why := pipeline_difference(root)) is not None:
        problems.append(f"dvc.yaml differs from what the installed assay generates from params.yaml's parts: {why} "
                        "(fix: run `assay pipeline` and commit dvc.yaml; add stages as parts, not by hand)")
    problems += [f"{found} (fix: delete it; only the stages assay declares run in CI)"
                 for found in foreign_stage_files(root, tracked)]
    if problems:
        raise PipelineRefused("\n".join(problems))
