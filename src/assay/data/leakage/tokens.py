"""Word sets: what the exact leakage detector compares, and their encoding as sorted token-id arrays.

A text's word set is its tokens (:func:`assay.data.tokens.tokens`: letters and digits of any script,
combining marks kept inside words, character bigrams for Chinese, Japanese and Thai) in
:func:`~assay.data.tokens.normal_form` (NFKC, case-folded), minus a short list of English function
words ("how", "do", "i", "to", "a", ...; the source lines carry no language, and other languages
get no stop words, :mod:`assay.data.stopwords`). Two texts leak when ``|A & B| / |A | B| >= threshold``.

:func:`encode` turns many texts into one compressed array (CSR: ``indptr``, ``ids``) in a few
vectorised passes, which is what lets the join run on millions of lines: one regular-expression
pass over the texts joined by newlines, distinct tokens per row by ``numpy.unique``, ids looked up
once per distinct token. It gives exactly :func:`words` for every row (a test checks this).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from assay.data.tokens import TOKEN_PATTERN, UNSPACED, normal_form, split_run, tokens

_TOKEN_OR_NEWLINE = re.compile(TOKEN_PATTERN + r"|\n")
STOPWORDS = frozenset(
    [
        "a", "an", "the", "to", "of", "in", "on", "at", "for", "and", "or", "is", "are", "was", "were", "be",
        "been", "do", "does", "did", "i", "my", "me", "you", "your", "we", "our", "it", "its", "how", "what",
        "when", "where", "which", "who", "can", "could", "will", "would", "with", "by", "from", "this", "that",
    ]
)
_UNKNOWN = -1


def words(text: str) -> frozenset[str]:
    """The word set of ``text`` used by Jaccard (see the module docstring).

    >>> sorted(words("How do I return a router?"))
    ['return', 'router']
    >>> sorted(words("¿Cómo devuelvo el router?"))
    ['cómo', 'devuelvo', 'el', 'router']
    """
    return frozenset(set(tokens(normal_form(text))) - STOPWORDS)


def jaccard(a: str, b: str) -> float:
    """Word-set Jaccard of two texts; ``nan`` when both have no words.

    >>> round(jaccard("How many days do I have to send the router back?", "How long do I have to return a new router?"), 2)
    0.22
    """
    x, y = words(a), words(b)
    union = len(x | y)
    return len(x & y) / union if union else math.nan


@dataclass(frozen=True)
class Encoded:
    """Word sets of ``n`` texts as token ids.

    Attributes:
        indptr: ``int64[n + 1]``; row ``r``'s known ids are ``ids[indptr[r]:indptr[r + 1]]``.
        ids: ``int64``, ascending within each row: the ids of the row's words found in the vocabulary.
        sizes: ``int64[n]``, the full word-set size of each row, words outside the vocabulary included.
    """

    indptr: np.ndarray
    ids: np.ndarray
    sizes: np.ndarray

    @property
    def unknown(self) -> np.ndarray:
        """Per row, how many of its words are not in the vocabulary (they can match nothing)."""
        return self.sizes - np.diff(self.indptr)


def _distinct(texts: Sequence[str]) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Distinct non-stop-word tokens per text: ``(rows, strings, codes)``.

    ``strings[codes[k]]`` is a word of text ``rows[k]``; pairs are sorted by ``(row, code)`` and unique.
    """
    joined = "\n".join(texts)
    if joined.count("\n") != max(len(texts) - 1, 0):
        # a text with its own newline: a newline is a non-word character like a space, so this
        # changes no word set and keeps one text per line
        joined = "\n".join(t.replace("\n", " ") for t in texts)
    joined = normal_form(joined)
    found = _TOKEN_OR_NEWLINE.findall(joined)
    if UNSPACED.search(joined) is not None:  # Chinese, Japanese, Thai...: their runs become bigrams
        found = [t for run in found for t in (split_run(run) if run != "\n" else (run,))]
    first: dict[str, int] = {}
    sparse = np.fromiter(map(first.setdefault, found, itertools.count()), dtype=np.int64, count=len(found))
    strings = list(first)
    starts = np.fromiter(first.values(), dtype=np.int64, count=len(first))  # ascending: first occurrence
    kind = np.zeros(len(strings), dtype=np.int8)
    for k, s in enumerate(strings):
        if s == "\n":
            kind[k] = 1
        elif s in STOPWORDS:
            kind[k] = 2
    dense = np.searchsorted(starts, sparse)
    token_kind = kind[dense]
    rows = np.cumsum(token_kind == 1)
    word = token_kind == 0
    key = np.sort(rows[word] * max(len(strings), 1) + dense[word])
    key = key[np.r_[True, key[1:] != key[:-1]]] if key.size else key  # np.unique, minus its hash pass
    return key // max(len(strings), 1), strings, key % max(len(strings), 1)


def build_vocabulary(texts: Sequence[str]) -> tuple[dict[str, int], Encoded]:
    """The vocabulary of ``texts`` and their encoding against it.

    Ids follow ascending document frequency (ties by the word itself), the global order that makes
    prefix filtering effective: a row's first ids are its rarest words. Deterministic for a given
    multiset of texts, whatever their order.
    """
    rows, strings, codes = _distinct(texts)
    freq = np.bincount(codes, minlength=len(strings))
    order = sorted(np.flatnonzero(freq).tolist(), key=lambda k: (freq[k], strings[k]))  # words only
    rank = np.empty(len(strings), dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    vocab = {strings[k]: i for i, k in enumerate(order)}
    return vocab, _pack(len(texts), rows, rank[codes], np.bincount(rows, minlength=len(texts)))


def encode(texts: Sequence[str], vocab: Mapping[str, int]) -> Encoded:
    """The word sets of ``texts`` as ids of ``vocab``; words outside it only count in ``sizes``."""
    rows, strings, codes = _distinct(texts)
    lookup = np.fromiter(map(vocab.get, strings, itertools.repeat(_UNKNOWN)), dtype=np.int64, count=len(strings))
    ids = lookup[codes]
    known = ids >= 0
    return _pack(len(texts), rows[known], ids[known], np.bincount(rows, minlength=len(texts)))


def _pack(n: int, rows: np.ndarray, ids: np.ndarray, sizes: np.ndarray) -> Encoded:
    # rows arrive sorted; one argsort of a combined key orders ids within each row (lexsort is slower)
    order = np.argsort(rows * (int(ids.max(initial=0)) + 1) + ids, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return Encoded(indptr, ids[order].astype(np.int64), sizes.astype(np.int64))
