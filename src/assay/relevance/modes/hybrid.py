"""Hybrid mode: reciprocal rank fusion (RRF) of the lexical and semantic rankings.

``score(d) = sum over the two rankings of 1 / (k + rank(d))`` with 1-based ranks in trec_eval order
(score descending, then document id descending) over each ranking's first ``depth`` documents; a
document outside a ranking's first ``depth`` gets nothing from it.
"""

from __future__ import annotations

import numpy as np

from assay.relevance.modes.lexical import Lexical
from assay.relevance.modes.semantic import Semantic
from assay.relevance.params import RelevanceParams


#: Decimals kept of a score before ranking and in a written run: far above floating-point noise, far
#: below any difference a ranking should rest on.
SCORE_DECIMALS = 6


def ranks(scores: np.ndarray, ids_desc: np.ndarray, depth: int) -> np.ndarray:
    """1-based rank of each document (``inf`` beyond ``depth`` or with a score <= 0).

    Scores are compared (and the sign tested) rounded to :data:`SCORE_DECIMALS` decimals, and ``ids_desc`` (each document's
    position in descending document-id order) breaks ties: two BLAS kernels that differ in the last
    bits of a score (about 1e-15) then give the same ranking.
    """
    scores = np.round(scores, SCORE_DECIMALS)
    order = np.lexsort((ids_desc, -scores))
    out = np.full(scores.size, np.inf)
    top = order[:depth]
    out[top] = np.arange(1, top.size + 1)
    out[scores <= 0] = np.inf
    return out


def rrf(rank_lists: list[np.ndarray], k: int) -> np.ndarray:
    """Reciprocal rank fusion of rank arrays (``inf`` contributes 0)."""
    total = np.zeros(rank_lists[0].shape if rank_lists else 0)
    for r in rank_lists:  # in list order, so the sums are the bits they always were (0.0 + x is x)
        total = total + np.where(np.isfinite(r), 1.0 / (k + r), 0.0)
    return total


class Hybrid:
    """RRF of :class:`Lexical` and :class:`Semantic`."""

    def __init__(self, params: RelevanceParams):
        self.params = params
        self.lexical, self.semantic = Lexical(params.lexical), Semantic(params.semantic)
        self.label = f"RRF(k={params.hybrid.k}) of BM25 and {self.semantic.label}"

    def fit(self, texts: list[str], ids: list[str]) -> Hybrid:
        self.lexical.fit(texts)
        self.semantic.fit(texts)
        self.ids_desc = np.argsort(np.argsort(np.asarray(ids, dtype=object))[::-1])
        return self

    def search(self, query: str) -> tuple[np.ndarray, set[int]]:
        """RRF score of every document; no heuristic documents."""
        lex, _ = self.lexical.search(query)
        sem, _ = self.semantic.search(query)
        depth = self.params.depth
        return rrf([ranks(lex, self.ids_desc, depth), ranks(sem, self.ids_desc, depth)], self.params.hybrid.k), set()
