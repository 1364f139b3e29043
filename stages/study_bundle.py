"""Stage study_bundle: the arbiter's bundle of each split, disagreements on any judged field only, blind to who said what.

Refuses when a split's receipt is missing or no longer names the judgment files as they are.
Writes ``<split>/bundle.jsonl`` under $ASSAY_EVIDENCE_ROOT and commits
``reports/relevance/study/bundle.json`` (disagreement counts and the bundles' SHA-256).
"""

from __future__ import annotations


def main() -> None:
    from assay.study.freeze import bundle_step
    from assay.study.intake import record_step

    record_step("bundle", bundle_step)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_bundle", main)
