"""Stage study_bundle: the arbiter's bundle of each split, disagreements on any judged field only, blind to who said what.

Refuses when a split's receipt is missing or no longer names the judgment files as they are.
Writes ``<split>/bundle.jsonl`` under $ASSAY_EVIDENCE_ROOT and commits
``reports/relevance/study/bundle.json`` (disagreement counts and the bundles' SHA-256). Checks the
judgments against the received-evidence lock, and the receipts and packets against their records, first.
"""

from __future__ import annotations


def main() -> None:
    from assay.study.evidence import packet_name
    from assay.study.bundle import bundle_step
    from assay.study.received import per_split
    from assay.study.evidence import RECEIPT
    from assay.study.records import record_step

    record_step("bundle", bundle_step, received=("judgments",),
                produced={"receipt": per_split(RECEIPT), "pool": per_split(packet_name("A"))})


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_bundle", main)
