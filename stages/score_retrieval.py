"""Stage score_retrieval: IR measures, answer rates, latency and paired comparisons of every mode.

Reads params ``relevance``, the qrels, the pre-registered thresholds, the study corpus and queries, and each mode's run and side
file; refuses modes whose runtime manifests differ. Writes ``metrics/relevance/<mode>.json`` and
``metrics/relevance/comparison.json`` (numbers only), ``reports/relevance/`` (per-query table,
provenance, summary) and one plot table per measure under ``reports/relevance/plots/``.
"""

from __future__ import annotations

def main() -> None:
    from assay.artifacts.registry import (MODE_COMPARISON, RETRIEVAL_MODE, RETRIEVAL_PER_QUERY, RETRIEVAL_PLOT,
                                          RETRIEVAL_PROVENANCE, RETRIEVAL_SUMMARY)
    from assay.artifacts.relevance import ModeComparison, ModeMetrics
    from assay.artifacts.reports import RetrievalProvenance
    from assay.core.io import sha256_file
    from assay.core.params import load_section
    from assay.artifacts.provenance import provenance
    from assay.relevance.params import RelevanceParams
    from assay.relevance.scoring import comparison_metrics, read_modes, score_modes, summary_markdown
    from assay.relevance.corpus import load_documents, load_queries
    from assay.relevance.thresholds import load_thresholds
    from assay.relevance.trec import read_qrels

    params = load_section("relevance", RelevanceParams)
    documents, queries = load_documents(params.corpus), load_queries(params.queries)
    qrels = read_qrels(params.qrels)
    synthetic = "synthetic" in params.qrels.lower()
    modes = read_modes(params.modes)
    thresholds = load_thresholds(params.thresholds)
    result = score_modes(modes, qrels, documents, queries, params, synthetic, thresholds)
    for mode, metrics in result.metrics.items():
        RETRIEVAL_MODE.write(ModeMetrics(**metrics), mode=mode)
    MODE_COMPARISON.write(ModeComparison(by_measure=comparison_metrics(result.comparison)))
    table = result.per_query
    RETRIEVAL_PER_QUERY.write(table.astype(object).where(table.notna(), "").itertuples(index=False, name=None),
                              header=tuple(table.columns))
    RETRIEVAL_PROVENANCE.write(RetrievalProvenance(
        **provenance(qrels=sha256_file(params.qrels), corpus=result.manifest["corpus_sha256"],
                     queries=result.manifest["queries_sha256"]).head(),
        manifest=result.manifest, labels=result.labels, heuristic_candidates=result.heuristic,
        synthetic_qrels=synthetic, qrels=params.qrels, missing_query_semantics=result.note,
        comparison=result.comparison))
    RETRIEVAL_SUMMARY.write(summary_markdown(result, params, synthetic, thresholds))
    for measure in params.measures:
        slug = measure.replace("@", "_at_")
        RETRIEVAL_PLOT.write([(mode, round(m["measures"][measure]["value"], 6)) for mode, m in sorted(result.metrics.items())],
                             header=("mode", measure), slug=slug)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("score_retrieval", main)
