"""The optional paraphrase detector: what word-set overlap cannot see, reported apart from it.

A detector is a plug-in named ``"module:function"`` (like a RAG system's ``callable``)::

    def detector(cases: Sequence[str], threshold: float) -> Callable[[Sequence[str]], list[tuple[int, int, float]]]

It is built once from the case questions and returns a matcher; the matcher is called on each chunk
of texts and returns every ``(case_index, text_index, score)`` with ``score >= threshold``. Scores
must not depend on which other texts share the chunk, so results do not depend on the chunk size
or the engine. The matcher is sent to Dask workers, so it must pickle.

The built-in :func:`char_ngrams` scores the cosine of character 3- to 5-gram TF-IDF vectors
(scikit-learn; n-grams hashed into 2^20 buckets, IDF from the cases, so an n-gram no case has gets
the highest weight and still counts in a text's length). It sees rewordings that keep word stems
("refunded" / "refund", "deliveries" / "delivery") and spelling variants, not synonyms ("send back"
/ "return"); that needs an embedding model, which a plug-in can bring. It compares every case with
every text: cost grows with ``cases x lines`` (blocks keep memory bounded), so point it at
few-shot prompts and earlier test sets rather than crawls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from assay.core.plugins import load_callable

BUILTIN = "assay.data.leakage.paraphrase:char_ngrams"
CELLS = 4_000_000  # case x text scores held at once

Matcher = Callable[[Sequence[str]], list[tuple[int, int, float]]]


def load_detector(spec: str) -> Callable[[Sequence[str], float], Matcher]:
    """Import the detector ``"module:function"`` (:func:`assay.core.plugins.load_callable`).

    Raises:
        PluginError: a malformed spec, a module that does not import, a missing or non-callable
            name; the message names ``leakage.paraphrase.detector`` and the fix.
    """
    return load_callable(spec, "leakage.paraphrase.detector")


class _CharNgramMatcher:
    """Picklable matcher of :func:`char_ngrams` (a closure would not pickle with plain pickle)."""

    def __init__(self, cases: Sequence[str], threshold: float):
        from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer

        self.threshold = threshold
        self.hasher = HashingVectorizer(analyzer="char_wb", ngram_range=(3, 5), n_features=2**20,
                                        alternate_sign=False, norm=None, lowercase=True)
        counts = self.hasher.transform(list(cases))
        self.tfidf = TfidfTransformer(sublinear_tf=True).fit(counts)
        self.cases = self.tfidf.transform(counts).tocsr()

    def __call__(self, texts: Sequence[str]) -> list[tuple[int, int, float]]:
        n = self.cases.shape[0]
        if n == 0 or not texts:
            return []
        vectors = self.tfidf.transform(self.hasher.transform(list(texts))).tocsr()
        step = max(1, CELLS // n)
        hits: list[tuple[int, int, float]] = []
        for start in range(0, vectors.shape[0], step):
            scores = (self.cases @ vectors[start:start + step].T).toarray()
            i, j = np.nonzero(scores >= self.threshold - 1e-12)
            hits.extend(zip(i.tolist(), (j + start).tolist(), scores[i, j].tolist(), strict=True))
        hits.sort()
        return hits


def char_ngrams(cases: Sequence[str], threshold: float) -> Matcher:
    """Cosine of character 3-5-gram TF-IDF vectors (see the module docstring); the built-in detector.

    >>> match = char_ngrams(["Can I get my money refunded?", "Is delivery free?"], 0.5)
    >>> [(i, j) for i, j, _ in match(["can i get a refund of my money", "opening hours"])]
    [(0, 0)]
    """
    return _CharNgramMatcher(cases, threshold)
