"""A t interval for the mean of values that are not 0/1 (for example per-case recall in [0, 1]).

Fewer than two values, or zero spread, give no interval (``(nan, nan)`` or the point itself).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def mean_ci(values: Sequence[float], level: float = 0.95, bounds: tuple[float, float] | None = None) -> tuple[float, float]:
    """Student-t interval for the mean, clipped to ``bounds`` when given.

    >>> mean_ci([1.0, 1.0, 1.0])
    (1.0, 1.0)
    >>> mean_ci([0.5])
    (nan, nan)
    """
    from scipy import stats

    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return (math.nan, math.nan)
    mean, se = float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size))
    if se == 0:
        return (mean, mean)
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 1)) * se
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return (low, high)
