"""DVC stage `review@NAME`: judge versus people on one committed review snapshot.

Usage: ``python stages/review.py NAME``. Reads params ``review.snapshots`` (NAME must be listed)
and data/reviews/NAME.jsonl; writes metrics/review/NAME.json (numbers only: n, agreement with its
Wilson interval, kappa, score gaps with intervals and 0/1 flags, random_fill 0/1) and
reports/review/NAME.md (the reading, the bias warning for a hard fill, every disagreement with both
rationales, the snapshot's SHA-256) and reports/provenance/review_NAME.json (input ``snapshot``: the
snapshot's SHA-256, which the gate recomputes to call the metrics stale; details ``judges``: the
identities of the judge that made the snapshot's verdicts, which the gate compares with params judge).
"""

from __future__ import annotations

import sys


def main() -> None:
    from assay.core.errors import InputError, Problem
    from assay.artifacts.provenance import provenance
    from assay.artifacts.registry import REVIEW, REVIEW_PAGE, write_record
    from assay.core.io import sha256_file
    from assay.core.params import load_section
    from assay.queue.report import report_markdown
    from assay.queue.results import review_metrics, summarize
    from assay.queue.snapshot import ReviewParams, judge_identities, read_snapshot

    name = sys.argv[1]
    params = load_section("review", ReviewParams)
    if name not in params.snapshots:
        raise InputError([Problem("params.yaml", None, "review.snapshots", f"{name!r} is not listed",
                                  "add the snapshot name to review.snapshots")])
    path = params.path(name)
    snapshot = read_snapshot(path)
    summary = summarize(snapshot)
    digest = sha256_file(path)
    write_record(REVIEW, review_metrics(summary),
                 provenance(settings={"name": name, "fill": summary.queue.fill},
                            details={"judges": judge_identities(snapshot)}, snapshot=digest), name=name)
    REVIEW_PAGE.write(report_markdown(summary, {path: digest}), name=name)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("review", main)
