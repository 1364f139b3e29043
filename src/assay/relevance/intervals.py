"""Intervals for the per-mode figures.

* Mean of a per-query measure: Student t interval over queries (``scipy.stats.t``), clipped to the
  measure's range [0, 1]; its coverage is checked by simulation in the tests. nan bounds with fewer
  than two queries; a constant sample gives a zero-width interval.
* A proportion (citation accuracy, stale rate, abstention): Wilson score interval
  (:func:`assay.stats.proportion.proportion_ci`, bit-equal to statsmodels'); (nan, nan) for an
  empty denominator.
* The p95 latency: the distribution-free order-statistic interval for a quantile
  (``scipy.stats.quantile_test(...).confidence_interval``); a bound the sample is too small to
  give is nan (with 86 queries the upper bound of a 95th percentile is the sample maximum or nan).
"""

from __future__ import annotations

import math

import numpy as np


def mean_interval(values, level: float = 0.95, bounds: tuple[float, float] | None = None) -> tuple[float, float, float]:
    """``(mean, low, high)``: the t interval for the mean (:func:`assay.stats.mean.mean_ci`), clipped to
    ``bounds`` when given (a measure in [0, 1] never gets a bound above 1); nan where undefined."""
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


def quantile_interval(values, q: float = 0.95, level: float = 0.95) -> tuple[float, float, float]:
    """``(quantile, low, high)``: numpy's linear-interpolated quantile and the order-statistic interval."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return (math.nan, math.nan, math.nan)
    from scipy import stats

    ci = stats.quantile_test(x, q=float(np.quantile(x, q)), p=q).confidence_interval(confidence_level=level)
    low, high = float(ci.low), float(ci.high)
    return (float(np.quantile(x, q)), low if math.isfinite(low) else math.nan, high if math.isfinite(high) else math.nan)
