"""Paired proportions: Tango's score interval (the default) against Yang, Sun and Hardin's closed form and by
hand, its coverage by exact enumeration where changes go one way; Newcombe's interval by hand and on a published
example; the sign test and McNemar against scipy and statsmodels."""

from __future__ import annotations

import math
from functools import cache

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
    diff, low, high = paired_diff_ci(59, 6, 16, 80, method="newcombe")
    assert (round(diff, 4), round(low, 4), round(high, 4)) == (0.0621, 0.0046, 0.1186)


@pytest.mark.parametrize("table", [(59, 6, 16, 80), (36, 12, 2, 0), (14, 5, 0, 22), (1, 1, 7, 12), (90, 3, 14, 93),
                                   (40, 0, 0, 0), (20, 0, 0, 20), (5, 0, 3, 0)])
def test_matches_the_hand_formula_from_the_marginal_wilson_limits(table):
    theta, low, high = hand_newcombe(*table)
    # ours is p_second - p_first: the negation of Newcombe's theta, with the limits swapped
    assert paired_diff_ci(*table, method="newcombe") == pytest.approx((-theta, -high, -low), abs=1e-12)


@pytest.mark.parametrize("method", ["tango", "newcombe"])
def test_swapping_the_versions_mirrors_the_interval(method):
    diff, low, high = paired_diff_ci(50, 4, 11, 35, method=method)
    assert paired_diff_ci(50, 11, 4, 35, method=method) == pytest.approx((-diff, -high, -low), abs=1e-11)


def yang_sun_hardin(n: int, b: int, c: int) -> tuple[float, float]:
    """Tango's limits for (b - c) / n without iteration: the smallest and largest real roots of the quartic
    m0 d^4 + m1 d^3 + m2 d^2 + m3 d + m4 that squaring T(d) = -/+z gives (Yang, Sun and Hardin, "A
    non-iterative implementation of Tango's score confidence interval for a paired difference of proportions",
    Stat Med 2013, doi:10.1002/sim.5561, appendix; g = z^2). An independent algorithm: numpy's companion-matrix roots, no bisection."""
    g = Z * Z
    m = [n**2 * (n / g + 1) ** 2,
         -n * (b - c) * (n / g + 1) * (4 * n / g + 1),
         2 * n * (b - c) ** 2 * (3 * n / g + 2) / g - n**2 * ((b + c) / g + 1),
         n * (b - c) * (2 * (b + c) / g + 1) - (b - c) ** 3 * (4 * n / g + 1) / g,
         (b - c) ** 2 * ((b - c) ** 2 / g - (b + c)) / g]
    roots = np.roots(m)
    real = sorted(r.real for r in roots if abs(r.imag) < 1e-7)
    return real[0], real[-1]


@pytest.mark.parametrize("table", [(59, 6, 16, 80), (36, 12, 2, 0), (1, 1, 7, 12), (90, 3, 14, 93), (190, 0, 4, 6),
                                   (10, 3, 3, 10), (5, 0, 3, 0), (0, 2, 9, 9), (100, 1, 0, 99)])
def test_tango_matches_the_closed_form(table):
    both, only_first, only_second, neither = table
    n = sum(table)
    diff, low, high = paired_diff_ci(*table)
    assert diff == (only_second - only_first) / n
    assert (low, high) == pytest.approx(yang_sun_hardin(n, only_second, only_first), abs=1e-9)


def test_tango_by_hand():
    # Bentur et al. (2009), as Fagerland, Lydersen and Laake use it: table [[1, 1], [7, 12]], here both 1,
    # only_first 1, only_second 7, neither 12 (n 21). Our limits for p_second - p_first: 0.02600 to 0.51723, so
    # Fagerland's orientation (p_first - p_second) reads -0.5172 to -0.0260 around -0.2857. Checked by hand at
    # the lower limit d = 0.026003 with b = 7, c = 1:
    #   B = -7 - 1 + (42 - 7 + 1) * 0.026003 = -7.06389;  C = -1 * 0.026003 * 0.973997 = -0.025327
    #   q = (sqrt(B^2 - 8 * 21 * C) - B) / (4 * 21) = (sqrt(49.8985 + 4.2549) + 7.06389) / 84 = 0.171700
    #   T = (7 - 1 - 21 * 0.026003) / sqrt(21 * (2 * 0.171700 + 0.026003 * 0.973997)) = 5.45394 / sqrt(7.74326)
    #     = 5.45394 / 2.78267 = 1.95996 = z
    # (These are not compared with Fagerland's printed table, which this environment could not open.)
    diff, low, high = paired_diff_ci(1, 1, 7, 12)
    assert (round(diff, 4), round(low, 4), round(high, 4)) == (0.2857, 0.026, 0.5172)
    b, c, n, d = 7, 1, 21, low
    big_b, big_c = -b - c + (2 * n - b + c) * d, -c * d * (1 - d)
    q = (math.sqrt(big_b**2 - 8 * n * big_c) - big_b) / (4 * n)
    assert (b - c - n * d) / math.sqrt(n * (2 * q + d * (1 - d))) == pytest.approx(Z, abs=1e-9)
    assert round(q, 6) == 0.1717
    # no discordant case: n d = z^2 (1 - d), so the limits are -/+ z^2 / (n + z^2)
    for n in (20, 57, 200):
        assert paired_diff_ci(n // 2, 0, 0, n - n // 2)[1:] == pytest.approx((-Z * Z / (n + Z * Z), Z * Z / (n + Z * Z)),
                                                                              abs=1e-11)


