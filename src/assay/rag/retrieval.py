"""Chunking the corpus and a lexical (TF-IDF) retriever over the chunks.

Chunking is ``"paragraph"`` (:meth:`assay.data.corpus.Document.paragraphs`) or ``"sentence"`` (each
paragraph split after ``.``, ``?``, ``!``, the danda ``।`` or Arabic ``؟`` ``۔`` when whitespace
follows, and after Chinese and Japanese ``。`` ``！`` ``？`` whether or not it does). Every
chunk keeps its document id and its position in that document.

The retriever is scikit-learn's ``TfidfVectorizer`` fitted on the chunks, with the tokens of
:func:`assay.data.tokens.tokens` in :func:`~assay.data.tokens.normal_form` (it keeps Bangla and
Hindi words whole, where the default pattern would cut ``বিক্রি`` into pieces, and indexes Chinese,
Japanese and Thai by character bigrams), and cosine similarity (the rows are L2-normalised, so a dot product).

Ranking rule (deterministic): score descending, then document id, then chunk index. Chunks that
share no term with the question score 0 and are never returned, so a question with no known word
retrieves nothing (fewer than ``k`` hits is normal).

Scale: queries are scored in blocks with one sparse matrix product per block; the top ``k`` of each
row comes from ``np.argpartition`` with an exact tie rule at the cut, so 10,000 questions against
tens of thousands of chunks take seconds. A block's dense scores (rows x chunks, float64) stay
under ``block_mb`` MiB (``rag.block_mb``, default :data:`BLOCK_MB`): the rows per block follow from
the chunk count (:func:`block_rows`). Each row's scores are computed on their own, so the block
size changes time and memory, never a score or a ranking.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from assay.data.corpus import Document
from assay.data.tokens import normal_form, tokens
from assay.core.errors import AssayError

Chunking = Literal["paragraph", "sentence"]
CHUNKINGS = ("paragraph", "sentence")

# a full stop, ? or ! (Latin, the danda, Arabic ؟ and ۔) before blanks; Chinese and Japanese 。！？ need none
_SENTENCE_END = re.compile(r"(?<=[.?!\u0964\u061f\u06d4])\s+|(?<=[\u3002\uff01\uff1f])\s*")

#: MiB one dense block of scores may take (``rag.block_mb``): 69 questions at a time against 120,000
#: chunks (10,000 documents), where 512 at a time took 491 MB and half the CPU went to the kernel
BLOCK_MB = 64.0


class RetrievalError(AssayError):
    """The retriever cannot be built (an empty corpus, an unknown chunking)."""


@dataclass(frozen=True)
class Chunk:
    """A piece of one document: its id, its position among that document's chunks, and its text."""

    doc_id: str
    index: int
    text: str


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk with its cosine score in [0, 1]."""

    doc_id: str
    index: int
    text: str
    score: float


def split_sentences(paragraph: str) -> list[str]:
    """Split a paragraph after ``.``, ``?``, ``!`` or ``।`` followed by whitespace; empty pieces dropped.

    A full stop not followed by whitespace (``v2.1``, ``3.5%``) does not split. Abbreviations such
    as ``e.g. this`` do split; the demo corpus avoids them.

    >>> split_sentences("Returns take 30 days. Is v2.1 out? Yes! ফেরত ৩০ দিন। শেষ")
    ['Returns take 30 days.', 'Is v2.1 out?', 'Yes!', 'ফেরত ৩০ দিন।', 'শেষ']
    """
    return [s.strip() for s in _SENTENCE_END.split(paragraph) if s.strip()]


def chunk_corpus(corpus: Mapping[str, Document], chunking: Chunking) -> list[Chunk]:
    """All chunks of the corpus, ordered by document id and then position (the tie-break order).

    Raises:
        RetrievalError: ``chunking`` is not one of ``paragraph``, ``sentence``.
    """
    if chunking not in CHUNKINGS:
        raise RetrievalError(f"chunk_corpus: chunking {chunking!r} is not one of {', '.join(CHUNKINGS)}")
    chunks: list[Chunk] = []
    for doc_id in sorted(corpus):
        pieces = corpus[doc_id].paragraphs()
        if chunking == "sentence":
            pieces = [s for p in pieces for s in split_sentences(p)]
        chunks.extend(Chunk(doc_id, i, text) for i, text in enumerate(pieces))
    return chunks


def top_k_row(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` best positive scores, best first, ties broken by lower position.

    ``np.argpartition`` finds the cut value; every position above the cut is kept and positions at
    the cut are filled in ascending order, so the result never depends on the partition's internal
    order. Zero (and negative) scores are never returned.

    >>> top_k_row(np.array([0.5, 0.9, 0.5, 0.0, 0.5]), 3).tolist()
    [1, 0, 2]
    """
    n = scores.shape[0]
    kk = min(k, n)
    if kk == 0:
        return np.empty(0, dtype=np.int64)
    cut = scores[np.argpartition(-scores, kk - 1)[kk - 1]]
    above = np.flatnonzero(scores > cut)
    at_cut = np.flatnonzero(scores == cut)[: kk - above.size]
    chosen = np.concatenate([above, at_cut])
    chosen = chosen[scores[chosen] > 0]
    return chosen[np.lexsort((chosen, -scores[chosen]))]


