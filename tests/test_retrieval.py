"""Chunking, the Bangla-safe token pattern, TF-IDF scores and the deterministic top-k rule."""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.data.corpus import load_corpus
from assay.data.tokens import TOKEN_PATTERN
from assay.rag.retrieval import (
    Chunk,
    LexicalIndex,
    RetrievalError,
    block_rows,
    chunk_corpus,
    split_sentences,
    top_k_row,
)

from conftest import ROOT

CORPUS = Path(__file__).parent / "fixtures" / "tiny_corpus" / "corpus"


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(CORPUS)


def test_split_sentences_english_and_danda():
    assert split_sentences("Standard shipping takes 3 to 5 days. Express shipping arrives the next day.") == [
        "Standard shipping takes 3 to 5 days.", "Express shipping arrives the next day."]
    assert split_sentences("ডেলিভারি ফি ৫০ টাকা। ঢাকার বাইরে ফি ১২০ টাকা।") == ["ডেলিভারি ফি ৫০ টাকা।", "ঢাকার বাইরে ফি ১২০ টাকা।"]
    # a full stop inside a number or version does not end a sentence
    assert split_sentences("Version 2.1 costs 3.5% more. Why?") == ["Version 2.1 costs 3.5% more.", "Why?"]
    assert split_sentences("   ") == []


def test_chunking_paragraph_and_sentence(corpus):
    paragraphs = chunk_corpus(corpus, "paragraph")
    sentences = chunk_corpus(corpus, "sentence")
    # 4 documents: fees-bn 1 paragraph, returns 2, shipping 1, warranty 2 -> 6 paragraphs, sorted by doc id
    assert [(c.doc_id, c.index) for c in paragraphs] == [
        ("kb-fees-bn", 0), ("kb-returns", 0), ("kb-returns", 1), ("kb-shipping", 0), ("kb-warranty", 0), ("kb-warranty", 1)]
    # sentences: fees-bn splits on the danda (2), shipping splits in two (2), the rest are one sentence each
    assert len(sentences) == 8
    assert [c.text for c in sentences if c.doc_id == "kb-fees-bn"] == ["ডেলিভারি ফি ৫০ টাকা।", "ঢাকার বাইরে ফি ১২০ টাকা।"]


def test_unknown_chunking_and_empty_corpus(corpus):
    with pytest.raises(RetrievalError, match="chunking 'token' is not one of paragraph, sentence"):
        chunk_corpus(corpus, "token")
    with pytest.raises(RetrievalError, match="the corpus has no text to index"):
        LexicalIndex([])


def _hand_tfidf(docs: list[str], queries: list[str]) -> np.ndarray:
    """Independent TF-IDF cosine: raw counts x smooth idf ln((1+n)/(1+df)) + 1, rows L2-normalised."""
    tok = [Counter(re.findall(TOKEN_PATTERN, d.lower())) for d in docs]
    vocab = sorted(set().union(*tok))
    n = len(docs)
    idf = {w: math.log((1 + n) / (1 + sum(w in t for t in tok))) + 1 for w in vocab}

    def vec(counts):
        v = np.array([counts.get(w, 0) * idf[w] for w in vocab], dtype=float)
        norm = np.linalg.norm(v)
        return v / norm if norm else v

    dm = np.array([vec(t) for t in tok])
    qm = np.array([vec(Counter(w for w in re.findall(TOKEN_PATTERN, q.lower()) if w in idf)) for q in queries])
    return qm @ dm.T


def test_scores_match_a_hand_tfidf(corpus):
    chunks = chunk_corpus(corpus, "sentence")
    index = LexicalIndex(chunks)
    questions = ["ঢাকার বাইরে ডেলিভারি ফি কত?", "How many days do I have to return a bike?", "helmets"]
    ours = np.vstack([block for _, block in index.scores(questions)])
    np.testing.assert_allclose(ours, _hand_tfidf([c.text for c in chunks], questions), atol=1e-12)


def test_search_ranks_and_drops_zero_scores(corpus):
    index = LexicalIndex(chunk_corpus(corpus, "paragraph"))
    (hits, candidates), (none, zero) = index.search(["ঢাকার বাইরে ডেলিভারি ফি কত?", "Do you sell helmets?"], k=3)
    # only the Bangla paragraph shares a word with the Bangla question
    assert [(h.doc_id, h.index) for h in hits] == [("kb-fees-bn", 0)] and candidates == 1
    assert 0 < hits[0].score <= 1
    assert none == [] and zero == 0  # no shared word: nothing retrieved, not k zero-score chunks


def test_equal_chunks_tie_break_by_doc_id_then_index():
    chunks = [Chunk("a", 0, "red bike"), Chunk("a", 1, "red bike"), Chunk("b", 0, "red bike"), Chunk("c", 0, "blue car")]
    hits, _ = LexicalIndex(chunks).search(["red bike"], k=3)[0]
    assert [(h.doc_id, h.index) for h in hits] == [("a", 0), ("a", 1), ("b", 0)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9]), min_size=0, max_size=30), st.integers(1, 8))
def test_top_k_row_equals_a_full_sort(scores, k):
    row = np.array(scores, dtype=float)
    expected = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))[:k]
    assert top_k_row(row, k).tolist() == expected


def test_search_documents_equals_grouping_the_full_chunk_ranking():
    from assay.data.corpus import load_corpus
    from assay.data.cases import load_cases

    corpus = load_corpus(ROOT / "data" / "corpus")
    questions = [c.question for c in load_cases(ROOT / "data" / "cases.jsonl", corpus)]
    for chunking in ("paragraph", "sentence"):
        index = LexicalIndex(chunk_corpus(corpus, chunking))
        full = index.search(questions, k=len(index))
        for (docs, n_docs), (chunks, n_chunks) in zip(index.search_documents(questions, 3), full, strict=True):
            # the full chunk ranking, keeping each document's first (best) chunk, is the document ranking
            expected = list({h.doc_id: h for h in reversed(chunks)}.values())[::-1]
            expected = sorted(expected, key=lambda h: chunks.index(h))[:3]
            assert [(h.doc_id, h.index) for h in docs] == [(h.doc_id, h.index) for h in expected]
            assert n_docs == n_chunks


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10 ** 8), st.floats(1e-6, 1e4))
def test_block_rows_keep_a_dense_block_under_block_mb(chunks, block_mb):
    rows, limit = block_rows(chunks, block_mb), block_mb * 2 ** 20
    assert rows >= 1
    assert rows == 1 or rows * chunks * 8 <= limit  # one row is the floor, whatever it takes
    assert (rows + 1) * chunks * 8 > int(limit)  # and no more rows would fit


def test_every_block_size_gives_the_same_hits():
    from assay.data.cases import load_cases

    corpus = load_corpus(ROOT / "data" / "corpus")
    questions = [c.question for c in load_cases(ROOT / "data" / "cases.jsonl", corpus)]
    for chunking in ("paragraph", "sentence"):
        chunks = chunk_corpus(corpus, chunking)
        row_mb = 8 * len(chunks) / 2 ** 20  # the MiB of one row of scores
        indexes = [LexicalIndex(chunks, block_mb) for block_mb in (1e-9, 7 * row_mb, 64.0)]
        assert [i.block for i in indexes] == [1, 7, block_rows(len(chunks))] and indexes[-1].block > len(questions)
        for search in ("search", "search_documents"):
            first, *others = [getattr(index, search)(questions, 3) for index in indexes]
            assert all(other == first for other in others)  # Hit holds the float score: equal to the last bit
