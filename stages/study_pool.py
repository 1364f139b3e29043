"""Stage study_pool: pooled candidates and the two identical blind packets of every split.

Reads params ``relevance`` (modes and their settings), the study file and the root's split; runs
every mode on each split's documents and writes ``pool.jsonl``, ``packet_A.jsonl`` and
``packet_B.jsonl`` per split (and ``salt.json`` once) under $ASSAY_EVIDENCE_ROOT; commits
``reports/relevance/study/pool.json`` (counts and SHA-256 only). Checks the root's split and
queries against ``reports/relevance/study/split.json`` first.
"""

from __future__ import annotations


def main() -> None:
    from assay.core.params import load_section
    from assay.relevance.params import RelevanceParams
    from assay.study.pooling import pool_step
    from assay.study.evidence import QUERIES, SPLIT_FILE
    from assay.study.received import per_split
    from assay.study.records import record_step

    params = load_section("relevance", RelevanceParams)
    record_step("pool", lambda study, root: pool_step(study, root, params), received=("inputs",),
                produced={"split": [SPLIT_FILE, *per_split(QUERIES)]})


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_pool", main)
