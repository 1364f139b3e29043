"""Intervals for a mean: the betting interval for values with known bounds, Student's t otherwise.

Per-query IR measures, per-case recall and other shares of [0, 1] are skewed and pile up at the
bounds (most queries at nDCG 1, or most at 0). There the t interval under-covers at the sample
sizes studies use (an audit measured 0.83 at n = 20 and 0.91 at n = 50 with 80% of values at 1),
and a sample whose values are all 1 gives the zero-width interval (1, 1). So when ``bounds`` are given the default is
the betting interval of Waudby-Smith and Ramdas ("Estimating means of bounded random variables by
betting", JRSS B 86:1, 2024), whose coverage holds for every distribution on the bounds and every
n, by construction; the tests check it by simulation (tests/test_mean.py). The price is width:
about 1.2-1.5 times the t interval's on IR-like values (1.6 at n = 20 with 80% at 1), and more on
values packed tightly away from the bounds (2-5 times for values near 0.5 with sd 0.05).

The betting interval (``method="betting"``), for values rescaled to [0, 1]: for a candidate mean
``m``, a gambler who starts with 1 bets each value in turn on "the mean is above m" and, with the
other half of the stake, on "below m"::

    K+(m) = prod(1 + l+_i (x_i - m)),   K-(m) = prod(1 - l-_i (x_i - m))

with the bet sizes ``l_i = sqrt(2 log(2 / alpha) / (n s2_{i-1}))`` (``s2_{i-1}`` the running
variance of the values before ``x_i``, started at 1/4 with one pseudo-value 1/2), capped at
``c / m`` and ``c / (1 - m)`` (``c = 3/4``) so that the capital stays positive. ``m`` is rejected
at time t when ``max(K+_t(m), K-_t(m)) / 2 >= 1 / alpha``, ``K_t`` the capital after the first t values.
When ``m`` is the true mean each capital is a nonnegative martingale with mean 1, so by Ville's
inequality the chance that the true mean is *ever* rejected, at any t = 1..n, is at most alpha.

``method="betting"`` (the default) reports the running intersection: every ``m`` in [0, 1] rejected
at no t = 1..n. ``method="betting_final"`` reports the ``m`` not rejected at t = n only (Markov's
inequality; assay's default before the intersection), which contains the intersection. The
intersection's median width is 8-13.5% smaller at n >= 100 for means 0.1-0.9, 0-10% at n 10-50,
the same at n 10-100 for means near 0 or 1; coverage stayed >= 0.95 in every cell measured
(``benchmarks/bench_mean.py``).
``K+`` never increases with ``m`` and ``K-`` never decreases, so each side rejects a one-sided range
and the limits are found on a grid of 201 points refined by bisection to 1e-10.

Edge cases, all chosen so that the reported interval contains the set of unrejected ``m`` and so
keeps the coverage: when the final mean lies outside that set (the values came in an order that
made early bets win big, for example sorted), the interval is widened to reach the mean, which is
then one of its limits; when no ``m`` survives every t (at most alpha of the time when the values
are independent), the interval at t = n is reported instead. So the mean is always inside.

Order: the bets depend on the order of the values, and the guarantee needs that order to carry no
information about the values (independent draws in an order fixed beforehand: the pipeline passes
them in id order, so the interval is reproducible). Reordering moves the limits a little; passing
the values sorted by size is the one thing not to do.

``method="t"``: Student's t interval ``mean -/+ t_{n-1} s / sqrt(n)`` (scipy), clipped to
``bounds`` when given; the default without bounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from assay.core.errors import AssayError

MeanMethod = Literal["betting", "betting_final", "t"]
MEAN_METHODS = ("betting", "betting_final", "t")
BET_CAP = 0.75  # c: no bet risks more than 3/4 of the capital
_GRID = 201
_TOLERANCE = 1e-10


class MeanError(AssayError):
    """Values or settings that do not describe a mean with an interval: values outside the bounds,
    bounds in the wrong order, an unknown method, a level outside (0, 1)."""


def mean_ci(values: Sequence[float] | np.ndarray, level: float = 0.95, bounds: tuple[float, float] | None = None,
            method: MeanMethod | None = None) -> tuple[float, float]:
    """Two-sided interval for the mean behind ``values``.

    Args:
        values: the observations (nan is not allowed: drop undefined values first).
        level: confidence level in (0, 1).
        bounds: ``(low, high)`` every value is known to lie in, for example ``(0.0, 1.0)`` for an IR
            measure; the interval then stays within them.
        method: ``"betting"`` (the default when ``bounds`` are given; needs them: the running
            intersection of the betting intervals over the values in the order given),
            ``"betting_final"`` (the betting interval at the last value only, wider) or ``"t"`` (the
            default without bounds). See the module docstring.

    Returns:
        ``(low, high)``, always containing the mean. ``(nan, nan)`` with fewer than two values. For
        ``t``, a sample with no spread gives ``(mean, mean)``; the betting interval keeps a width
        (20 values all 1 in [0, 1] give a lower limit of 0.787). A betting limit equals the mean
        when the mean falls outside the unrejected set (see the module docstring).

    Raises:
        MeanError: a value outside ``bounds`` (named with its position), ``bounds`` with low >= high,
            ``method="betting"`` without bounds, an unknown method or level.

    >>> mean_ci([1.0, 1.0, 1.0])
    (1.0, 1.0)
    >>> mean_ci([0.5])
    (nan, nan)
    >>> [round(x, 3) for x in mean_ci([1.0] * 20, bounds=(0.0, 1.0))]
    [0.787, 1.0]
    """
    if not 0 < level < 1:
        raise MeanError(f"mean_ci: level {level!r} must be between 0 and 1, for example 0.95")
    method = method or ("betting" if bounds is not None else "t")
    if method not in MEAN_METHODS:
        raise MeanError(f"mean_ci: method {method!r} is not one of {', '.join(MEAN_METHODS)}")
    if method != "t" and bounds is None:
        raise MeanError(f"mean_ci: the {method} interval needs bounds, for example bounds=(0.0, 1.0); "
                        "use method='t' for values without known bounds")
    x = np.asarray(values, dtype=float)
    if bounds is not None:
        lo, hi = float(bounds[0]), float(bounds[1])
        if not lo < hi:
            raise MeanError(f"mean_ci: bounds {bounds!r} must be (low, high) with low < high")
        outside = np.flatnonzero(~((x >= lo) & (x <= hi)))
        if outside.size:
            at = int(outside[0])
            raise MeanError(f"mean_ci: value {float(x[at])!r} at position {at} is outside the bounds {bounds!r}; "
                            "drop undefined values and check the measure's range")
    if x.size < 2:
        return (math.nan, math.nan)
    if method == "t":
        return _t_interval(x, level, bounds)
    low, high = _betting((x - lo) / (hi - lo), 1 - level, running=method == "betting")
    return (lo + low * (hi - lo), lo + high * (hi - lo))


def _t_interval(x: np.ndarray, level: float, bounds: tuple[float, float] | None) -> tuple[float, float]:
    from scipy import stats

    mean, se = float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size))
    if se == 0:
        return (mean, mean)
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 1)) * se
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return (low, high)


def _bets(y: np.ndarray, alpha: float) -> np.ndarray:
    """Predictable bet sizes: ``sqrt(2 log(2 / alpha) / (n s2_{i-1}))`` with the running variance of the
    values before each one (one pseudo-value 1/2 and variance 1/4 to start)."""
    n = y.size
    steps = np.arange(1, n + 1)
    means = (0.5 + np.cumsum(y)) / (steps + 1)
    variances = (0.25 + np.cumsum((y - means) ** 2)) / (steps + 1)
    before = np.concatenate([[0.25], variances[:-1]])
    return np.sqrt(2 * math.log(2 / alpha) / (n * before))


def _log_capitals(y: np.ndarray, bets: np.ndarray, m: np.ndarray, running: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(log K+(m), log K-(m))`` for each candidate mean in ``m``: at the last value, or with ``running``
    the largest over t = 1..n (the running maximum that Ville's inequality bounds).

    ``K+`` never increases with ``m`` and ``K-`` never decreases (each factor is monotone, the caps
    included), so each side rejects a one-sided range: ``[0, a]`` for ``K+`` and ``[b, 1]`` for ``K-``.
    """
    m = m[:, None]
    with np.errstate(divide="ignore"):
        up = np.minimum(bets[None, :], BET_CAP / m)
        down = np.minimum(bets[None, :], BET_CAP / (1 - m))
    gap = y[None, :] - m
    up_terms, down_terms = np.log1p(up * gap), np.log1p(-down * gap)
    if not running:
        return up_terms.sum(axis=1), down_terms.sum(axis=1)
    return np.cumsum(up_terms, axis=1).max(axis=1), np.cumsum(down_terms, axis=1).max(axis=1)


