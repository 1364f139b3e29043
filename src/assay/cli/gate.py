"""`assay gate`: the release decision on the workspace. Prints the verdict table; exits 0 pass, 1 threshold unmet,
2 stale or missing, 3 internal error.

The gate reads the committed outputs and checks that they are fresh (their recorded input hashes match
the inputs), not that they are right: a hand-edited metric committed with ``dvc commit -f`` is fresh.
So under ``CI=true`` it never passes on its own: where it would pass it exits 2 with the check
``recomputed in this process`` saying to run ``assay ci``, which recomputes every stage and gates on
the result in one process (:mod:`assay.cli.ci`). No record file can stand in for that recomputation
(issue 31, attack 5: a record another step leaves is one function call to write). A failing gate
stays a failure (exit 1) under CI too: refusing needs no proof. Outside CI nothing changes.
"""

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
    p.epilog = ("With CI=true the gate never passes on its own (exit 2 where it would pass): it checks that the "
                "committed outputs are fresh, not that they are right; run `assay ci`, which recomputes every "
                "stage and gates on the result in one process.")
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


#: the check a would-be pass gets under CI=true (see the module)
CI_CHECK = "recomputed in this process"
CI_REFUSAL = ("under CI=true the gate does not pass on committed outputs it did not recompute: they are fresh, "
              "not shown to be right, and no record file can prove they were recomputed (fix: run `assay ci`, "
              "which recomputes every stage and runs this gate on the result in one process)")


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
    """Every gate check on the repository at ``root`` (the working directory must be ``root``), without the CI refusal.

    ``assay ci`` calls it in its scratch copy, on the outputs it has just recomputed.
    """
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
    if in_ci() and exit_code(checks) == 0:  # in CI a pass needs a recomputation this process made
        checks.append(Check(CI_CHECK, "missing", CI_REFUSAL))
    if args.json:
        print(json.dumps({"exit_code": exit_code(checks), "checks": checks_dict(checks)}, indent=2))
    else:
        print(checks_table(checks), end="")
    return exit_code(checks)
