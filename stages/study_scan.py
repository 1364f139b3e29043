"""Stage study_scan: the de-identification scan of every split's queries and packets.

Reads params ``relevance.modes`` (mode names an annotator must not see) and the packets under
$ASSAY_EVIDENCE_ROOT; fails on any hit (file:line:column kind, never the text); commits
``reports/relevance/study/scan.json`` (hit counts and SHA-256 only). Checks the queries and
packets against the records of study_split and study_pool first.
"""

from __future__ import annotations


def main() -> None:
    from assay.core.params import load_section
    from assay.relevance.params import RelevanceParams
    from assay.study.evidence import QUERIES, packet_name
    from assay.study.received import per_split
    from assay.study.records import record_step
    from assay.study.scan import scan_step

    modes = load_section("relevance", RelevanceParams).modes
    record_step("scan", lambda study, root: scan_step(study, root, modes),
                produced={"split": per_split(QUERIES), "pool": per_split(packet_name("A"), packet_name("B"))})


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_scan", main)
