"""Stage study_scan: the de-identification scan of every split's queries and packets.

Reads params ``relevance.modes`` (mode names an annotator must not see) and the packets under
$ASSAY_EVIDENCE_ROOT; fails on any hit (file:line:column kind, never the text); commits
``reports/relevance/study/scan.json`` (hit counts and SHA-256 only).
"""

from __future__ import annotations


def main() -> None:
    from assay.core.params import load_section
    from assay.relevance.params import RelevanceParams
    from assay.study.intake import record_step, scan_step

    modes = load_section("relevance", RelevanceParams).modes
    record_step("scan", lambda study, root: scan_step(study, root, modes))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_scan", main)
