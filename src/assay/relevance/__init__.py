"""Retrieval-mode runs and IR evaluation: TREC qrels and runs, measures with trec_eval semantics,
the five retrieval modes (lexical, semantic, hybrid, reranked, graph-assisted), the runtime
manifest that binds them to one corpus, and the per-mode and paired statistics.
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.relevance.params": ["RelevanceParams"],
    "assay.relevance.trec": ["read_qrels", "read_run", "write_run"],
    "assay.relevance.measures": ["evaluate", "parse_measures"],
    "assay.relevance.modes.runner": ["run_mode"],
    "assay.relevance.scoring": ["score_modes"],
    "assay.relevance.thresholds": ["load_thresholds"],
    "assay.relevance.latency": ["time_modes", "upper_bound_size", "repetitions_for"],
    "assay.relevance.corpus": ["load_documents", "load_queries"],
    "assay.relevance.manifest": ["build_manifest"],
})
