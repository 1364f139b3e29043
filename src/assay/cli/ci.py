"""`assay ci`: the one command a CI job runs; it recomputes and decides in one process, trusting only the installed assay.

Steps, each of which can end the run:

1. with ``--base REF``: the history is complete (not a shallow clone) and every change to the policy
   (plan, thresholds, gate and judge rules, tolerances, judge endpoint) against REF is listed; a
   loosening in the same change as a system or data change is refused (:mod:`assay.release.policy`);
2. dvc.yaml is what the installed assay generates from params ``parts``, and no other file declares
   stages (:mod:`assay.release.ci`);
3. every stage is recomputed in a scratch copy from which every tracked output has been removed
   (:func:`assay.release.verify.verify` with ``strict``), and each committed output is compared with
   its recomputation;
4. the gate runs on the recomputed outputs, in the scratch copy.

Nothing is written in the repository and no record is left for another step to believe.
Exit codes: 0 the gate passes, 1 a pre-registered threshold is unmet, 2 an input or verification
problem (a pipeline assay did not declare, a committed output that differs, a stage that fails, a
refused policy change, a shallow clone), 3 an error inside assay itself (one line, no traceback:
:func:`assay.core.errors.exits_on_internal_error`).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from assay.core.errors import exits_on_internal_error

if TYPE_CHECKING:
    from assay.release.checks import Check


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ci", help="recompute every stage and run the gate on the result, in one process "
                                  "(exit 0 pass, 1 gate fails, 2 input or verification problem)",
                       description="Refuse a dvc.yaml the installed assay does not generate from params.yaml's parts, "
                                   "recompute every stage in a scratch copy with every tracked output removed first, "
                                   "compare each committed output with its recomputation, and run the release gate "
                                   "on the recomputed outputs. With --base, list every policy change against the "
                                   "base and refuse a loosening that comes with a system or data change. Exit 0 "
                                   "when the gate passes, 1 when a threshold is unmet, 2 on an input or "
                                   "verification problem.")
    p.add_argument("--root", default=".", help="repository root (default: .)")
    p.add_argument("--base", default=None, metavar="REF",
                   help="git ref of the base branch (e.g. origin/main): the policy is read from it and changes "
                        "to it are listed and checked; needs the full history (fetch-depth: 0)")
    p.add_argument("--rejudge", type=int, default=0, metavar="N",
                   help="with the judge's key in the environment, first re-ask N stored judge requests drawn with the "
                        "seed in ASSAY_CI_SEED, plus every stored reply that changed against --base, from the endpoint "
                        "the base says; exit 2 when more differ than the base's judge.rejudge_tolerance")
    p.add_argument("--markdown", action="store_true",
                   help="print the report as Markdown for a job summary (fences longer than any backtick run "
                        "in it) instead of plain text")
    p.set_defaults(func=exits_on_internal_error("ci", run))


@dataclass
class CiReport:
    """What ``assay ci`` found, in the order it looked; rendered as text or Markdown."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    policy: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    rejudged: list[str] = field(default_factory=list)
    gate: list[Check] = field(default_factory=list)
    verified: str = ""


