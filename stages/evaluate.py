"""Stage evaluate@VERSION: run one RAG version over the cases and score every case.

Usage: ``python stages/evaluate.py VERSION`` from the repository root. Reads params ``rag``,
``data/cases.jsonl`` and ``data/corpus/``; writes ``data/derived/runs/VERSION.parquet`` (one row per
case, sorted by id) and ``metrics/rag/VERSION.json``.
"""

from __future__ import annotations

import sys

CASES, CORPUS = "data/cases.jsonl", "data/corpus"


def main(version: str) -> None:
    from assay.data.corpus import load_corpus
    from assay.data.cases import load_cases
    from assay.core.io import write_json, write_parquet
    from assay.core.params import load_section
    from assay.rag.runner import RagParams, results_table, run_version, version_metrics

    params = load_section("rag", RagParams)
    settings = params.version(version)
    corpus = load_corpus(CORPUS)
    cases = load_cases(CASES, corpus)
    results = run_version(version, settings, cases, corpus, params.k)
    metrics = version_metrics(version, params, results, cases, CASES, CORPUS)
    write_parquet(f"data/derived/runs/{version}.parquet", results_table(results),
                  {key: metrics[key] for key in ("assay_version", "inputs", "version", "settings", "k")})
    write_json(f"metrics/rag/{version}.json", metrics)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    if len(sys.argv) != 2:
        sys.exit("usage: python stages/evaluate.py VERSION")
    run_stage(f"evaluate@{sys.argv[1]}", lambda: main(sys.argv[1]))
