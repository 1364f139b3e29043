"""Leakage: near-duplicate questions across the split and against other sources, by word-set Jaccard.

Texts become word sets: lower-cased tokens of letters and digits (Bangla vowel signs kept inside
words), minus a short list of English function words ("how", "do", "i", "to", "a", ...). Two texts
leak when ``|A & B| / |A | B| >= threshold``.

Every pair at or above the threshold is found, exactly: :func:`near_duplicates` uses prefix
filtering (tokens ordered rarest first; two sets with Jaccard >= t must share a token among the
first ``|x| - ceil(t |x|) + 1`` of each), a length filter, and sparse matrix products in blocks,
then computes the exact Jaccard of every candidate. Texts with no tokens match nothing.

What word overlap cannot see: a paraphrase ("send a bike back" vs "return a bike") scores low and
passes, and nothing here knows what a hosted model saw in training.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from assay.core.errors import InputError, Problem
from assay.core.io import read_jsonl

TOKEN = re.compile(r"[\w\u0980-\u09ff]+")
STOPWORDS = frozenset(
    "a an the to of in on at for and or is are was were be been do does did i my me you your we our it its "
    "how what when where which who can could will would with by from this that".split()
)
LABEL = re.compile(r"^\s*(q|a|question|answer)\s*[:.)]\s*", re.IGNORECASE)
LIMITATION = ("Word overlap finds copies and near-copies only. A paraphrase that shares few words "
              "(for example 'send a bike back' and 'return a bike') scores low and is not reported, "
              "and no word check can see what a hosted model saw in its training data.")


class LeakageParams(BaseModel):
    """params.yaml section ``leakage``."""

    model_config = ConfigDict(extra="forbid")
    threshold: float = Field(gt=0, le=1)


def words(text: str) -> frozenset[str]:
    """The word set of ``text`` used by Jaccard (see the module docstring)."""
    return frozenset(t for t in TOKEN.findall(text.lower()) if t not in STOPWORDS)


def jaccard(a: str, b: str) -> float:
    """Word-set Jaccard of two texts; ``nan`` when both have no words.

    >>> round(jaccard("How many days do I have to send a bike back?", "How long do I have to return a new bike?"), 2)
    0.22
    """
    x, y = words(a), words(b)
    union = len(x | y)
    return len(x & y) / union if union else math.nan


def _matrix(sets: list[frozenset[str]], vocab: dict[str, int]):
    from scipy import sparse

    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(s) for s in sets])
    indices = np.fromiter((vocab[t] for s in sets for t in s), dtype=np.int64, count=int(indptr[-1]))
    data = np.ones(indices.size, dtype=np.float32)
    m = sparse.csr_matrix((data, indices, indptr), shape=(len(sets), len(vocab)))
    m.sort_indices()
    return m


def _prefix_matrix(m, rank: np.ndarray, threshold: float):
    """Keep, in each row, the ``|x| - ceil(t|x|) + 1`` tokens with the lowest global rank."""
    from scipy import sparse

    rows, cols = [], []
    for i in range(m.shape[0]):
        toks = m.indices[m.indptr[i]:m.indptr[i + 1]]
        size = toks.size
        if size == 0:
            continue
        keep = size - math.ceil(threshold * size - 1e-9) + 1
        chosen = toks[np.argsort(rank[toks], kind="stable")[:keep]]
        rows.append(np.full(chosen.size, i))
        cols.append(chosen)
    r = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    return sparse.csr_matrix((np.ones(r.size, dtype=np.float32), (r, c)), shape=m.shape)


def near_duplicates(left: Sequence[str], right: Sequence[str], threshold: float,
                    block: int = 4096) -> list[tuple[int, int, float]]:
    """Every ``(i, j, jaccard)`` with ``jaccard(left[i], right[j]) >= threshold``, sorted by (i, j).

    Exact (no sampling): prefix filtering cannot drop a qualifying pair. Cost grows with the number
    of candidate pairs sharing a rare token, not with ``len(left) * len(right)``.

    Raises:
        ValueError: when ``threshold`` is not in (0, 1].
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"near_duplicates: threshold {threshold} must be in (0, 1]")
    lsets = [words(t) for t in left]
    rsets = [words(t) for t in right]
    vocab: dict[str, int] = {}
    for s in (*lsets, *rsets):
        for t in s:
            vocab.setdefault(t, len(vocab))
    if not vocab:
        return []
    L, R = _matrix(lsets, vocab), _matrix(rsets, vocab)
    df = np.asarray(L.sum(axis=0)).ravel() + np.asarray(R.sum(axis=0)).ravel()
    rank = np.empty(len(vocab), dtype=np.int64)
    rank[np.lexsort((np.arange(len(vocab)), df))] = np.arange(len(vocab))
    PL, PRt = _prefix_matrix(L, rank, threshold), _prefix_matrix(R, rank, threshold).T.tocsr()
    lsize = np.diff(L.indptr)
    rsize = np.diff(R.indptr)
    hits: list[tuple[int, int, float]] = []
    for start in range(0, L.shape[0], block):
        cand = (PL[start:start + block] @ PRt).tocoo()
        if cand.nnz == 0:
            continue
        i, j = cand.row + start, cand.col
        a, b = lsize[i], rsize[j]
        ok = (b >= threshold * a - 1e-9) & (a >= threshold * b - 1e-9)
        i, j, a, b = i[ok], j[ok], a[ok], b[ok]
        if i.size == 0:
            continue
        inter = np.asarray(L[i].multiply(R[j]).sum(axis=1)).ravel()
        score = inter / (a + b - inter)
        keep = score >= threshold - 1e-12
        hits.extend(zip(i[keep].tolist(), j[keep].tolist(), score[keep].tolist()))
    hits.sort()
    return hits