def test_unknown_method_is_named():
    with pytest.raises(ProportionError, match="'wald' is not one of tango, newcombe"):
        paired_diff_ci(3, 1, 0, 2, method="wald")


def _log_multinomial(counts: np.ndarray, probs) -> np.ndarray:
    """log P(counts) under a multinomial; a cell of probability 0 allows only count 0."""
    from scipy.special import gammaln

    n = counts.sum(axis=1)
    out = gammaln(n + 1)
    for j, p in enumerate(probs):
        k = counts[:, j]
        out = out - gammaln(k + 1) + (np.where(k > 0, k * np.log(p), 0.0) if p > 0 else np.where(k > 0, -np.inf, 0.0))
    return out


@cache
def _tango_limits(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (better, worse) with better + worse <= n, and the library's Tango limits for each."""
    pairs = np.array([(b, c) for b in range(n + 1) for c in range(n + 1 - b)])
    limits = np.array([paired_diff_ci(0, int(c), int(b), n - int(b) - int(c))[1:] for b, c in pairs])
    return pairs, limits[:, 0], limits[:, 1]


DISCORDANT = [round(0.0025 * i, 4) for i in range(81)]  # 0 to 20% in steps of 0.25%


def tango_coverage(n: int, improve: float, regress: float) -> float:
    """Exact coverage: Tango depends only on the discordant counts, (better, worse, rest) ~ Multinomial(n)."""
    pairs, low, high = _tango_limits(n)
    counts = np.column_stack([pairs, n - pairs.sum(axis=1)])
    prob = np.exp(_log_multinomial(counts, (improve, regress, 1 - improve - regress)))
    truth = improve - regress
    return float(prob[(low <= truth + 1e-12) & (truth - 1e-12 <= high)].sum())


def test_tango_covers_one_way_and_mixed_changes_by_exact_enumeration():
    # the grid of issue 23: n 20, 57, 200; improvements only, regressions only, mixed; 0-20% discordant.
    # p_first (.5, .7, .9) does not enter Tango's interval, only which cells exist: 20% improving needs
    # p_first <= .8, so every discordant share here is reachable with p_first .5 or .7.
    worst = (2.0, (0, "", 0.0))
    for n in (20, 57, 200):
        for share in DISCORDANT:
            for kind, (improve, regress) in (("improve", (share, 0.0)), ("regress", (0.0, share)),
                                             ("mixed", (share / 2, share / 2))):
                cover = tango_coverage(n, improve, regress)
                worst = min(worst, (cover, (n, kind, share)))
    print(f"\nTango worst exact coverage {worst}")
    assert worst[0] >= 0.93, worst
    assert worst[0] == pytest.approx(0.9318, abs=5e-4)  # n = 57, 9.75% improving, none regressing


def test_newcombe_under_covers_a_few_improvements_and_no_regression():
    # the audit's cell: n = 200, 2% of cases improve and none regress. Newcombe depends on the whole table, so
    # enumerate (both, only_second, neither) with only_first = 0, for p_first .5, .7 and .9
    n, improve = 200, 0.02
    tables = np.array([(a, b, n - a - b) for a in range(n + 1) for b in range(n + 1 - a)])
    worst = 1.0
    for p_first in (0.5, 0.7, 0.9):
        prob = np.exp(_log_multinomial(tables, (p_first, improve, 1 - p_first - improve)))
        hits = np.array([(lambda d, lo, hi: lo <= improve <= hi)(*paired_diff_ci(int(a), 0, int(b), int(c),
                                                                                  method="newcombe"))
                         for a, b, c in tables])
        worst = min(worst, float(prob[hits].sum()))
    assert worst < 0.92
    assert tango_coverage(n, improve, 0.0) >= 0.93


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


@cache
def _covers(table: tuple[int, int, int, int], delta: float) -> bool:
    _, low, high = paired_diff_ci(*table, method="newcombe")
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


def test_tango_enumeration_helper_is_the_library():
    # tests/tango_enumeration.py's vectorised Tango (written again from the paper) equals paired_diff_ci
    from tango_enumeration import limits

    for n in (10, 57, 122):
        b, c, low, high = limits(n)
        for i in range(0, b.size, max(1, b.size // 200)):
            _, lo, hi = paired_diff_ci(0, int(c[i]), int(b[i]), n - int(b[i]) - int(c[i]))
            assert (low[i], high[i]) == pytest.approx((lo, hi), abs=1e-9)


def test_tango_worst_cells_over_every_n_from_10_to_300():
    # benchmarks/bench_tango.py enumerates every n from 10 to 300 (improving only and mixed, 0.25-20% discordant in
    # steps of 0.25%); its worst cells, re-enumerated here, are the ones paired_diff_ci's docstring states
    from tango_enumeration import coverage

    worst = coverage(122, 0.045, 0.0)
    assert worst.two_sided == pytest.approx(0.9263, abs=5e-5)
    assert coverage(204, 0.02, 0.0).lower == pytest.approx(0.9458, abs=5e-5)
    # the same two statistics by seeded simulation of the library's interval (another route to the same number)
    rng = np.random.default_rng(122)
    draws = rng.multinomial(122, [0.045, 0.0, 0.955], size=4_000)
    hits = [paired_diff_ci(0, int(c), int(b), int(r))[1] <= 0.045 <= paired_diff_ci(0, int(c), int(b), int(r))[2]
            for b, c, r in draws]
    assert np.mean(hits) == pytest.approx(worst.two_sided, abs=0.012)
