"""A distribution-free interval for a quantile from order statistics (for p95 latency).

The interval is ``[x_(l), x_(u)]`` (1-based order statistics) with ``l`` and ``u`` chosen from
the Binomial(n, q) distribution of the number of values below the true quantile, so its
coverage is at least ``level`` for any continuous distribution. When ``n`` is too small for a
bound, that bound is ``nan``: no order statistic reaches far enough, and saying so is honest. The
upper bound of p95 in this two-sided 95% interval needs ``n >= 72`` (from 72 to 109 values it is the
sample maximum); 59 is the figure for a one-sided 95% upper bound, which this is not.

>>> quantile_ci(list(range(71)), 0.95)[1], quantile_ci(list(range(72)), 0.95)[1]
(nan, 71.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def quantile_ci(values: Sequence[float], q: float, level: float = 0.95) -> tuple[float, float]:
    """``(low, high)`` bounds for the ``q`` quantile; ``nan`` where the sample cannot give one.

    >>> quantile_ci([], 0.95)
    (nan, nan)
    """
    from scipy.stats import binom

    x = np.sort(np.asarray(values, dtype=float))
    n = x.size
    if n == 0:
        return (math.nan, math.nan)
    alpha = 1 - level
    lo_rank = int(binom.ppf(alpha / 2, n, q))  # P(B <= lo_rank - 1) < alpha/2
    hi_rank = int(binom.ppf(1 - alpha / 2, n, q)) + 1  # P(B <= hi_rank - 1) >= 1 - alpha/2
    low = float(x[lo_rank - 1]) if lo_rank >= 1 else math.nan
    high = float(x[hi_rank - 1]) if hi_rank <= n else math.nan
    return (low, high)
