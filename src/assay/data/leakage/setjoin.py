"""Exact set-similarity join on word sets: every pair with Jaccard >= t, none below, sub-quadratic.

The filters are those of AllPairs / PPJoin (Bayardo et al. 2007; Xiao et al. 2008) and the
multi-token prefix of AdaptJoin (Wang, Li and Feng 2012), written as whole-array numpy passes
instead of a loop per record:

* **Global order.** Token ids ascend with document frequency in the indexed side
  (:func:`~assay.data.leakage.tokens.build_vocabulary`). A probe's words that the index never saw
  count first: they are rarer than anything indexed, and can match nothing.
* **Length filter.** ``J(x, y) >= t`` needs ``t |y| <= |x| <= |y| / t``.
* **Prefix and positional filter.** A pair needs overlap ``a = ceil(t (|x| + |y|) / (1 + t))``, so
  its ``l`` rarest shared tokens lie among the first ``|x| - a + l`` tokens of ``x`` and the first
  ``|y| - a + l`` of ``y``. Level ``l = 2`` indexes token *pairs* of that prefix, whose lists are
  far shorter than single tokens' when the vocabulary is small; it serves every probe whose
  possible partners are short enough to give few pairs (:data:`PAIR_CAP`) and must share at least
  two words. Level ``l = 1`` (single tokens) serves the rest. Index entries are keyed
  ``(signature, |x|, position)``, so the length and positional filters cut the candidate lists
  with ``searchsorted`` before anything is materialised.
* **Overlap bound** (level 1). With ``c`` shared prefix tokens, the last at positions ``i`` and
  ``j``, the overlap is at most ``c + min(|x| - i - 1, |y| - j - 1)``; a pair below ``a`` is dropped.
* **Verification.** Overlap by a merge of sorted id arrays: each token of ``x`` is looked up with
  ``searchsorted`` in the probe side's concatenated ``row * V + id`` keys.

Candidates are generated in row-aligned blocks of at most ``budget`` entries, so memory is bounded
by the block, not by the number of candidate pairs. Filters use ``t - 1e-9`` and the final test is
``score >= t - 1e-12``: a pair exactly at the threshold is never lost to rounding.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from assay.data.leakage.tokens import Encoded, build_vocabulary, encode

SLACK = 1e-9
ACCEPT = 1e-12
BUDGET = 2_000_000
PAIR_CAP = 66  # most token pairs one set contributes to level 2 (a level-2 prefix of 12 tokens)
_EMPTY = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64))


@dataclass(frozen=True)
class Level:
    """Prefix entries of one scheme: ``ell`` = 1 (single tokens) or 2 (token pairs).

    ``keys`` holds ``(signature * W + size) * W + position`` (the position of the signature's last
    token), sorted; ``rows`` the indexed row of each key; ``W`` is one more than the longest indexed
    set. Rows longer than ``max_size`` have no entries at this level.
    """

    ell: int
    keys: np.ndarray
    rows: np.ndarray
    width: int
    max_size: int


@dataclass(frozen=True)
class PrefixIndex:
    """The indexed side of the join (the cases). Picklable: sent to Dask workers as is."""

    threshold: float
    vocab: dict[str, int]
    sets: Encoded
    levels: tuple[Level, ...]

    @property
    def size(self) -> int:
        """Number of indexed texts."""
        return int(self.sets.sizes.size)


def _check(threshold: float) -> None:
    if not 0 < threshold <= 1:
        raise ValueError(f"near_duplicates: threshold {threshold} must be in (0, 1]")


def _required(lx: np.ndarray, ly: np.ndarray, t: float) -> np.ndarray:
    """Least overlap for Jaccard >= t between sets of sizes ``lx`` and ``ly``."""
    return np.ceil(t * (np.asarray(lx) + ly) / (1 + t)).astype(np.int64)


def _least(sizes: np.ndarray, t: float) -> np.ndarray:
    """Least overlap a set of each size needs with its smallest admissible partner."""
    return _required(sizes, np.ceil(t * np.asarray(sizes)).astype(np.int64), t)


def _prefix_len(sizes: np.ndarray, t: float, ell: int) -> np.ndarray:
    """How many leading tokens hold a set's ``ell`` rarest shared tokens, whatever the partner."""
    sizes = np.asarray(sizes)
    return np.clip(sizes - _least(sizes, t) + ell, 0, sizes)


