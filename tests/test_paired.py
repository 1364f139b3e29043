"""Paired proportions: Newcombe's interval by hand and on a published example, its coverage with correlated
outcomes, the sign test and McNemar against scipy and statsmodels."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar

from assay.stats.paired import mcnemar_exact, paired_diff_ci, sign_test
from assay.stats.proportion import ProportionError

from conftest import Z95 as Z, hand_wilson



def hand_newcombe(a: int, b: int, c: int, d: int) -> tuple[float, float, float]:
    """Newcombe (1998) in his own orientation: theta = p1 - p2 with p1 = (a + b) / n, p2 = (a + c) / n,
    L = theta - sqrt(dl1^2 - 2 phi dl1 du2 + du2^2), U = theta + sqrt(du1^2 - 2 phi du1 dl2 + dl2^2),
    phi from A = ad - bc: (A - n/2) when A > n/2, 0 when 0 <= A <= n/2, A when A < 0, over sqrt(efgh)."""
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    (l1, u1), (l2, u2) = hand_wilson(a + b, n), hand_wilson(a + c, n)
    efgh = (a + b) * (c + d) * (a + c) * (b + d)
    big_a = a * d - b * c
    phi = 0.0 if efgh == 0 else (big_a - n / 2 if big_a > n / 2 else (0 if big_a >= 0 else big_a)) / math.sqrt(efgh)
    theta = p1 - p2
    low = theta - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    high = theta + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return theta, low, high


def test_published_example_cavo_2012():
    # Fagerland, Lydersen & Laake (2017), chapter 8: complete response before and after consolidation
    # therapy, table [[59, 6], [16, 80]]; Newcombe square-and-add: -0.0621 (95% CI -0.1186 to -0.0046)
    # for p_before - p_after. Our diff is p_second - p_first, so the signs flip.
    diff, low, high = paired_diff_ci(59, 6, 16, 80)
    assert (round(diff, 4), round(low, 4), round(high, 4)) == (0.0621, 0.0046, 0.1186)


@pytest.mark.parametrize("table", [(59, 6, 16, 80), (36, 12, 2, 0), (14, 5, 0, 22), (1, 1, 7, 12), (90, 3, 14, 93),
                                   (40, 0, 0, 0), (20, 0, 0, 20), (5, 0, 3, 0)])
def test_matches_the_hand_formula_from_the_marginal_wilson_limits(table):
    theta, low, high = hand_newcombe(*table)
    # ours is p_second - p_first: the negation of Newcombe's theta, with the limits swapped
    assert paired_diff_ci(*table) == pytest.approx((-theta, -high, -low), abs=1e-12)


def test_swapping_the_versions_mirrors_the_interval():
    diff, low, high = paired_diff_ci(50, 4, 11, 35)
    assert paired_diff_ci(50, 11, 4, 35) == pytest.approx((-diff, -high, -low), abs=1e-12)


def test_no_cases_and_all_concordant():
    assert all(math.isnan(x) for x in paired_diff_ci(0, 0, 0, 0))
    # every case concordant: the difference is 0 but the interval keeps width (phi shrunk by n/2
    # keeps it from collapsing when half pass and half fail)
    for table in ((10, 0, 0, 10), (30, 0, 0, 10), (40, 0, 0, 0), (0, 0, 0, 40)):
        diff, low, high = paired_diff_ci(*table)
        assert diff == 0 and low < -0.04 and high > 0.04 and low == pytest.approx(-high)
    # 40 of 40 pass in both: phi is undefined (empty margins) and taken as 0, so each side is the
    # distance from 1 to the Wilson lower limit of 40/40, 1 - 40 / (40 + z^2)
    assert paired_diff_ci(40, 0, 0, 0)[2] == pytest.approx(1 - 40 / (40 + Z * Z), abs=1e-12)


def test_bad_counts_raise():
    with pytest.raises(ProportionError, match="must be non-negative"):
        paired_diff_ci(3, -1, 0, 2)
    with pytest.raises(ProportionError, match="must be non-negative"):
        sign_test(-1, 2)


@given(st.tuples(*[st.integers(0, 60)] * 4).filter(lambda t: sum(t) > 0))
def test_bounds_within_minus_one_and_one(table):
    diff, low, high = paired_diff_ci(*table)
    assert -1.0 <= low <= diff <= high <= 1.0


@lru_cache(maxsize=None)
def _covers(table: tuple[int, int, int, int], delta: float) -> bool:
    _, low, high = paired_diff_ci(*table)
    return low <= delta <= high


@pytest.mark.parametrize("n", [57, 200])
@pytest.mark.parametrize("p_first, delta", [(0.75, -0.1), (0.75, 0.0), (0.75, 0.05), (0.75, 0.1),
                                            (0.85, 0.0), (0.85, 0.1)])
def test_coverage_with_correlated_outcomes(n, p_first, delta):
    # 80% of cases keep their outcome between versions; the 20% that change split so that
    # p_second - p_first = delta: P(only_second) - P(only_first) = delta, their sum 0.2.
    only_first, only_second = (0.2 - delta) / 2, (0.2 + delta) / 2
    both = p_first - only_first
    probs = [both, only_first, only_second, 0.8 - both]
    tables = np.random.default_rng(9001).multinomial(n, probs, size=1500)
    coverage = np.mean([_covers(tuple(map(int, t)), delta) for t in tables])
    assert coverage >= 0.93, f"n={n} p_first={p_first} delta={delta}: coverage {coverage:.3f}"


def test_sign_test_hand_and_scipy():
    assert sign_test(2, 0) == 0.5  # the evaluation-design notes: 2 better, 0 worse -> 2 * 0.5**2 = 0.5
    assert sign_test(0, 0) == 1.0  # no discordant pairs: no evidence, stated as 1.0
    # 8 vs 2: P(X <= 2 | n=10) = (1 + 10 + 45) / 1024; two-sided doubles it: 112 / 1024 = 0.109375
    assert sign_test(8, 2) == pytest.approx(112 / 1024, abs=1e-12)
    assert sign_test(5, 5) == 1.0  # the doubled tail exceeds 1: capped
    for better, worse in ((5, 1), (0, 7), (13, 11), (300, 250)):
        assert sign_test(better, worse) == pytest.approx(binomtest(better, better + worse, 0.5).pvalue, abs=1e-12)


@pytest.mark.parametrize("better, worse", [(4000, 4150), (3, 9000), (5000, 5000), (5200, 5001), (6000, 5000)])
def test_sign_test_on_either_side_of_the_exact_sum_matches_scipy(better, worse):
    from scipy.stats import binom

    from assay.stats.paired import EXACT_SIGN_N

    # 8,150 and 9,003 discordant cases are summed in integers, 10,201 and 11,000 go to scipy
    assert ((better + worse) > EXACT_SIGN_N) == ((better, worse) in ((5200, 5001), (6000, 5000)))
    expected = min(1.0, 2.0 * binom.cdf(min(better, worse), better + worse, 0.5))
    assert sign_test(better, worse) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert sign_test(better, worse) == pytest.approx(binomtest(better, better + worse, 0.5).pvalue, rel=1e-12, abs=1e-300)


@given(st.tuples(*[st.integers(0, 40)] * 4))
def test_mcnemar_matches_statsmodels_and_scipy(table):
    both, only_first, only_second, neither = table
    ref = mcnemar([[both, only_first], [only_second, neither]], exact=True)
    statistic, p = mcnemar_exact(*table)
    assert (statistic, p) == pytest.approx((ref.statistic, min(1.0, ref.pvalue)), abs=1e-12)
    assert statistic == min(only_first, only_second)  # the exact statistic is the smaller discordant count
    if only_first + only_second:
        assert p == pytest.approx(binomtest(only_second, only_first + only_second, 0.5).pvalue, abs=1e-12)
    else:
        assert (statistic, p) == (0.0, 1.0)
