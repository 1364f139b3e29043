"""Shared interval estimate: the percentile bootstrap for a mean.

An empty sample gives ``(nan, nan)`` rather than a made-up interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def bootstrap_ci(values: Sequence[float] | np.ndarray, resamples: int = 2000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean of ``values``.

    For 0/1 values the resampled mean is drawn as Binomial(n, k/n) / n, which has exactly the
    distribution of the mean of n draws with replacement; it is O(resamples) instead of
    O(n * resamples) (this is why it is hand-written rather than ``scipy.stats.bootstrap``).
    Other values are resampled in chunks with a seeded generator.

    Edge cases: an empty sample gives ``(nan, nan)``; a constant sample gives ``(c, c)``.
    """
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    if np.all((x == 0) | (x == 1)):
        means = rng.binomial(n, x.mean(), size=resamples) / n
    else:
        means = np.empty(resamples)
        chunk = max(1, int(2e7 // n))
        for start in range(0, resamples, chunk):
            stop = min(resamples, start + chunk)
            idx = rng.integers(0, n, size=(stop - start, n))
            means[start:stop] = x[idx].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return (float(low), float(high))