def block_rows(chunks: int, block_mb: float = BLOCK_MB) -> int:
    """Questions scored per sparse product so that their dense scores (float64) fit in ``block_mb`` MiB.

    At least 1: a corpus so large that one row exceeds ``block_mb`` is scored a row at a time (that
    row's ``8 x chunks`` bytes are then the floor).

    >>> block_rows(120_000), block_rows(330), block_rows(10 ** 9), block_rows(1000, block_mb=0.001)
    (69, 25420, 1, 1)
    """
    return max(1, int(block_mb * 2 ** 20) // (8 * max(chunks, 1)))


class LexicalIndex:
    """TF-IDF index over chunks; :meth:`search` returns ranked :class:`Hit` lists for many questions.

    Args:
        chunks: the chunks to index, in tie-break order (as from :func:`chunk_corpus`).
        block_mb: the MiB one dense block of scores may take (see :func:`block_rows`); any
            positive value gives the same results.

    Raises:
        RetrievalError: no chunks, or no chunk holds a single word.
    """

    def __init__(self, chunks: Sequence[Chunk], block_mb: float = BLOCK_MB):
        from sklearn.feature_extraction.text import TfidfVectorizer

        if not chunks:
            raise RetrievalError("LexicalIndex: the corpus has no text to index (fix: add documents with paragraphs)")
        self.chunks = list(chunks)
        self.block = block_rows(len(self.chunks), block_mb)
        doc_ids = [c.doc_id for c in self.chunks]
        #: first chunk position of each document's run (chunks come grouped by document)
        self.doc_starts = np.flatnonzero([i == 0 or doc_ids[i] != doc_ids[i - 1] for i in range(len(doc_ids))])
        self.vectorizer = TfidfVectorizer(preprocessor=normal_form, tokenizer=tokens, token_pattern=None,
                                          lowercase=False, dtype=np.float64)
        try:
            self.matrix_t = self.vectorizer.fit_transform([c.text for c in self.chunks]).T.tocsr()
        except ValueError as error:  # scikit-learn: "empty vocabulary"
            raise RetrievalError(f"LexicalIndex: no words to index ({error})") from None

    def __len__(self) -> int:
        return len(self.chunks)

    def scores(self, questions: Sequence[str]) -> Iterator[tuple[int, np.ndarray]]:
        """Yield ``(start, dense score block)`` for the questions, :func:`block_rows` rows at a time."""
        queries = self.vectorizer.transform(list(questions)).tocsr()
        for start in range(0, queries.shape[0], self.block):
            yield start, (queries[start:start + self.block] @ self.matrix_t).toarray()

    def search(self, questions: Sequence[str], k: int) -> list[tuple[list[Hit], int]]:
        """The top ``k`` hits of every question and how many chunks scored above zero.

        Returns:
            One ``(hits, candidates)`` pair per question, in input order. ``hits`` has at most
            ``k`` entries (fewer when fewer chunks share a word with the question); ``candidates``
            counts the chunks with a positive score (what an inverted index would have scored).
        """
        out: list[tuple[list[Hit], int]] = []
        for _, block in self.scores(questions):
            for row in block:
                positions = top_k_row(row, k)
                hits = [Hit(self.chunks[p].doc_id, self.chunks[p].index, self.chunks[p].text, float(row[p]))
                        for p in positions]
                out.append((hits, int(np.count_nonzero(row > 0))))
        return out

    def search_documents(self, questions: Sequence[str], k: int) -> list[tuple[list[Hit], int]]:
        """The top ``k`` *documents* of every question, each represented by its best chunk.

        A document scores its best chunk's score (max-passage ranking); documents are ranked by
        that score, ties by document order, and within a document the first best chunk wins. So the
        hits name ``k`` distinct documents (fewer when fewer share a word with the question), and
        the gap between the first two hits is the gap between the two best *sources*, not between
        two sentences of one page. ``candidates`` is as in :meth:`search`.

        Raises:
            RetrievalError: when the chunks are not grouped by document (build them with
                :func:`chunk_corpus`).
        """
        ends = np.append(self.doc_starts[1:], len(self.chunks))
        if len({self.chunks[i].doc_id for i in self.doc_starts}) != len(self.doc_starts):
            raise RetrievalError("search_documents: chunks of one document are not contiguous (fix: use chunk_corpus)")
        out: list[tuple[list[Hit], int]] = []
        for _, block in self.scores(questions):
            best = np.maximum.reduceat(block, self.doc_starts, axis=1)
            for row, doc_scores in zip(block, best, strict=True):
                hits = []
                for d in top_k_row(doc_scores, k):
                    start, end = self.doc_starts[d], ends[d]
                    p = start + int(np.argmax(row[start:end]))
                    c = self.chunks[p]
                    hits.append(Hit(c.doc_id, c.index, c.text, float(row[p])))
                out.append((hits, int(np.count_nonzero(row > 0))))
        return out
