"""Paired proportions on the same cases: the difference with Newcombe's hybrid score interval,
the exact sign test and the exact McNemar test.

Counts: ``both`` (success under both), ``only_first``, ``only_second``, ``neither``.
"""

from __future__ import annotations

import math

from assay.stats.proportion import proportion_ci


def paired_diff_ci(both: int, only_first: int, only_second: int, neither: int,
                   level: float = 0.95) -> tuple[float, float, float]:
    """``(diff, low, high)`` for ``diff = p_second - p_first``, Newcombe (1998) method 10.

    Wilson limits of each marginal combined with the phi correlation of the 2x2 table (phi is 0
    when its denominator is 0). No cases gives ``(nan, nan, nan)``.

    >>> [round(x, 3) for x in paired_diff_ci(40, 2, 8, 10)]
    [0.1, -0.001, 0.202]
    """
    a, b, c, d = both, only_first, only_second, neither
    n = a + b + c + d
    if n == 0:
        return (math.nan, math.nan, math.nan)
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = proportion_ci(a + b, n, "wilson", level)
    l2, u2 = proportion_ci(a + c, n, "wilson", level)
    den = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / math.sqrt(den) if den > 0 else 0.0
    diff = p2 - p1
    low = diff - math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    high = diff + math.sqrt(max(0.0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return (diff, max(-1.0, low), min(1.0, high))


def sign_test(better: int, worse: int) -> float:
    """Two-sided exact sign test p on the discordant pairs; 1.0 when there are none."""
    if better + worse == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(better, better + worse, 0.5, alternative="two-sided").pvalue)


def mcnemar_exact(both_pass: int, worse: int, better: int, both_fail: int) -> tuple[float, float]:
    """``(statistic, p)`` of the exact McNemar test, as statsmodels' ``mcnemar(exact=True)`` gives it.

    The exact McNemar p is the exact two-sided sign test on the discordant pairs (capped at 1);
    the statistic is the smaller discordant count. Concordant counts do not enter.
    """
    return float(min(worse, better)), min(1.0, sign_test(better, worse))
