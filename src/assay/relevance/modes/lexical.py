"""Lexical mode: BM25 from ``bm25s`` (Lucene variant) with ``k1`` and ``b`` from params."""

from __future__ import annotations

import numpy as np

from assay.relevance.modes.text import content_words
from assay.relevance.params import LexicalParams


class Lexical:
    """BM25 over :func:`~assay.relevance.modes.text.content_words` tokens; no stemming (none is downloaded)."""

    label = "BM25 (bm25s)"

    def __init__(self, params: LexicalParams):
        self.params = params

    def fit(self, texts: list[str]) -> Lexical:
        import bm25s

        self.index = bm25s.BM25(k1=self.params.k1, b=self.params.b, method="lucene")
        self.index.index([content_words(t) for t in texts], show_progress=False)
        self.vocab = set(self.index.vocab_dict)
        return self

    def search(self, query: str) -> tuple[np.ndarray, set[int]]:
        """BM25 score of every document (0 where no query word occurs); no heuristic documents."""
        words = [w for w in content_words(query) if w in self.vocab]
        if not words:
            return np.zeros(self.index.scores["num_docs"], dtype=float), set()
        return self.index.get_scores(words).astype(float), set()
