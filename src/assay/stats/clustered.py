"""Shares over repeated runs with the case as the unit: the mean over runs with a cluster-robust
interval, how much of the variance lies between runs of one case, and the paired test on case means.

A system that samples is run ``k`` times per case. Its runs of one case are not independent (an
easy case passes every run), so an interval that counted the ``n * k`` runs as independent trials
would be too narrow. Here each case contributes its ``successes`` out of ``trials`` defined runs
(``trials`` may differ between cases when a metric is undefined on some runs):

* :func:`clustered_share`: the mean over runs, as the mean of the per-case shares ``q_g = s_g / m_g``
  (each case weighs the same, so on every case ``1[all runs pass] <= q_g <= 1[a run passes]`` and
  pass^k <= mean <= pass@k; with every case run ``k`` times it is the pooled share of passing runs),
  its cluster-robust standard error (CR1: the sandwich estimator with the ``G / (G - 1)`` correction,
  what statsmodels' WLS on an intercept with weights ``1 / m_g`` and ``cov_type="cluster"`` gives,
  OLS when every case has the same number of runs; it is the standard error of the mean of the
  per-case shares, ``sd(q) / sqrt(G)``) and a Wilson score interval at
  the effective sample size ``p (1 - p) / se**2`` (Korn and Graubard 1998), shrunk by
  ``(z / t_{G-1})**2`` for the ``G - 1`` degrees of freedom the variance has and capped at the
  number of runs. Where the variance is 0 because every run agrees (all pass, or all fail) the
  effective size is the number of cases: as if each case's runs were one trial, the most the runs
  can be correlated. Its coverage over per-case pass probabilities drawn from Beta distributions, at
  ``k`` in {1, 3, 5} and ``n`` in {50, 200}, is simulated in tests/test_clustered.py.
* :func:`within_share`: the within-case share of the variance, ``sum_g m_g q_g (1 - q_g) / (N p (1 - p))``
  (``p`` the pooled share of the ``N`` runs): 0 when the runs of every case agree (all the
  variance is between cases), near 1 when the cases are alike and the runs decide.
* :func:`paired_mean_diff`: the paired t test and interval on the per-case means of two versions
  (``scipy.stats.ttest_rel``'s statistic, p and interval).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.stats.proportion import ProportionError, critical_z

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class ClusteredShare:
    """A share over repeated runs: ``value`` (mean of the per-case shares), ``se`` (CR1), ``low``/``high`` (the interval),
    ``cases`` (``G``, the units), ``runs`` (``N``, the defined runs) and ``n_eff`` (the effective size used).

    Undefined figures are nan: everything with no run; ``se`` and the interval with fewer than two cases.
    """

    value: float
    se: float
    low: float
    high: float
    cases: int
    runs: int
    n_eff: float


def _counts(successes: np.ndarray | list[int], trials: np.ndarray | list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The per-case counts as float arrays, cases without a defined run dropped; ProportionError when they are not counts."""
    import numpy as np

    s, m = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    if s.shape != m.shape or s.ndim != 1:
        raise ProportionError(f"clustered_share: successes {s.shape} and trials {m.shape} must be two 1-d arrays "
                              "of the same length, one value per case")
    if ((s < 0) | (s > m) | (s != np.round(s)) | (m != np.round(m))).any():
        raise ProportionError("clustered_share: per-case counts must be whole numbers with 0 <= successes <= trials")
    kept = m > 0
    return s[kept], m[kept]


def cluster_se(successes: np.ndarray | list[int], trials: np.ndarray | list[int]) -> float:
    """The CR1 cluster-robust standard error of the mean of the per-case shares (see the module docstring).

    ``sqrt(G / (G - 1) * sum_g (q_g - q)**2) / G`` = ``sd(q, ddof=1) / sqrt(G)``; nan with fewer than two cases.

    >>> round(cluster_se([3, 0], [3, 3]), 6)  # case means 1 and 0: the t standard error 0.5
    0.5
    """
    import numpy as np

    s, m = _counts(successes, trials)
    g = s.size
    if g < 2:
        return math.nan
    q = s / m
    return math.sqrt(g / (g - 1) * float(np.sum((q - q.mean()) ** 2))) / g


