"""Stage study_receipt: the agreement receipt of each split, before any discussion.

Reads params ``study`` (bootstrap resamples, seed, level) and both annotators' judgments under
$ASSAY_EVIDENCE_ROOT; writes ``<split>/receipt.json`` there and commits
``reports/relevance/study/receipt.json`` (both receipts: measures, formulas, tool versions,
intervals, counts and the judgment files' SHA-256; no grade of any pair). Checks the judgments
against the received-evidence lock first.
"""

from __future__ import annotations


def main() -> None:
    from assay.core.params import load_section
    from assay.study.receipt import receipt_step
    from assay.study.params import StudyParams
    from assay.study.records import record_step

    params = load_section("study", StudyParams)
    record_step("receipt", lambda study, root: receipt_step(study, root, params), received=("judgments",))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_receipt", main)
