"""Two versions scored pass/fail on the same cases: the interval on their difference and the exact tests.

The four counts of the paired 2x2 table name every function's arguments:

===============  =====================  ====================
                 second passes          second fails
===============  =====================  ====================
first passes     ``both``               ``only_first``
first fails      ``only_second``        ``neither``
===============  =====================  ====================

With ``first`` the baseline and ``second`` the candidate, ``only_second`` counts the cases that got
better and ``only_first`` the cases that got worse.

- :func:`paired_diff_ci`: ``p_second - p_first`` with Tango's asymptotic score interval (Tango 1998,
  "Equivalence test and confidence interval for the difference in proportions for the paired-sample
  design", Stat Med 17:891), the one Fagerland, Lydersen and Laake (2014, Stat Med 33:2850)
  recommend; ``method="newcombe"`` gives Newcombe's hybrid score interval (Newcombe 1998, "Improved
  confidence intervals for the difference between binomial proportions based on paired data",
  Stat Med 17:2635, method 10). Two overlapping per-version intervals are not a test of the
  difference: the versions share their cases, so their pass rates are correlated, and both
  intervals use that.
- :func:`sign_test`: exact two-sided sign test on the discordant cases.
- :func:`mcnemar_exact`: the exact McNemar test, which *is* the sign test on the discordant
  cases (``statsmodels``' ``mcnemar(exact=True)`` computes the same binomial tail; the tests
  check both).
"""

from __future__ import annotations

import math
from typing import Literal

from assay.stats.proportion import ProportionError, critical_z, proportion_ci

PairedMethod = Literal["tango", "newcombe"]
PAIRED_METHODS = ("tango", "newcombe")


def _phi(both: int, only_first: int, only_second: int, neither: int) -> float:
    """Newcombe's correlation term: the phi coefficient of the two versions' outcomes with its
    numerator ``A = both * neither - only_first * only_second`` shrunk towards 0 by ``n / 2`` when
    positive (``A - n/2`` above ``n/2``, 0 between 0 and ``n/2``, ``A`` itself when negative); 0
    when a margin is empty (one version passed everything or nothing), where phi is undefined."""
    denominator = (both + only_first) * (only_second + neither) * (both + only_second) * (only_first + neither)
    if denominator == 0:
        return 0.0
    n = both + only_first + only_second + neither
    a = both * neither - only_first * only_second
    shrunk = a - n / 2 if a > n / 2 else (0.0 if a >= 0 else a)
    return shrunk / math.sqrt(denominator)


