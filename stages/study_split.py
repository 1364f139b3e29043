"""Stage study_split: development / sealed holdout of the relevance study by document family.

Reads the study file (data/relevance/study.yaml) and the corpus and queries it names; writes the
root's ``split.json`` and each split's ``queries.jsonl`` under $ASSAY_EVIDENCE_ROOT, and commits
``reports/relevance/study/split.json`` (counts and SHA-256 only); later stages depend on the record
and check the files they read against it. A corpus or queries file the study file puts under the
root is checked against the received-evidence lock (``inputs``) first.
"""

from __future__ import annotations


def main() -> None:
    from assay.study.split import split_step
    from assay.study.records import record_step

    record_step("split", split_step, received=("inputs",))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_split", main)
