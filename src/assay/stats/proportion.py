"""Interval for a proportion (k successes in n trials): Wilson score or Clopper-Pearson exact.

These are the intervals every pass rate and agreement share in assay uses. Both have known
coverage near or above the nominal level at the small n and extreme p where release thresholds
live; a percentile bootstrap does not (at p = 0.97, n = 20 it covers less than half the time,
and 20 of 20 gives the empty-width interval [1, 1]). The exact coverage of both methods, and of
the bootstrap, over the binomial is enumerated in tests/test_proportion.py.

- ``wilson``: the score interval (Wilson 1927), centred on a shrunk estimate; its coverage
  oscillates around the nominal level, slightly below it at some (n, p).
- ``clopper-pearson``: the exact interval from Beta quantiles; coverage is never below the
  nominal level, at the price of a wider interval.

``clopper-pearson`` comes from ``statsmodels.stats.proportion.proportion_confint`` (method
``beta``), imported on first use. ``wilson`` is statsmodels' ``method="wilson"`` formula written
out here, operation for operation, so it gives the same bits (tests/test_proportion.py checks
equality, not closeness, against statsmodels): importing statsmodels and scipy.stats took most
of the run time of every stage that reports a pass rate (benchmarks/bench_stage_imports.py).

>>> low, high = proportion_ci(20, 20)
>>> round(low, 3), high
(0.839, 1.0)
"""

from __future__ import annotations

import math
from typing import Literal

IntervalMethod = Literal["wilson", "clopper-pearson"]
INTERVAL_METHODS: tuple[str, ...] = ("wilson", "clopper-pearson")
_STATSMODELS_NAME = {"wilson": "wilson", "clopper-pearson": "beta"}
# z = -scipy.special.ndtri((1 - level) / 2), what statsmodels' stats.norm.isf gives, for the usual
# levels; any other level imports scipy.special (tests/test_proportion.py checks the table)
_Z = {0.8: 1.2815515655446004, 0.9: 1.6448536269514729, 0.95: 1.959963984540054,
      0.99: 2.5758293035489004, 0.999: 3.2905267314918945}


class ProportionError(ValueError):
    """Counts or settings that do not describe a proportion (raised for programming errors, not input rows)."""


def proportion_ci(k: int, n: int, method: IntervalMethod = "wilson", level: float = 0.95) -> tuple[float, float]:
    """Two-sided interval for the success probability behind ``k`` successes out of ``n``.

    Args:
        k: number of successes, ``0 <= k <= n``.
        n: number of trials.
        method: ``"wilson"`` (score interval) or ``"clopper-pearson"`` (exact, Beta quantiles).
        level: confidence level in (0, 1).

    Returns:
        ``(low, high)`` within [0, 1]. ``(nan, nan)`` when ``n == 0`` (no trials: nothing to
        estimate). ``0 of n`` has ``low == 0`` and ``n of n`` has ``high == 1`` for both methods.

    Raises:
        ProportionError: an unknown method, a level outside (0, 1), negative counts or
            ``k > n``.

    >>> proportion_ci(0, 0)
    (nan, nan)
    >>> [round(x, 3) for x in proportion_ci(7, 10, "clopper-pearson")]
    [0.348, 0.933]
    """
    if method not in _STATSMODELS_NAME:
        raise ProportionError(f"proportion_ci: method {method!r} is not one of {', '.join(INTERVAL_METHODS)}")
    if not 0 < level < 1:
        raise ProportionError(f"proportion_ci: level {level!r} must be between 0 and 1, for example 0.95")
    if n < 0 or k < 0 or k > n:
        raise ProportionError(f"proportion_ci: {k} successes in {n} trials is not a proportion "
                              "(need 0 <= k <= n)")
    if n == 0:
        return (math.nan, math.nan)
    if method == "wilson":
        low, high = _wilson(int(k), int(n), level)
    else:
        from statsmodels.stats.proportion import proportion_confint

        low, high = proportion_confint(int(k), int(n), alpha=1 - level, method=_STATSMODELS_NAME[method])
    # statsmodels leaves a 1e-16 rounding residue at the ends for some (k, n); the ends are exact
    low = 0.0 if k == 0 else max(0.0, float(low))
    high = 1.0 if k == n else min(1.0, float(high))
    return (low, high)


def critical_z(level: float) -> float:
    """The two-sided standard normal quantile for ``level``: ``-ndtri((1 - level) / 2)``, as statsmodels computes it.

    >>> critical_z(0.95)
    1.959963984540054
    """
    alpha = (1 - level) / 2.0
    z = _Z.get(level)
    if z is None:
        from scipy.special import ndtri

        z = float(-ndtri(alpha))
    return z


def _wilson(k: float, n: int, level: float) -> tuple[float, float]:
    """statsmodels' Wilson interval (``proportion_confint(method="wilson")``), the same operations in the same order.

    ``k`` may be fractional (a weighted count of successes, as weighted kappa's observed share times n)."""
    crit = critical_z(level)
    q = k / n
    crit2 = crit**2
    denom = 1 + crit2 / n
    center = (q + crit2 / (2 * n)) / denom
    dist = crit * math.sqrt(q * (1.0 - q) / n + crit2 / (4.0 * n**2))
    dist /= denom
    return min(max(center - dist, 0.0), 1.0), min(max(center + dist, 0.0), 1.0)
