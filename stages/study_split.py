"""Stage study_split: development / sealed holdout of the relevance study by document family.

Reads the study file (data/relevance/study.yaml) and the corpus and queries it names; writes the
root's ``split.json`` and each split's ``queries.jsonl`` under $ASSAY_EVIDENCE_ROOT, and commits
``reports/relevance/study/split.json`` (counts and SHA-256 only). Always runs (the evidence root is
outside the repository); later stages depend on the committed record.
"""

from __future__ import annotations


def main() -> None:
    from assay.study.intake import record_step, split_step

    record_step("split", split_step)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_split", main)
