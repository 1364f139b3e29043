"""Stage study_check: annotators A's and B's judgments against their packets, in every split.

Reads the packets and judgments under $ASSAY_EVIDENCE_ROOT; fails when any file is missing a row,
repeats or invents a pair, or holds a value outside its set (each at file:line: the packet goes
back to the annotator without reconciliation); commits ``reports/relevance/study/check.json``
(row and fault counts, SHA-256 of the judgments and packets). Checks the judgments against the
received-evidence lock and the packets against study_pool's record first.
"""

from __future__ import annotations


def main() -> None:
    from assay.study.evidence import packet_name
    from assay.study.judgments import check_step
    from assay.study.received import per_split
    from assay.study.records import record_step

    record_step("check", check_step, received=("judgments",),
                produced={"pool": per_split(packet_name("A"), packet_name("B"))})


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_check", main)
