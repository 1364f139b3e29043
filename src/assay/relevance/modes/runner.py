"""Running one mode over every query: a TREC run, per-query latency and the heuristic labels.

Latency is either ``measured`` (wall clock around each query's search, ``time.perf_counter``) or
``modelled``: a deterministic cost in milliseconds, so a committed pipeline stays byte-stable:

    lexical 1.0 + 0.002 per document with a BM25 score;   semantic 2.0 + 0.001 per document;
    hybrid = lexical + semantic + 0.2;   reranked = hybrid + 0.4 per reranked document;
    graph = hybrid + 0.01 per graph edge.

Modelled latencies show the relative cost of the modes, not a system's real speed; reports say
which kind they hold. ``benchmarks/bench_ir.py`` measures the real time, and the human study times
every mode with repetitions when its evidence is real (:mod:`assay.relevance.latency`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from assay.relevance.modes.graph import Graph
from assay.relevance.modes.hybrid import SCORE_DECIMALS, Hybrid, ranks
from assay.relevance.modes.lexical import Lexical
from assay.relevance.modes.reranked import Reranked
from assay.relevance.modes.semantic import Semantic
from assay.relevance.params import RelevanceParams
from assay.relevance.corpus import StudyDocument, StudyQuery
from assay.relevance.trec import Run, run_from_rankings


@dataclass(frozen=True)
class ModeRun:
    """One mode's output: the run, latency per query (ms), heuristic docnos per query, a readable label."""

    mode: str
    run: Run
    latency_ms: dict[str, float]
    latency_kind: str
    heuristic: dict[str, list[str]]
    label: str


#: A fitted searcher of one mode.
Searcher = Lexical | Semantic | Hybrid | Reranked | Graph


def build(mode: str, params: RelevanceParams, documents: list[StudyDocument]) -> Searcher:
    """The fitted searcher of ``mode``."""
    texts, ids = [d.text for d in documents], [d.doc_id for d in documents]
    if mode == "lexical":
        return Lexical(params.lexical).fit(texts)
    if mode == "semantic":
        return Semantic(params.semantic).fit(texts)
    if mode == "hybrid":
        return Hybrid(params).fit(texts, ids)
    if mode == "reranked":
        return Reranked(params).fit(texts, ids)
    return Graph(params).fit(documents)


def modelled_ms(mode: str, scores_lexical: int, n_docs: int, params: RelevanceParams, edges: int) -> float:
    """The deterministic latency model of the module docstring, rounded to microseconds."""
    lexical, semantic = 1.0 + 0.002 * scores_lexical, 2.0 + 0.001 * n_docs
    cost = {"lexical": lexical, "semantic": semantic}.get(mode, lexical + semantic + 0.2)
    if mode == "reranked":
        cost += 0.4 * min(params.reranked.top_n, n_docs)
    if mode == "graph":
        cost += 0.01 * edges
    return round(cost, 3)


def run_mode(mode: str, params: RelevanceParams, documents: list[StudyDocument], queries: list[StudyQuery],
             searcher: Searcher | None = None) -> ModeRun:
    """Run ``mode`` over ``queries``; each query keeps its first ``params.depth`` documents with a positive score.

    ``searcher`` is :func:`build`'s for ``mode`` when the caller has it already (the study times the
    same searchers, :mod:`assay.relevance.latency`). A query whose every score is <= 0 gets an empty
    ranking (and so no line in the TREC run).
    """
    searcher = searcher if searcher is not None else build(mode, params, documents)
    ids = np.asarray([d.doc_id for d in documents], dtype=object)
    ids_desc = np.argsort(np.argsort(ids)[::-1])
    lexical = Lexical(params.lexical).fit([d.text for d in documents]) if params.latency == "modelled" else None
    edges = searcher.graph.number_of_edges() if isinstance(searcher, Graph) else 0
    rankings, latency, heuristic = {}, {}, {}
    for q in queries:
        start = time.perf_counter()
        scores, graph_only = searcher.search(q.text)
        elapsed = (time.perf_counter() - start) * 1000
        rank = ranks(scores, ids_desc, params.depth)
        keep = np.flatnonzero(np.isfinite(rank))
        scores = np.round(scores, SCORE_DECIMALS)  # as ranked (see ranks)
        rankings[q.query_id] = [(ids[i], float(scores[i])) for i in keep]
        heuristic[q.query_id] = sorted(ids[i] for i in keep if i in graph_only)
        if params.latency == "measured":
            latency[q.query_id] = round(elapsed, 3)
        elif lexical is not None:  # latency "modelled"
            hits = int((lexical.search(q.text)[0] > 0).sum())
            latency[q.query_id] = modelled_ms(mode, hits, len(documents), params, edges)
    return ModeRun(mode, run_from_rankings(rankings, mode), latency, params.latency, heuristic, searcher.label)
