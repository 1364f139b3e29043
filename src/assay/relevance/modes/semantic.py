"""Semantic mode: cosine similarity of dense vectors.

The offline default is latent semantic analysis: TF-IDF (scikit-learn, sublinear tf, English stop
words, the words of :func:`assay.data.tokens.words` in any script) reduced by ``TruncatedSVD``
to ``components`` dimensions with a fixed ``seed``, named "LSA over
TF-IDF" in every report. Components beyond the corpus's numerical rank (a small corpus of
near-duplicates can have fewer independent directions than ``components``) are dropped: their
directions are noise that differs between machines. Any embedding plugs in as ``semantic.embedding: "module:function"``, a
function from a list of texts to an ``(n, d)`` array; nothing downloads weights at run time, so a
model such as sentence-transformers must already be on disk (see the README).
"""

from __future__ import annotations

import numpy as np

from assay.core.plugins import PluginError, load_callable
from assay.relevance.params import SemanticParams

#: A component whose singular value is below this share of the largest lies outside the corpus's
#: numerical rank: its direction is arbitrary (it differs between BLAS kernels), so it is dropped.
RANK_TOLERANCE = 1e-8


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


class Semantic:
    """Dense retrieval; ``label`` says which vectors were used."""

    def __init__(self, params: SemanticParams):
        self.params = params
        self.embed = load_callable(params.embedding, "relevance.semantic.embedding") if params.embedding else None
        self.label = f"embedding {params.embedding}" if params.embedding else "LSA over TF-IDF"

    def _plugin(self, texts: list[str]) -> np.ndarray:
        if self.embed is None:
            raise PluginError("relevance.semantic.embedding: no embedding is configured (LSA is used without one)")
        try:
            out = np.asarray(self.embed(texts), dtype=float)
        except Exception as error:
            raise PluginError(f"relevance.semantic.embedding: {self.params.embedding} failed "
                              f"({type(error).__name__}: {error})") from error
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise PluginError(f"relevance.semantic.embedding: {self.params.embedding} returned shape {out.shape} "
                              f"for {len(texts)} texts (fix: return one vector per text, shape (n, d))")
        return out

    def fit(self, texts: list[str]) -> Semantic:
        if self.embed is not None:
            self.docs = _unit(self._plugin(texts))
            return self
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        from assay.data.tokens import words

        self.tfidf = TfidfVectorizer(sublinear_tf=True, stop_words="english", tokenizer=words, token_pattern=None,
                                     lowercase=False)
        matrix = self.tfidf.fit_transform(texts)
        components = min(self.params.components, matrix.shape[1] - 1, matrix.shape[0] - 1)
        self.svd = TruncatedSVD(n_components=components, random_state=self.params.seed, algorithm="randomized", n_iter=7)
        reduced = self.svd.fit_transform(matrix)
        values = self.svd.singular_values_
        self.keep = values > values.max(initial=0.0) * RANK_TOLERANCE
        self.docs = _unit(reduced[:, self.keep])
        return self

    def vector(self, query: str) -> np.ndarray:
        """The query's unit vector (zeros when it shares no word with the corpus, under LSA)."""
        if self.embed is not None:
            return _unit(self._plugin([query]))[0]
        return _unit(self.svd.transform(self.tfidf.transform([query]))[:, self.keep])[0]

    def search(self, query: str) -> tuple[np.ndarray, set[int]]:
        """Cosine similarity of every document to the query; no heuristic documents."""
        return self.docs @ self.vector(query), set()
