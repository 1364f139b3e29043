"""Shared interval estimates: percentile bootstrap for a mean, and the Wilson interval for a proportion.

Both return ``(nan, nan)`` for an empty sample rather than a made-up interval.
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


def wilson_ci(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion; ``(nan, nan)`` when ``n == 0``."""
    if n == 0:
        return (math.nan, math.nan)
    from scipy.stats import norm

    z = float(norm.ppf(1 - (1 - level) / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))