def load_source(path: Path) -> list[str]:
    """The texts of one leakage source.

    ``.jsonl``: the ``question`` field of every line (a line without it is an error). Any other file:
    every non-empty line, with a leading ``Q:``/``A:``/``Question:`` label removed.
    """
    if path.suffix == ".jsonl":
        texts, problems = [], []
        for line, row in read_jsonl(path):
            q = row.get("question")
            if not isinstance(q, str) or not q.strip():
                problems.append(Problem(str(path), line, "question", f"{q!r} is not a non-empty string",
                                        "give every line a question"))
            else:
                texts.append(q)
        if problems:
            raise InputError(problems)
        return texts
    return [LABEL.sub("", ln).strip() for ln in path.read_text(encoding="utf-8").splitlines() if LABEL.sub("", ln).strip()]


def load_sources(folder: str | Path) -> dict[str, list[str]]:
    """Every file in ``folder`` as a named source (name = file name without extension), sorted by name."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError([Problem(str(folder), None, None, "sources folder not found", "create it or set inputs.sources in params.yaml")])
    return {f.stem: load_source(f) for f in sorted(root.iterdir()) if f.is_file() and not f.name.startswith(".")}


def leakage_report(cases: Sequence, sides: dict[str, str], sources: dict[str, list[str]], threshold: float) -> dict:
    """Near-duplicates across the split and between any case and each source.

    Returns ``{"dev_holdout": [{"dev", "holdout", "score"}], "sources": [{"case", "source", "line",
    "score"}], "threshold", "limitation"}``, sorted by ids. ``line`` is the 1-based unit index within
    the source (for JSONL, the n-th question).
    """
    dev = [c for c in cases if sides[c.id] == "dev"]
    hold = [c for c in cases if sides[c.id] == "holdout"]
    cross = [{"dev": dev[i].id, "holdout": hold[j].id, "score": round(s, 4)}
             for i, j, s in near_duplicates([c.question for c in dev], [c.question for c in hold], threshold)]
    src = []
    for name, texts in sources.items():
        for i, j, s in near_duplicates([c.question for c in cases], texts, threshold):
            src.append({"case": cases[i].id, "source": name, "line": j + 1, "score": round(s, 4)})
    cross.sort(key=lambda r: (r["dev"], r["holdout"]))
    src.sort(key=lambda r: (r["case"], r["source"], r["line"]))
    return {"dev_holdout": cross, "sources": src, "threshold": threshold, "limitation": LIMITATION}
