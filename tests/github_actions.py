"""Running a GitHub Actions job's steps locally, with GitHub's step semantics, for tests.

What is emulated, as GitHub documents it for ``ubuntu-latest``:

- each ``run`` step is a fresh ``bash --noprofile --norc -eo pipefail`` process in the workspace;
- ``$GITHUB_PATH``: a new empty file per step; after the step, each line is prepended to PATH for
  the later steps (the last line written first); ``$GITHUB_STEP_SUMMARY``: one file per step,
  concatenated into the job summary; ``$GITHUB_ENV`` lines ``NAME=value`` are set for later steps;
- ``if:`` conditions (``success() &&`` is implied when none of the status functions is named), with ``success()``, ``failure()``, ``always()``,
  ``==``, ``!=``, ``&&``, ``||``, ``!``, string literals and the ``github``, ``runner``, ``env``,
  ``secrets`` (empty unless given: a missing secret reads as an empty string, as on GitHub) and
  ``steps.<id>.outputs/outcome`` contexts; ``${{ ... }}`` in ``run`` and ``env`` values;
- a step's outcome is ``success`` or ``failure`` by its exit code; the job fails with the first
  failing step's exit code;
- ``defaults.run.working-directory`` (workflow, then job) and a step's ``working-directory``: the
  folder, relative to the workspace, a ``run`` step starts in (``uses:`` steps ignore it, as on GitHub).

``uses:`` steps are not run: the caller passes a function per action (``actions/cache`` ->
``emulate_cache``) that does its work and returns its outputs. An expression or action the
emulator does not know is an error, so the test fails rather than skip part of the workflow.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

_TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||!|\(|\))|(?P<call>[A-Za-z]+)\((?P<args>[^)]*)\)"
                    r"|(?P<ref>[A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z_][A-Za-z0-9_\-]*)*))")


@dataclass
class StepResult:
    name: str
    outcome: str  # success | failure | skipped
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""


@dataclass
class Job:
    """The job after running: its steps, the summary text, its exit code (0 when every step passed)."""

    steps: list[StepResult] = field(default_factory=list)
    summary: str = ""

    @property
    def exit_code(self) -> int:
        return next((s.exit_code for s in self.steps if s.outcome == "failure"), 0)


def _lookup(ref: str, context: dict) -> object:
    node: object = context
    for part in ref.split("."):
        if not isinstance(node, dict):
            raise ValueError(f"cannot read {ref!r}")
        node = node.get(part, "")
    return node


def evaluate(expression: str, context: dict, failed: bool) -> object:
    """Evaluate one GitHub expression (the subset the module docstring lists)."""
    out, pos, text = [], 0, expression.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"expression not understood at {text[pos:]!r}")
        pos = m.end()
        if m["str"] is not None:
            out.append(repr(m["str"][1:-1].replace("''", "'")))
        elif m["op"] is not None:
            out.append({"==": "==", "!=": "!=", "&&": " and ", "||": " or ", "!": " not ", "(": "(", ")": ")"}[m["op"]])
        elif m["call"] is not None:
            calls = {"success": not failed, "failure": failed, "always": True}
            if m["call"] not in calls or m["args"].strip():
                raise ValueError(f"function {m['call']}() not emulated")
            out.append(repr(calls[m["call"]]))
        elif m["ref"] in ("true", "false", "null"):
            out.append({"true": "True", "false": "False", "null": "None"}[m["ref"]])
        else:
            out.append(repr(_lookup(m["ref"], context)))
    return eval("".join(out), {"__builtins__": {}}, {})  # noqa: S307 - tokens above are literals and operators only


def substitute(text: str, context: dict, failed: bool) -> str:
    """Replace every ``${{ expression }}`` in ``text`` with its value."""
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(evaluate(m.group(1), context, failed)), text)


def run_job(workflow: Path, job: str, workspace: Path, *, github: dict, base_path: list[str],
            actions: dict[str, Callable[[dict, Path], dict]], env: dict[str, str] | None = None,
            secrets: dict[str, str] | None = None) -> Job:
    """Run ``job`` of ``workflow`` in ``workspace``; ``base_path`` is the runner's PATH before any step.

    Args:
        github: the ``github`` context (``event_name``, ``base_ref``, ...).
        actions: per ``uses:`` name without version (``actions/cache``), a function of the step's
            ``with:`` values and the workspace that emulates it and returns its outputs.
        env: extra variables for every step (HOME and the like).
        secrets: the ``secrets`` context (none by default).
    """
    whole = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    spec = whole["jobs"][job]
    default_dir = ((spec.get("defaults") or whole.get("defaults") or {}).get("run") or {}).get("working-directory", ".")
    scratch = workspace.parent / f".{workspace.name}-runner"
    scratch.mkdir(exist_ok=True)
    path_entries: list[str] = []
    job_env: dict[str, str] = dict(env or {})
    context: dict = {"github": github, "runner": {"os": "Linux"}, "steps": {}, "env": job_env, "secrets": dict(secrets or {})}
    result = Job()
    for number, step in enumerate(spec["steps"], start=1):
        failed = result.exit_code != 0
        name = step.get("name") or step.get("uses") or step["run"].splitlines()[0]
        condition = str(step.get("if", "success()")).strip().removeprefix("${{").removesuffix("}}")
        if not re.search(r"\b(?:success|failure|always|cancelled)\(\)", condition):
            condition = f"success() && ({condition})"  # GitHub adds success() when no status function is named
        if not evaluate(condition, context, failed):
            result.steps.append(StepResult(name, "skipped", None))
            if "id" in step:
                context["steps"][step["id"]] = {"outcome": "skipped", "outputs": {}}
            continue
        if "uses" in step:
            action = step["uses"].split("@")[0]
            if action not in actions:
                raise ValueError(f"step {name!r}: action {action} is not emulated")
            outputs = actions[action](dict(step.get("with") or {}), workspace)
            result.steps.append(StepResult(name, "success", 0))
            if "id" in step:
                context["steps"][step["id"]] = {"outcome": "success", "outputs": outputs}
            continue
        files = {key: scratch / f"{key.lower()}_{number}" for key in ("GITHUB_PATH", "GITHUB_STEP_SUMMARY", "GITHUB_ENV")}
        for f in files.values():
            f.write_text("", encoding="utf-8")
        script = scratch / f"step_{number}.sh"
        script.write_text(substitute(step["run"], context, failed), encoding="utf-8")
        step_env = {**job_env, **{k: substitute(str(v), context, failed) for k, v in (step.get("env") or {}).items()},
                    **{k: str(v) for k, v in files.items()},
                    "PATH": os.pathsep.join([*reversed(path_entries), *base_path]), "GITHUB_WORKSPACE": str(workspace),
                    "CI": "true", "GITHUB_ACTIONS": "true"}
        cwd = workspace / step.get("working-directory", default_dir)
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd,
                              env=step_env, capture_output=True, text=True)
        outcome = "success" if proc.returncode == 0 else "failure"
        result.steps.append(StepResult(name, outcome, proc.returncode, proc.stdout, proc.stderr))
        if "id" in step:
            context["steps"][step["id"]] = {"outcome": outcome, "outputs": {}}
        path_entries += [ln for ln in files["GITHUB_PATH"].read_text(encoding="utf-8").splitlines() if ln.strip()]
        for line in files["GITHUB_ENV"].read_text(encoding="utf-8").splitlines():
            if "=" in line:
                key, _, value = line.partition("=")
                job_env[key] = value
        result.summary += files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8")
    return result
