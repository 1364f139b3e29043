"""Intervals for the per-mode figures.

* Mean of a per-query measure in [0, 1]: the betting interval of :func:`assay.stats.mean.mean_ci`
  (Waudby-Smith and Ramdas), whose coverage holds at every n for values that pile up at 0 or 1,
  where the t interval under-covers (0.83 at 20 queries with 80% at 1); without bounds, Student's t.
  nan bounds with fewer than two queries; a constant sample keeps a width with bounds.
* A proportion (citation accuracy, stale rate, abstention): Wilson score interval
  (:func:`assay.stats.proportion.proportion_ci`, bit-equal to statsmodels'); (nan, nan) for an
  empty denominator.
* The p95 latency: the distribution-free order-statistic interval for a quantile
  (``scipy.stats.quantile_test(...).confidence_interval``); a bound the sample is too small to
  give is nan (with 86 queries the upper bound of a 95th percentile is the sample maximum or nan).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def mean_interval(values: Sequence[float] | np.ndarray, level: float = 0.95,
                  bounds: tuple[float, float] | None = None) -> tuple[float, float, float]:
    """``(mean, low, high)``: :func:`assay.stats.mean.mean_ci`'s interval, the betting interval within ``bounds``
    when given (a measure in [0, 1] never gets a bound above 1), Student's t without; nan where undefined."""
    from assay.stats.mean import mean_ci

    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return (math.nan, math.nan, math.nan)
    low, high = mean_ci(x, level, bounds)
    return (float(x.mean()), low, high)


def proportion_interval(hits: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``hits / n``; (nan, nan) when ``n`` is 0."""
    from assay.stats.proportion import proportion_ci

    return proportion_ci(int(hits), int(n), "wilson", level)


def quantile_interval(values: Sequence[float] | np.ndarray, q: float = 0.95, level: float = 0.95) -> tuple[float, float, float]:
    """``(quantile, low, high)``: numpy's linear-interpolated quantile and the order-statistic interval."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return (math.nan, math.nan, math.nan)
    from scipy import stats

    ci = stats.quantile_test(x, q=float(np.quantile(x, q)), p=q).confidence_interval(confidence_level=level)
    low, high = float(ci.low), float(ci.high)
    return (float(np.quantile(x, q)), low if math.isfinite(low) else math.nan, high if math.isfinite(high) else math.nan)