def _ci(root: Path, args: argparse.Namespace, report: CiReport) -> int:
    import tempfile

    from assay.cli.gate import gate_checks
    from assay.release.checks import exit_code
    from assay.release.ci import check_pipeline
    from assay.core.history import require_history
    from assay.release.judge_endpoint import check_endpoint, ci_seed, run_rejudge
    from assay.release.policy import PolicyRefused, parse_mapping, review_policy
    from assay.release.verify import tracked_files, verify

    require_history(root)
    base_params = None
    if args.base:
        review = review_policy(str(root), args.base)
        base_params = review.policies.base_params
        report.policy = [str(change) for change in review.changes]
        if review.refused:
            raise PolicyRefused(review.note())
        if review.changes:
            report.notes.append(review.note())
    params = root / "params.yaml"
    head_params = parse_mapping(params.read_text(encoding="utf-8") if params.is_file() else None, "params.yaml")
    trusted = check_endpoint(head_params, base_params, os.environ)  # before any request
    if args.rejudge > 0:
        if trusted is None:
            report.notes.append("no judge key in the environment: the stored judge replies were not re-asked")
        else:
            audit = run_rejudge(root, trusted, base_params, args.base, args.rejudge, ci_seed(os.environ))
            report.rejudged = [*audit.differed, f"{len(audit.differed)} of {audit.asked} re-asked verdicts differ from "
                               f"the stored replies (share {audit.share:.3f}, the base's tolerance {audit.tolerance:g})"]
            if not audit.ok:
                report.problems.append("the stored judge replies are not what the judge says now (fix: run `dvc repro "
                                       "judge` and commit; if the judge varies by itself, raise judge.rejudge_tolerance "
                                       "in a change of its own)")
                return 2
    tracked = tracked_files(root)
    check_pipeline(root, tracked)
    with tempfile.TemporaryDirectory(prefix="assay-ci-") as tmp:
        scratch = Path(tmp) / "repo"
        result = verify(root, scratch, strict=True)
        for stage, reason in result.replayed.items():
            report.notes.append(f"replayed {stage}: {reason}")
        if result.uncommitted:
            shown = ", ".join(result.uncommitted[:5]) + (" ..." if len(result.uncommitted) > 5 else "")
            report.notes.append(f"{len(result.uncommitted)} tracked file(s) differ from HEAD ({shown}); "
                                "this checked the working tree, not the last commit")
        report.differences = [str(d) for d in result.differences]
        if not result.ok:
            report.problems.append(f"{len(result.differences)} of {len(result.compared)} committed files differ from "
                                   "what the committed inputs give (fix: run `dvc repro` and commit its outputs; "
                                   "never edit outputs by hand)")
            return 2
        report.verified = (f"{len(result.compared)} committed files match a recomputation of {len(result.stages)} "
                           "stages from the committed inputs")
        here = os.getcwd()
        os.chdir(scratch)  # params.yaml paths are relative to the repository root
        try:
            report.gate = gate_checks(Path("."))
        finally:
            os.chdir(here)
    return exit_code(report.gate)


def run(args: argparse.Namespace) -> int:
    from assay.core.errors import AssayError

    print("assay ci: checking the pipeline, recomputing it in a scratch copy, then the gate ...", file=sys.stderr)
    report = CiReport()
    try:
        code = _ci(Path(args.root).resolve(), args, report)
    except AssayError as error:
        report.problems.append(str(error))
        code = 2  # every refusal before the gate's verdict is an input or verification problem
    print(render_markdown(report, code) if args.markdown else render_text(report, code), end="")
    return code


def render_text(report: CiReport, code: int) -> str:
    """The report as plain lines: notes, policy changes, differences, problems, the gate table, the verdict."""
    from assay.release.checks import checks_table

    lines = [f"note: {n}" for n in report.notes] + [f"POLICY    {p}" for p in report.policy]
    lines += [f"REJUDGED  {r}" for r in report.rejudged]
    lines += [f"DIFFERS   {d}" for d in report.differences]
    lines += [f"REFUSED   {line}" for p in report.problems for line in p.splitlines()]
    if report.verified:
        lines.append(f"verified: {report.verified}")
    text = "\n".join(lines) + ("\n" if lines else "")
    if report.gate:
        text += checks_table(report.gate)
    return text + f"assay ci: exit {code} ({MEANING[code]})\n"


MEANING = {0: "the gate passes", 1: "a pre-registered threshold is unmet", 2: "an input or verification problem"}


def render_markdown(report: CiReport, code: int) -> str:
    """The report for ``$GITHUB_STEP_SUMMARY``: a heading with the exit code, then each section in a fence nothing
    inside can close, control characters escaped (:func:`assay.core.fmt.md_code_block`)."""
    from assay.core.fmt import md_code_block
    from assay.release.checks import checks_table

    out = [f"## assay ci: exit {code} ({MEANING[code]})\n"]
    sections = [("Refused", report.problems), ("Policy changes against the base", report.policy),
                ("Stored judge replies re-asked", report.rejudged),
                ("Committed outputs that differ from their recomputation", report.differences),
                ("Notes", report.notes)]
    for title, items in sections:
        if items:
            body = "\n".join(items)
            out.append(f"\n### {title}\n\n{md_code_block(body)}")
    if report.verified:
        out.append(f"\nVerified: {report.verified}.\n")
    if report.gate:
        table = checks_table(report.gate)
        out.append(f"\n### Release gate (on the recomputed outputs)\n\n{md_code_block(table)}")
    return "".join(out)
