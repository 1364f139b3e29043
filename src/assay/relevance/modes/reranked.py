"""Reranked mode: a second stage over the first ``top_n`` documents of hybrid.

The default reranker is deterministic and needs no model: for a query with content words Q and a
document with content words D (see :func:`~assay.relevance.modes.text.content_words`),

    score = |Q & D| / |Q|  +  0.5 * (query word bigrams found in the document) / (query bigrams)
            + 0.001 * (top_n - hybrid_rank) / top_n

so coverage of the query's words decides, adjacent word pairs break near-ties, and the hybrid
order breaks exact ties. A cross-encoder plugs in as ``reranked.cross_encoder: "module:function"``
taking ``(query, [document texts])`` and returning one number per text (higher is better).
The reranked documents are placed above every other hybrid document, which keep their hybrid order.
"""

from __future__ import annotations

import numpy as np

from assay.core.plugins import PluginError, load_callable
from assay.relevance.modes.hybrid import Hybrid, ranks
from assay.relevance.modes.text import content_words
from assay.relevance.params import RelevanceParams


def _bigrams(words: list[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:], strict=False))


def overlap_score(query: str, document: str) -> float:
    """The default reranker's score without the hybrid tie-break (0 for a query with no content word).

    All three content words are in the document (coverage 1.0) and one of the query's two bigrams
    ("router replacement", not "replacement fee") is: 1.0 + 0.5 * 1/2.

    >>> overlap_score("router replacement fee", "The fee for router replacement is 400 BDT.")
    1.25
    """
    q, d = content_words(query), content_words(document)
    if not q:
        return 0.0
    coverage = len(set(q) & set(d)) / len(set(q))
    qb = _bigrams(q)
    return coverage + (0.5 * len(qb & _bigrams(d)) / len(qb) if qb else 0.0)


class Reranked:
    """Hybrid, then the first ``top_n`` reordered by the default reranker or a plug-in cross-encoder."""

    def __init__(self, params: RelevanceParams):
        self.params = params
        self.hybrid = Hybrid(params)
        spec = params.reranked.cross_encoder
        self.cross = load_callable(spec, "relevance.reranked.cross_encoder") if spec else None
        self.label = f"{'cross-encoder ' + spec if spec else 'word-overlap reranker'} over top {params.reranked.top_n} of hybrid"

    def fit(self, texts: list[str], ids: list[str]) -> Reranked:
        self.texts = texts
        self.hybrid.fit(texts, ids)
        return self

    def _cross(self, query: str, texts: list[str]) -> np.ndarray:
        if self.cross is None:
            raise PluginError("relevance.reranked.cross_encoder: no cross-encoder is configured")
        try:
            out = np.asarray(self.cross(query, texts), dtype=float)
        except Exception as error:
            raise PluginError(f"relevance.reranked.cross_encoder failed ({type(error).__name__}: {error})") from error
        if out.shape != (len(texts),) or not np.isfinite(out).all():
            raise PluginError(f"relevance.reranked.cross_encoder returned shape {out.shape} for {len(texts)} texts "
                              "(fix: return one finite number per text)")
        return out

    def search(self, query: str) -> tuple[np.ndarray, set[int]]:
        """Hybrid scores with the first ``top_n`` lifted above the rest in reranked order; no heuristic documents."""
        base, _ = self.hybrid.search(query)
        n = self.params.reranked.top_n
        rank = ranks(base, self.hybrid.ids_desc, n)
        top = np.flatnonzero(np.isfinite(rank))
        if top.size == 0:
            return base, set()
        texts = [self.texts[i] for i in top]
        if self.cross is not None:
            raw = self._cross(query, texts)
            spread = raw.max() - raw.min()
            second = (raw - raw.min()) / spread if spread > 0 else np.zeros_like(raw)
        else:
            second = np.array([overlap_score(query, t) for t in texts])
        second = second + 0.001 * (n - rank[top]) / n
        out = base.copy()
        out[top] = 2.0 + second  # above every RRF score (at most 2 / (k + 1) < 2)
        return out, set()
