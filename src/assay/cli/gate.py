"""`assay gate`: the CI command. Prints the verdict table; exits 0 pass, 1 threshold unmet, 2 stale or missing, 3 internal error."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.release.checks import Check


from assay.core.errors import exits_on_internal_error


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gate", help="enforce the release gate in CI (exit 0 pass, 1 fail, 2 stale or missing, 3 internal error)",
                       description="Check every blocking plan metric for the candidate, no-regression rules, judge "
                                   "usability, human agreement and that every metrics file matches its current inputs. "
                                   "Exit 0 when all pass, 1 when a threshold is unmet, 2 when the pipeline is stale "
                                   "(`dvc status` not clean: dvc.lock does not match the workspace; or a recorded hash "
                                   "differs), a metrics file is missing, or a file under metrics/ or reports/ is "
                                   "written by no stage any more (named, with the command that deletes it), 3 on an error "
                                   "in assay itself (one line on stderr, no traceback).")
    p.add_argument("--root", default=".", help="repository root (default: .)")
    p.add_argument("--skip-dvc-status", action="store_true",
                   help="do not run `dvc status` (the recorded-hash checks and the missing-file checks still run); "
                        "refused with exit 2 when the environment variable CI is true")
    p.epilog = ("With CI=true the gate passes (exit 0) only after `assay verify` recomputed the committed outputs in "
                "the same workspace (its record .assay/verified.json matches the tracked files); otherwise exit 2.")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.set_defaults(func=exits_on_internal_error("gate", run))


def dvc_status(root: Path) -> dict | None:
    """`dvc status --json` as a dict ({} when clean); None when dvc is not installed or not a DVC repo.

    No stage is marked ``always_changed`` (the relevance study's evidence outside the repository is
    locked in ``data/relevance/received.json``), so any listed stage is stale.
    """
    exe = shutil.which("dvc") or str(Path(sys.executable).parent / "dvc")
    if not Path(exe).exists() or not (root / "dvc.yaml").exists():
        return None
    proc = subprocess.run([exe, "status", "--json"], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        return {"dvc status": [proc.stderr.strip() or f"exited {proc.returncode}"]}
    return json.loads(proc.stdout or "{}")


def _recorded(root: Path, checks: list) -> list:
    """The gate stage's record checked against ``checks`` (:func:`~assay.release.checks.recorded_verdict_checks`)."""
    from assay.artifacts.registry import GATE
    from assay.core.errors import AssayError
    from assay.release.checks import Check, recorded_verdict_checks

    try:
        recorded = GATE.read_optional(root)
    except AssayError as error:
        return [Check("gate record", "missing", f"{GATE.relpath()} cannot be read: {error}")]
    return recorded_verdict_checks(recorded, checks)


def _undeclared(root: Path) -> list:
    """One ``stale`` check naming every file under metrics/ or reports/ that no stage writes any more; [] when none."""
    from dvc.exceptions import DvcException

    from assay.release.checks import Check
    from assay.release.undeclared import undeclared_message, undeclared_outputs

    try:
        left = undeclared_outputs(root)
    except DvcException as error:
        return [Check("undeclared outputs", "missing", f"cannot read the stages of dvc.yaml: {error}")]
    return [Check("undeclared outputs", "stale", undeclared_message(left))] if left else []


def in_ci() -> bool:
    """Whether the environment variable ``CI`` is set to true (``true``, ``1`` or ``yes``, any case), as CI services set it."""
    import os

    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def run(args: argparse.Namespace) -> int:
    import os

    from assay.core.errors import RefusedInCI

    if args.skip_dvc_status and in_ci():
        raise RefusedInCI("--skip-dvc-status is refused when CI=true: in CI the gate must see that `dvc status` is "
                          "clean, or hand-edited metrics would pass (fix: drop the option, and run `dvc repro` and "
                          "commit dvc.lock before the gate)")
    here = os.getcwd()
    os.chdir(args.root)  # params.yaml paths are relative to the repository root
    try:
        return _gate(args)
    finally:
        os.chdir(here)  # `assay gate` called in-process (tests, a notebook) leaves the caller where it was


def gate_checks(root: Path, with_dvc_status: bool = True) -> list[Check]:
    """Every gate check on the repository at ``root`` (the working directory must be ``root``), without the CI witness."""
    from assay.release.checks import Check
    from assay.release.gather import gather

    checks: list[Check] = []
    if with_dvc_status:
        status = dvc_status(root)
        if status is None:
            checks.append(Check("dvc status", "missing", "dvc or dvc.yaml not found: cannot tell whether the pipeline is current"))
        elif status:
            checks.append(Check("dvc status", "stale", "dvc.lock does not match the workspace; changed: "
                                + ", ".join(sorted(status)) + " (fix: run `dvc repro` and commit dvc.lock and the outputs)"))
        else:
            checks.append(Check("dvc status", "pass", "pipeline up to date"))
    checks += _undeclared(root)
    found = gather(root)[0]
    return checks + found + _recorded(root, found)


def _gate(args: argparse.Namespace) -> int:
    """The gate's checks from the repository root (the working directory), printed and written."""
    from assay.release.checks import Check, checks_dict, checks_table, exit_code

    root = Path(".")
    checks = gate_checks(root, not args.skip_dvc_status)
    if in_ci() and exit_code(checks) == 0:  # in CI a pass needs proof the outputs were recomputed here
        from assay.release.witness import witness_problem

        why = witness_problem(root)
        checks.append(Check("verified workspace", "missing" if why else "pass",
                            f"{why} (fix: run `assay verify` in this workspace before `assay gate`)" if why
                            else "assay verify recomputed these committed outputs in this workspace"))
    if args.json:
        print(json.dumps({"exit_code": exit_code(checks), "checks": checks_dict(checks)}, indent=2))
    else:
        print(checks_table(checks), end="")
    return exit_code(checks)