def clustered_share(successes: np.ndarray | list[int], trials: np.ndarray | list[int],
                    level: float = 0.95) -> ClusteredShare:
    """The mean over runs and its cluster-robust interval (see the module docstring).

    Args:
        successes: per case, how many of its defined runs passed.
        trials: per case, how many runs were defined (a case with 0 is left out).
        level: confidence level in (0, 1).

    Returns:
        :class:`ClusteredShare`; with one run per case the interval is Wilson's at n cases (the
        variance is then the binomial one, up to the ``G / (G - 1)`` and t corrections). No case:
        every figure nan. One case: the value only.

    >>> c = clustered_share([3, 3, 2, 0], [3, 3, 3, 3])
    >>> round(c.value, 4), c.cases, c.runs, [round(x, 3) for x in (c.low, c.high)]
    (0.6667, 4, 12, [0.131, 0.964])
    """
    if not 0 < level < 1:
        raise ProportionError(f"clustered_share: level {level!r} must be between 0 and 1, for example 0.95")
    s, m = _counts(successes, trials)
    g, total = int(s.size), int(m.sum())
    if g == 0:
        return ClusteredShare(math.nan, math.nan, math.nan, math.nan, 0, 0, math.nan)
    p = min(1.0, max(0.0, float((s / m).mean())))
    if g < 2:
        return ClusteredShare(p, math.nan, math.nan, math.nan, g, total, math.nan)
    se = cluster_se(s, m)
    # no spread between cases: all pass or all fail counts one trial per case, any other share independent runs
    n_eff = float(g) if p in (0.0, 1.0) else p * (1 - p) / se**2 if se > 0 else float(total)
    n_eff = min(float(total), n_eff * (critical_z(level) / _t_quantile(level, g - 1)) ** 2)
    low, high = _wilson(p, n_eff, critical_z(level))
    return ClusteredShare(p, se, low, high, g, total, n_eff)


def _t_quantile(level: float, df: int) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.5 + level / 2))


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's score interval for share ``p`` at a (possibly fractional) size ``n``; the ends exact at 0 and 1."""
    z2 = z * z
    denom = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    low = 0.0 if p == 0 else min(max(center - half, 0.0), 1.0)
    high = 1.0 if p == 1 else min(max(center + half, 0.0), 1.0)
    return low, high


def within_share(successes: np.ndarray | list[int], trials: np.ndarray | list[int]) -> float:
    """The within-case share of the variance of the runs (see the module docstring), in [0, 1].

    nan when it is undefined: no run, every run agreeing (no variance at all), or one run per case
    (nothing varies within a case to measure).

    >>> within_share([3, 0], [3, 3]), within_share([2, 1], [4, 2])  # all between cases; all within
    (0.0, 1.0)
    """
    import numpy as np

    s, m = _counts(successes, trials)
    total = float(m.sum())
    if total == 0 or (m <= 1).all():
        return math.nan
    p = float(s.sum()) / total
    if p in (0.0, 1.0):
        return math.nan
    within = float(np.sum(s * (1 - s / m)))  # sum over cases of m_g q_g (1 - q_g)
    return min(1.0, max(0.0, within / (total * p * (1 - p))))


@dataclass(frozen=True)
class PairedMeans:
    """The paired comparison of per-case means: ``diff`` (second minus first), its t interval, the t
    statistic and two-sided p, and ``n`` (paired cases). Undefined figures are nan (fewer than two
    cases; the statistic and p when every difference is the same)."""

    diff: float
    low: float
    high: float
    statistic: float
    p: float
    n: int


def paired_mean_diff(first: np.ndarray | list[float], second: np.ndarray | list[float],
                     level: float = 0.95) -> PairedMeans:
    """The paired t test and t interval of ``mean(second - first)`` over cases (``scipy.stats.ttest_rel``).

    When every difference is equal (for example all 0) the interval is that difference at both ends
    and the statistic and p are nan: nothing varies, so there is nothing to test.

    >>> r = paired_mean_diff([0.0, 1.0, 0.5], [1.0, 1.0, 1.0])
    >>> round(r.diff, 4), r.n
    (0.5, 3)
    """
    import numpy as np

    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ProportionError(f"paired_mean_diff: {a.shape} and {b.shape} must be two 1-d arrays of the same length")
    d = b - a
    n = int(d.size)
    if n < 2:
        mean = float(d.mean()) if n else math.nan
        return PairedMeans(mean, math.nan, math.nan, math.nan, math.nan, n)
    mean = float(d.mean())
    if float(np.ptp(d)) == 0.0:
        return PairedMeans(mean, mean, mean, math.nan, math.nan, n)
    from scipy import stats

    result = stats.ttest_rel(b, a)
    ci = result.confidence_interval(level)
    return PairedMeans(mean, float(ci.low), float(ci.high), float(result.statistic), float(result.pvalue), n)