def _betting(y: np.ndarray, alpha: float, running: bool = True) -> tuple[float, float]:
    """The betting interval for the mean of ``y`` in [0, 1] (see the module docstring): with ``running``
    the running intersection over t = 1..n, without the interval at t = n; either is extended to reach
    the mean when the mean falls outside it, and an empty running intersection is replaced by the
    interval at t = n. Each result contains the set of unrejected m, so its coverage is kept."""
    bets = _bets(y, alpha)
    low, high = _limits(y, bets, alpha, running)
    mean = float(y.mean())
    if running and low > high:  # no m survives every t (probability <= alpha): the interval at t = n
        return _betting(y, alpha, running=False)
    return (min(low, high, mean), max(low, high, mean))


def _limits(y: np.ndarray, bets: np.ndarray, alpha: float, running: bool) -> tuple[float, float]:
    """``(a, b)``: the edges of the ranges ``K+`` rejects (``[0, a)``) and ``K-`` rejects (``(b, 1]``), found
    on a grid of 201 points and refined by bisection (both at once); each returned point is unrejected.
    ``a > b`` when no m survives both sides."""
    threshold = math.log(2 / alpha)  # max(K+, K-) / 2 >= 1 / alpha

    def rejected(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rejected by K+, rejected by K-) for each m."""
        up, down = np.empty(m.size, dtype=bool), np.empty(m.size, dtype=bool)
        chunk = max(1, 2_000_000 // y.size)  # bound the memory of the grid x values table
        for start in range(0, m.size, chunk):
            log_up, log_down = _log_capitals(y, bets, m[start:start + chunk], running)
            up[start:start + chunk], down[start:start + chunk] = log_up >= threshold, log_down >= threshold
        return up, down

    grid = np.linspace(0.0, 1.0, _GRID)
    by_up, by_down = rejected(grid)
    # K+ at m = 1 and K- at m = 0 never exceed 1, so neither bound is rejected by its own side
    if not by_up.any() and not by_down.any():
        return (0.0, 1.0)
    outside = np.array([grid[by_up].max() if by_up.any() else 0.0, grid[by_down].min() if by_down.any() else 1.0])
    inside = outside + np.array([1.0, -1.0]) / (_GRID - 1)
    active = np.array([by_up.any(), by_down.any()])
    while active.any() and np.abs(outside - inside)[active].max() > _TOLERANCE:
        mid = (inside + outside) / 2
        up, down = rejected(mid)
        hit = np.array([up[0], down[1]])
        outside = np.where(active & hit, mid, outside)
        inside = np.where(active & ~hit, mid, inside)
    low = float(inside[0]) if active[0] else 0.0
    high = float(inside[1]) if active[1] else 1.0
    return (low, high)