def paired_diff_ci(both: int, only_first: int, only_second: int, neither: int,
                   level: float = 0.95, method: PairedMethod = "tango") -> tuple[float, float, float]:
    """Difference of two paired pass rates, ``p_second - p_first``, with Tango's score interval (default).

    ``method="tango"``: the set of differences ``d`` that the score test does not reject,
    ``|T(d)| <= z`` with ``b = only_second``, ``c = only_first``::

        T(d) = (b - c - n d) / sqrt(n (2 q(d) + d (1 - d)))

    where ``q(d)`` is the maximum-likelihood probability of ``only_first`` under the constraint
    that the difference is ``d`` (the positive root of ``2n q^2 + B q + C = 0`` with
    ``B = -b - c + (2n - b + c) d`` and ``C = -c d (1 - d)``; Tango 1998, eq. 3). ``T`` falls as
    ``d`` rises, so each limit is found by bisection on (-1, 1) to 1e-12 (pure Python: no scipy
    import on the compare stage's path). Only the discordant counts enter. With no discordant case
    the limits are ``-/+ z^2 / (n + z^2)`` (solve ``n d = z^2 (1 - d)``), never zero width.

    Coverage, by exact enumeration over the discordant counts (the concordant split, p_first, does
    not enter) for every n from 10 to 300, improvements only and mixed (regressions only mirror
    improvements), 0.25-20% discordant in steps of 0.25% (benchmarks/bench_tango.py; the worst cells
    re-enumerated in tests/test_paired.py): worst two-sided 0.926 (n = 122, 4.5% improving and none
    regressing), worst lower bound 0.946 (n = 204, 2% improving and none regressing; it should be
    0.975). It dips below 0.93 between the sizes a coarser grid sees (0.932 at n = 57): read a
    lower bound near 0 with :func:`mcnemar_exact` beside it. Newcombe's interval covers 0.908 at
    n = 200 with 2% improving and none regressing: a candidate that fixes a few cases and breaks
    none is the common case, so it is not the default.
    Tango's interval inverts the asymptotic McNemar score test (``T(0)`` is McNemar's
    ``(b - c) / sqrt(b + c)``), so with a handful of discordant cases it can exclude 0 where the
    exact test does not: 4 better and none worse of 200 give a lower limit 0.0008 and an exact
    p of 0.125. Read :func:`mcnemar_exact` for the test, the interval for the size.

    ``method="newcombe"``: with ``(l1, u1)`` and ``(l2, u2)`` the Wilson intervals of ``p_first``
    and ``p_second`` and ``phi`` the correlation of the two outcomes, the limits are::

        low  = diff - sqrt((p2 - l2)**2 - 2 phi (p2 - l2)(u1 - p1) + (u1 - p1)**2)
        high = diff + sqrt((u2 - p2)**2 - 2 phi (u2 - p2)(p1 - l1) + (p1 - l1)**2)

    ``phi`` is ``(both * neither - only_first * only_second) / sqrt(product of the four margins)``
    with Newcombe's correction: a positive numerator is reduced by ``n / 2`` (to no less than 0),
    and 0 when a margin is empty. This is the square-and-add interval as Newcombe (1998) gives it
    and as Fagerland, Lydersen and Laake ("Statistical Analysis of Contingency Tables", 2017,
    chapter 8) implement it.

    Args:
        both, only_first, only_second, neither: the paired 2x2 counts (see the module docstring).
        level: confidence level in (0, 1).
        method: ``"tango"`` (default) or ``"newcombe"``.

    Returns:
        ``(diff, low, high)`` with ``-1 <= low <= diff <= high <= 1``. ``(nan, nan, nan)`` when
        there are no cases. With every case concordant ``diff`` is 0 and the interval still has
        width: agreement on n cases does not prove a zero difference.

    Raises:
        ProportionError: a negative count, a level outside (0, 1) or an unknown method.

    >>> [round(x, 4) for x in paired_diff_ci(36, 12, 2, 0, method="newcombe")]
    [-0.2, -0.3404, -0.0569]
    >>> [round(x, 4) for x in paired_diff_ci(20, 0, 0, 0)]  # -/+ z^2 / (20 + z^2)
    [0.0, -0.1611, 0.1611]
    """
    counts = (both, only_first, only_second, neither)
    if min(counts) < 0:
        raise ProportionError(f"paired_diff_ci: counts {counts} must be non-negative")
    if not 0 < level < 1:
        raise ProportionError(f"paired_diff_ci: level {level!r} must be between 0 and 1, for example 0.95")
    if method not in PAIRED_METHODS:
        raise ProportionError(f"paired_diff_ci: method {method!r} is not one of {', '.join(PAIRED_METHODS)}")
    n = sum(counts)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    diff = (only_second - only_first) / n
    if method == "tango":
        low, high = _tango(only_second, only_first, n, critical_z(level))
        return (diff, max(-1.0, min(low, diff)), min(1.0, max(high, diff)))
    p1, p2 = (both + only_first) / n, (both + only_second) / n
    l1, u1 = proportion_ci(both + only_first, n, "wilson", level)
    l2, u2 = proportion_ci(both + only_second, n, "wilson", level)
    phi = _phi(both, only_first, only_second, neither)
    below = math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    above = math.sqrt(max(0.0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return (diff, max(-1.0, diff - below), min(1.0, diff + above))


def _tango_score(b: int, c: int, n: int, d: float) -> float:
    """Tango's score statistic for difference ``d`` = P(b) - P(c): ``(b - c - n d) / sqrt(n (2 q + d (1 - d)))``.

    0 where numerator and denominator are both 0 (no discordant case at ``d = 0``), -/+inf where only
    the denominator is.
    """
    big_b = -b - c + (2 * n - b + c) * d
    big_c = -c * d * (1 - d)
    q = (math.sqrt(max(big_b * big_b - 8 * n * big_c, 0.0)) - big_b) / (4 * n)
    top = b - c - n * d
    spread = n * (2 * q + d * (1 - d))
    if spread <= 0:
        return 0.0 if top == 0 else math.copysign(math.inf, top)
    return top / math.sqrt(spread)


def _tango(b: int, c: int, n: int, z: float) -> tuple[float, float]:
    """Tango's limits for ``(b - c) / n``: the ``d`` where the score is ``z`` (low) and ``-z`` (high)."""

    def root(target: float) -> float:
        lo, hi = -1.0, 1.0
        while hi - lo > 1e-12:
            mid = (lo + hi) / 2
            if _tango_score(b, c, n, mid) > target:  # the score falls as d rises: the root is above mid
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low = -1.0 if c == n else root(z)
    high = 1.0 if b == n else root(-z)
    return low, high


EXACT_SIGN_N = 10_000  # above this many discordant cases the integer sum gets slow (0.04 s at 10,000)


def sign_test(better: int, worse: int) -> float:
    """Exact two-sided sign test p on the discordant cases; 1.0 when there are none.

    Under no difference each discordant case is equally likely to go either way, so ``better``
    is Binomial(better + worse, 1/2); the p is twice the smaller tail, capped at 1 (for p = 1/2
    the distribution is symmetric, so this equals ``scipy.stats.binomtest``'s two-sided p).

    Up to :data:`EXACT_SIGN_N` discordant cases the tail is summed in integers,
    ``2 * sum(C(n, i) for i <= min) / 2**n``, and rounded once: the correctly rounded p, with no
    scipy import (which cost a stage more time than its work). Beyond that it is
    ``scipy.stats.binom.cdf``, which agrees to about 1e-15 relative.

    >>> sign_test(2, 0)  # 2 * 0.5**2
    0.5
    >>> sign_test(0, 0)  # no discordant case: no evidence of any difference
    1.0
    """
    if better < 0 or worse < 0:
        raise ProportionError(f"sign_test: counts ({better}, {worse}) must be non-negative")
    n = better + worse
    if n == 0:
        return 1.0
    low = min(better, worse)
    if n > EXACT_SIGN_N:
        from scipy.stats import binom

        return float(min(1.0, 2.0 * binom.cdf(low, n, 0.5)))
    term = tail = 1  # C(n, 0)
    for i in range(low):
        term = term * (n - i) // (i + 1)  # C(n, i + 1), exact
        tail += term
    return min(1.0, 2 * tail / 2**n)


def mcnemar_exact(both: int, only_first: int, only_second: int, neither: int) -> tuple[float, float]:
    """``(statistic, p)`` of the exact McNemar test on ``[[both, only_first], [only_second, neither]]``.

    The statistic is ``min(only_first, only_second)`` and p is :func:`sign_test` on the discordant
    counts, exactly what ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True)``
    reports. With no discordant cases: ``(0.0, 1.0)``. The concordant counts do not enter.

    >>> mcnemar_exact(20, 0, 2, 9)
    (0.0, 0.5)
    """
    return float(min(only_first, only_second)), sign_test(only_second, only_first)
