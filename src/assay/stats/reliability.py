"""Agreement of two raters on ordinal grades, from pair-count tables, with a cluster bootstrap interval.

Every statistic here takes a stack of ``k x k`` pair-count tables (shape ``(..., k, k)``;
``table[i, j]`` = items rater A graded ``i`` and rater B graded ``j``, categories in their ordinal
order), so one call scores the observed table and thousands of bootstrap tables at once.

* :func:`weighted_kappa`: Cohen's weighted kappa ``1 - N * sum(w * O) / sum(w * outer(rows, cols))``
  with disagreement weights ``|i - j|`` (linear) or ``(i - j)**2`` (quadratic).
* :func:`ordinal_alpha`: Krippendorff's alpha with the ordinal metric, for two raters and no
  missing values: the coincidence matrix is ``o = T + T'``, ``n_c`` its margins, ``n = 2N``, and
  ``alpha = 1 - (n - 1) * sum(o * d2) / sum(outer(n_c, n_c) * d2)`` with the ordinal distance
  ``d2[c, k] = (sum_{g=c..k} n_g - (n_c + n_k) / 2) ** 2`` (Krippendorff 2011, "Computing
  Krippendorff's alpha-reliability", section E).
* :func:`cluster_bootstrap`: resample whole clusters (the queries) with replacement, because the
  pairs of one query share its wording and are not independent; percentile interval.

Edge cases: no pairs, or every grade the same (no variation to agree beyond chance), gives nan;
the bootstrap interval ignores nan replicates and is (nan, nan) when more than half are nan.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np

Weights = Literal["linear", "quadratic"]


def weighted_kappa(tables: np.ndarray, weights: Weights = "quadratic") -> np.ndarray:
    """Weighted kappa of each table in ``tables`` (shape ``(..., k, k)``); nan where undefined."""
    t = np.asarray(tables, dtype=float)
    k = t.shape[-1]
    gap = np.abs(np.arange(k)[:, None] - np.arange(k)[None, :]).astype(float)
    w = gap if weights == "linear" else gap ** 2
    n = t.sum(axis=(-2, -1))
    observed = (w * t).sum(axis=(-2, -1))
    chance = np.einsum("...i,ij,...j->...", t.sum(axis=-1), w, t.sum(axis=-2))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - n * observed / chance
    return np.where(chance > 0, out, np.nan)


def ordinal_alpha(tables: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal alpha of each two-rater table in ``tables``; nan where undefined."""
    t = np.asarray(tables, dtype=float)
    o = t + np.swapaxes(t, -1, -2)
    margins = o.sum(axis=-1)  # n_c, shape (..., k)
    n = margins.sum(axis=-1)
    cum = np.cumsum(margins, axis=-1)
    k = t.shape[-1]
    lo = np.minimum.outer(np.arange(k), np.arange(k))
    hi = np.maximum.outer(np.arange(k), np.arange(k))
    between = cum[..., hi] - cum[..., lo] + margins[..., lo]  # sum of n_g for g from min to max
    d2 = (between - (margins[..., :, None] + margins[..., None, :]) / 2) ** 2
    observed = (o * d2).sum(axis=(-2, -1))
    expected = (margins[..., :, None] * margins[..., None, :] * d2).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - (n - 1) * observed / expected
    return np.where(expected > 0, out, np.nan)


def pair_tables(clusters: list, a: list[int], b: list[int], k: int) -> tuple[list, np.ndarray]:
    """One pair-count table per cluster: ``(cluster names in first-seen order, array (m, k, k))``.

    ``a`` and ``b`` are category positions ``0..k-1``, one per item; ``clusters`` names each item's cluster.
    """
    names = list(dict.fromkeys(clusters))
    where = {c: i for i, c in enumerate(names)}
    out = np.zeros((len(names), k, k), dtype=np.int64)
    np.add.at(out, (np.array([where[c] for c in clusters], dtype=np.int64), np.asarray(a), np.asarray(b)), 1)
    return names, out


def cluster_bootstrap(per_cluster: np.ndarray, statistic: Callable[[np.ndarray], np.ndarray], resamples: int, seed: int,
                      level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of ``statistic`` over cluster resamples of ``per_cluster`` (shape ``(m, k, k)``).

    Each replicate draws ``m`` clusters with replacement (multinomial counts from a
    ``numpy.random.default_rng(seed)`` stream) and sums their tables. Returns (nan, nan) with no
    cluster or when more than half the replicates are undefined.
    """
    m = per_cluster.shape[0]
    if m == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(m, np.full(m, 1.0 / m), size=resamples)
    tables = (counts @ per_cluster.reshape(m, -1)).reshape(resamples, *per_cluster.shape[1:])
    values = statistic(tables)
    values = values[~np.isnan(values)]
    if values.size * 2 < resamples:
        return (math.nan, math.nan)
    tail = (1 - level) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return (float(low), float(high))