def _pair_max_size(t: float, span: int) -> int:
    """Largest set size indexed at level 2: every size up to it gives at most PAIR_CAP token pairs
    (0 when level-2 keys could overflow int64)."""
    sizes = np.arange(1, 4097)
    p = _prefix_len(sizes, t, 2)
    over = np.flatnonzero(p * (p - 1) // 2 > PAIR_CAP)
    top = int(over[0]) if over.size else sizes.size
    return top if span * span * (top + 1) ** 2 < 2**62 else 0


def _entries(enc: Encoded, t: float, ell: int, span: int, use: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Prefix entries ``(row, position, signature)`` of the rows where ``use``, grouped by row.

    Positions count a row's unknown words first. Level 2 signatures are ``a * span + b`` for every
    pair ``a < b`` of the row's level-2 prefix ids; the position is that of ``b``.
    """
    counts = np.diff(enc.indptr)
    row = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    pos = np.arange(enc.ids.size, dtype=np.int64) - enc.indptr[row] + enc.unknown[row]
    keep = (pos < _prefix_len(enc.sizes, t, ell)[row]) & use[row]
    row, pos, tok = row[keep], pos[keep], enc.ids[keep]
    if ell == 1:
        return row, pos, tok
    m = np.bincount(row, minlength=counts.size)
    first = np.cumsum(m) - m
    parts = []
    for size in np.unique(m[m >= 2]).tolist():
        a, b = np.triu_indices(size, 1)
        starts = first[m == size][:, None]
        ia, ib = (starts + a).ravel(), (starts + b).ravel()
        parts.append((row[ib], pos[ib], tok[ia] * np.int64(span) + tok[ib]))
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    r, p, s = (np.concatenate(x) for x in zip(*parts, strict=True))
    order = np.argsort(r, kind="stable")
    return r[order], p[order], s[order]


def build_index(texts: Sequence[str], threshold: float) -> PrefixIndex:
    """Index ``texts`` (the left side) for :func:`probe` at ``threshold``.

    Raises:
        ValueError: when ``threshold`` is not in (0, 1].
    """
    _check(threshold)
    vocab, sets = build_vocabulary(texts)
    t = threshold - SLACK
    span = len(vocab) + 1
    longest = int(sets.sizes.max(initial=0))
    levels = []
    for ell, max_size in ((1, longest), (2, _pair_max_size(t, span))):
        if max_size < ell or longest < ell:
            continue
        width = min(max_size, longest) + 1
        row, pos, sig = _entries(sets, t, ell, span, sets.sizes <= max_size)
        keys = (sig * width + sets.sizes[row]) * width + pos
        order = np.argsort(keys, kind="stable")
        levels.append(Level(ell, keys[order], row[order], width, max_size))
    return PrefixIndex(threshold, vocab, sets, tuple(levels))


def probe(index: PrefixIndex, texts: Sequence[str], budget: int = BUDGET) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every ``(i, j, jaccard)`` with ``jaccard(indexed[i], texts[j]) >= threshold``.

    Returns three arrays (``int64``, ``int64``, ``float64``) sorted by ``(i, j)``. A text without
    words matches nothing. ``budget`` caps the candidate entries held at once.
    """
    enc = encode(texts, index.vocab)
    t = index.threshold - SLACK
    span = len(index.vocab) + 1
    ly = enc.sizes
    # a probe row goes to level 2 when every admissible partner is indexed there and must share 2 words
    pairs = [level for level in index.levels if level.ell == 2]
    pair_ok = np.zeros(ly.size, dtype=bool)
    if pairs:
        pair_ok = (np.floor(ly / t) <= pairs[0].max_size) & (_least(ly, t) >= 2)
    ykeys = np.repeat(np.arange(ly.size, dtype=np.int64), np.diff(enc.indptr)) * np.int64(span) + enc.ids
    parts = []
    for level in index.levels:
        use = pair_ok if level.ell == 2 else ~pair_ok
        row, pos, sig = _entries(enc, t, level.ell, span, use)
        w, lyr = level.width, ly[row]
        lo = np.ceil(t * lyr).astype(np.int64)
        hi = np.minimum(np.floor(lyr / t).astype(np.int64), w - 1)
        start = np.searchsorted(level.keys, (sig * w + lo) * w)
        count = np.maximum(np.searchsorted(level.keys, (sig * w + hi + 1) * w) - start, 0)
        for a, b in _blocks(row, count, budget):
            x, y = _candidates(level, ly, t, row[a:b], pos[a:b], start[a:b], count[a:b])
            parts.append(_verify(index, ykeys, span, x, y, ly[y]))
    if not parts:
        return _EMPTY
    i, j, s = (np.concatenate(p) for p in zip(*parts, strict=True))
    order = np.lexsort((j, i))
    return i[order], j[order], s[order]


def _blocks(row: np.ndarray, count: np.ndarray, budget: int) -> Iterator[tuple[int, int]]:
    """Ranges of probe entries, cut only between probe rows, each with at most ``budget`` candidates
    (a single row with more gets a block of its own)."""
    if row.size == 0:
        return
    ends = np.flatnonzero(np.r_[row[1:] != row[:-1], True]) + 1  # entry index after each row
    done = np.cumsum(count)[ends - 1]  # candidates up to the end of each row
    a, k = 0, 0
    while k < ends.size:
        base = done[k - 1] if k else 0
        k_next = max(int(np.searchsorted(done, base + budget, side="right")), k + 1)
        yield a, int(ends[k_next - 1])
        a, k = int(ends[k_next - 1]), k_next


def _candidates(level: Level, ly_all: np.ndarray, t: float, row: np.ndarray, pos: np.ndarray, start: np.ndarray,
                count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``(x, y)`` pairs from one block of probe entries that pass the positional filter
    and (level 1) the overlap bound."""
    total = int(count.sum())
    if total == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    w, ell = level.width, level.ell
    rep = np.repeat(np.arange(count.size, dtype=np.int64), count)
    k = start[rep] + (np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count))
    key = level.keys[k]
    x, i, lx = level.rows[k], key % w, (key // w) % w
    y, j = row[rep], pos[rep]
    ly = ly_all[y]
    need = _required(lx, ly, t)
    ok = (i <= lx - need + ell - 1) & (j <= ly - need + ell - 1)
    x, y, i, j, lx, ly, need = x[ok], y[ok], i[ok], j[ok], lx[ok], ly[ok], need[ok]
    if x.size == 0:
        return x, y
    pair = x * np.int64(ly_all.size) + y
    order = np.argsort(pair, kind="stable")  # stable: a group's last entry is its last shared token
    pair = pair[order]
    last_sorted = np.flatnonzero(np.r_[pair[1:] != pair[:-1], True])
    last = order[last_sorted]
    if ell == 1:
        shared = np.diff(np.r_[-1, last_sorted])
        alive = shared + np.minimum(lx[last] - i[last] - 1, ly[last] - j[last] - 1) >= need[last]
        last = last[alive]
    return x[last], y[last]


def _verify(index: PrefixIndex, ykeys: np.ndarray, span: int, x: np.ndarray, y: np.ndarray,
            ly: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact overlap of each pair by looking x's ids up among y's (both sorted), then the Jaccard test."""
    sets = index.sets
    nx = np.diff(sets.indptr)[x]
    rep = np.repeat(np.arange(x.size, dtype=np.int64), nx)
    offs = np.arange(int(nx.sum()), dtype=np.int64) - np.repeat(np.cumsum(nx) - nx, nx)
    wanted = y[rep] * np.int64(span) + sets.ids[sets.indptr[x][rep] + offs]
    hit = ykeys[np.minimum(np.searchsorted(ykeys, wanted), ykeys.size - 1)] == wanted if ykeys.size else np.zeros(wanted.size, dtype=bool)
    inter = np.bincount(rep, weights=hit, minlength=x.size)
    lx = sets.sizes[x]
    score = inter / np.maximum(lx + ly - inter, 1)
    keep = score >= index.threshold - ACCEPT
    return x[keep], y[keep], score[keep]


def near_duplicates(left: Sequence[str], right: Sequence[str], threshold: float,
                    budget: int = BUDGET) -> list[tuple[int, int, float]]:
    """Every ``(i, j, jaccard)`` with ``jaccard(left[i], right[j]) >= threshold``, sorted by (i, j).

    Exact (no sampling); see the module docstring for the filters. Texts with no words match
    nothing. Cost grows with the candidates that survive the filters, not with
    ``len(left) * len(right)``.

    Raises:
        ValueError: when ``threshold`` is not in (0, 1].

    >>> near_duplicates(["When does a gift card expire?", "Is delivery free?"], ["when does my gift card expire"], 0.6)
    [(0, 0, 1.0)]
    """
    i, j, s = probe(build_index(left, threshold), right, budget)
    return list(zip(i.tolist(), j.tolist(), s.tolist(), strict=True))
