"""Stage retrieve@MODE: run one retrieval mode over the relevance study's queries.

Usage: ``python stages/retrieve.py MODE`` from the repository root. Reads params ``relevance``,
the study corpus and queries; writes ``data/derived/relevance/runs/MODE.trec`` (TREC run) and
``data/derived/relevance/runs/MODE.json`` (per-query latency, heuristic candidates, runtime manifest).
"""

from __future__ import annotations

import sys


def main(mode: str) -> None:
    from assay.core.errors import InputError, Problem
    from assay.artifacts.registry import RETRIEVAL_RUN, RETRIEVAL_RUNTIME
    from assay.artifacts.reports import RetrievalRuntime
    from assay.core.params import load_section
    from assay.core.provenance import provenance
    from assay.relevance.manifest import build_manifest
    from assay.relevance.modes.runner import run_mode
    from assay.relevance.params import RelevanceParams
    from assay.relevance.corpus import load_documents, load_queries
    from assay.relevance.trec import write_run

    params = load_section("relevance", RelevanceParams)
    if mode not in params.modes:
        raise InputError([Problem("params.yaml", None, "relevance.modes", f"{mode!r} is not listed",
                                  f"use one of {', '.join(params.modes)}")])
    documents, queries = load_documents(params.corpus), load_queries(params.queries)
    result = run_mode(mode, params, documents, queries)
    manifest = build_manifest(params.corpus, params.queries, params.model_dump(mode="json"))
    write_run(RETRIEVAL_RUN.path(mode=mode), result.run)
    RETRIEVAL_RUNTIME.write(RetrievalRuntime(**provenance(corpus=manifest["corpus_sha256"], queries=manifest["queries_sha256"]),
                                             mode=mode, label=result.label, manifest=manifest,
                                             latency_kind=result.latency_kind, latency_ms=result.latency_ms,
                                             heuristic=result.heuristic), mode=mode)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    if len(sys.argv) != 2:
        sys.exit("usage: python stages/retrieve.py MODE")
    run_stage(f"retrieve@{sys.argv[1]}", lambda: main(sys.argv[1]))
