"""Retrieval-mode runs and IR evaluation: TREC qrels and runs, measures with trec_eval semantics,
the five retrieval modes (lexical, semantic, hybrid, reranked, graph-assisted), the runtime
manifest that binds them to one corpus, and the per-mode and paired statistics.

May import: ``assay.core``, ``assay.stats``, ``assay.data``.
"""
