"""Stage retrieve: run every retrieval mode of params ``relevance.modes`` over the relevance study's queries.

Usage: ``python stages/retrieve.py`` from the repository root. Reads params ``relevance``, the study
corpus and queries; writes, for each mode, ``data/derived/relevance/runs/MODE.trec`` (TREC run) and
``data/derived/relevance/runs/MODE.json`` (per-query latency, heuristic candidates, runtime manifest).

One stage runs all the modes: each depends on the whole ``relevance`` section (its manifest hashes
it), so they always re-ran together, and one stage costs DVC one lock entry and one params read
where five cost five. The corpus and queries are read and hashed once. The folder is the stage's
output, so DVC empties it first: a mode dropped from ``relevance.modes`` leaves no stale run behind.
"""

from __future__ import annotations

import sys


def main() -> None:
    from assay.artifacts.registry import RETRIEVAL_RUN, RETRIEVAL_RUNTIME
    from assay.artifacts.reports import RetrievalRuntime
    from assay.core.params import load_section
    from assay.artifacts.provenance import provenance
    from assay.relevance.manifest import build_manifest
    from assay.relevance.modes.runner import run_mode
    from assay.relevance.params import RelevanceParams
    from assay.relevance.corpus import load_documents, load_queries
    from assay.relevance.trec import write_run

    params = load_section("relevance", RelevanceParams)
    documents, queries = load_documents(params.corpus), load_queries(params.queries)
    manifest = build_manifest(params.corpus, params.queries, params.model_dump(mode="json"))
    for mode in params.modes:
        result = run_mode(mode, params, documents, queries)
        write_run(RETRIEVAL_RUN.path(mode=mode), result.run)
        head = provenance(corpus=manifest["corpus_sha256"], queries=manifest["queries_sha256"]).head()
        RETRIEVAL_RUNTIME.write(RetrievalRuntime(**head, mode=mode, label=result.label, manifest=manifest,
                                                 latency_kind=result.latency_kind, latency_ms=result.latency_ms,
                                                 heuristic=result.heuristic), mode=mode)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    if len(sys.argv) != 1:
        sys.exit("usage: python stages/retrieve.py (it runs every mode of params relevance.modes)")
    run_stage("retrieve", main)
