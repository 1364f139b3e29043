"""Proportion intervals: exact coverage over the binomial, hand Wilson, scipy's exact and score intervals."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import beta, binom, binomtest, norm

from assay.stats.proportion import INTERVAL_METHODS, ProportionError, proportion_ci

from conftest import Z95 as Z, hand_wilson



def exact_coverage(interval, p: float, n: int) -> float:
    """P(interval covers p) when k ~ Binomial(n, p): the sum of pmf(k) over the k whose interval covers p."""
    return sum(binom.pmf(k, n, p) for k in range(n + 1) if interval(k, n)[0] <= p <= interval(k, n)[1])


CELLS = [(p, n) for p in (0.5, 0.7, 0.9, 0.97) for n in (20, 57, 200)]


@pytest.mark.parametrize("method", INTERVAL_METHODS)
@pytest.mark.parametrize("p, n", CELLS)
def test_exact_coverage_at_least_093(method, p, n):
    cover = exact_coverage(lambda k, m: proportion_ci(k, m, method), p, n)
    assert cover >= 0.93, f"{method} covers p={p} at n={n} only {cover:.4f}"
    if method == "clopper-pearson":  # the exact interval never covers less than the nominal level
        assert cover >= 0.95


def percentile_bootstrap(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap of a 0/1 sample with infinitely many resamples: a resampled mean
    of k ones in n is Binomial(n, k/n) / n, so its percentiles are binomial quantiles over n."""
    tail = (1 - level) / 2
    return (binom.ppf(tail, n, k / n) / n, binom.ppf(1 - tail, n, k / n) / n)


def test_percentile_bootstrap_under_covers_where_thresholds_live():
    # why proportions do not use a percentile bootstrap: at p = 0.97, n = 20 the sample is 20 of 20
    # with probability 0.97**20 = 0.544, and then every resample is 20 of 20: the interval is
    # [1, 1] and misses 0.97. Coverage is at most 1 - 0.544 = 0.456; Wilson gives >= 0.93 here.
    assert percentile_bootstrap(20, 20) == (1.0, 1.0)
    assert exact_coverage(percentile_bootstrap, 0.97, 20) <= 1 - 0.97 ** 20 + 1e-12
    assert exact_coverage(percentile_bootstrap, 0.97, 20) < 0.5
    assert exact_coverage(lambda k, n: proportion_ci(k, n), 0.97, 20) >= 0.93


def test_twenty_of_twenty_wilson_lower_bound():
    low, high = proportion_ci(20, 20)
    # with p = 1 the Wilson lower limit reduces to n / (n + z^2) = 20 / (20 + 1.95996^2) = 0.83888
    assert low == pytest.approx(20 / (20 + Z * Z), abs=1e-12)
    assert low == pytest.approx(hand_wilson(20, 20)[0], abs=1e-12)
    assert round(low, 3) == 0.839 and high == 1.0


@pytest.mark.parametrize("k, n", [(0, 1), (0, 20), (3, 10), (27, 31), (31, 31), (150, 200), (1, 100000)])
def test_wilson_matches_hand_formula_and_scipy(k, n):
    ours = proportion_ci(k, n, "wilson")
    assert ours == pytest.approx(hand_wilson(k, n), abs=1e-12)
    ref = binomtest(k, n).proportion_ci(0.95, method="wilson")
    assert ours == pytest.approx((ref.low, ref.high), abs=1e-12)


@pytest.mark.parametrize("k, n", [(0, 20), (3, 10), (27, 31), (31, 31), (150, 200)])
def test_clopper_pearson_matches_beta_quantiles_and_scipy(k, n):
    low, high = proportion_ci(k, n, "clopper-pearson")
    # Clopper-Pearson: Beta(k, n - k + 1) at 0.025 and Beta(k + 1, n - k) at 0.975; 0 and 1 at the ends
    hand_low = 0.0 if k == 0 else beta.ppf(0.025, k, n - k + 1)
    hand_high = 1.0 if k == n else beta.ppf(0.975, k + 1, n - k)
    assert (low, high) == pytest.approx((hand_low, hand_high), abs=1e-10)
    ref = binomtest(k, n).proportion_ci(0.95, method="exact")
    assert (low, high) == pytest.approx((ref.low, ref.high), abs=1e-10)


def test_level_changes_the_width():
    narrow, wide = proportion_ci(7, 10, level=0.8), proportion_ci(7, 10, level=0.99)
    assert wide[0] < narrow[0] < 0.7 < narrow[1] < wide[1]
    assert narrow == pytest.approx(hand_wilson(7, 10, norm.ppf(0.9)), abs=1e-12)


def test_no_trials_is_nan_and_bad_arguments_raise():
    for method in INTERVAL_METHODS:
        assert all(math.isnan(x) for x in proportion_ci(0, 0, method))
    with pytest.raises(ProportionError, match="'bootstrap' is not one of wilson, clopper-pearson"):
        proportion_ci(1, 2, "bootstrap")  # type: ignore[arg-type]
    with pytest.raises(ProportionError, match="3 successes in 2 trials"):
        proportion_ci(3, 2)
    with pytest.raises(ProportionError, match="level 95"):
        proportion_ci(1, 2, level=95)


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.sampled_from(INTERVAL_METHODS))
def test_interval_holds_the_estimate_within_0_1(kn, method):
    k, n = kn
    low, high = proportion_ci(k, n, method)
    assert 0.0 <= low <= k / n <= high <= 1.0
    assert (low == 0.0) == (k == 0) and (high == 1.0) == (k == n)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99, 0.999, 0.5, 0.75])
def test_wilson_gives_statsmodels_bits(level):
    # the Wilson interval is written out here to spare every stage the statsmodels import; it must
    # be the same floats, not merely close, or committed metrics would change
    from statsmodels.stats.proportion import proportion_confint

    grid = [(k, n) for n in range(1, 80) for k in range(n + 1)] + [(k, 100_003) for k in (0, 1, 7, 50_001, 85_011, 100_003)]
    for k, n in grid:
        low, high = proportion_confint(k, n, alpha=1 - level, method="wilson")
        expected = (0.0 if k == 0 else max(0.0, float(low)), 1.0 if k == n else min(1.0, float(high)))
        assert proportion_ci(k, n, "wilson", level) == expected, (k, n, level)


def test_critical_z_table_is_scipys_ndtri():
    from scipy.special import ndtri

    from assay.stats.proportion import _Z, critical_z

    for level, z in _Z.items():
        assert z == float(-ndtri((1 - level) / 2.0)) == critical_z(level)
    assert critical_z(0.75) == float(-ndtri(0.125)) == pytest.approx(norm.isf(0.125), abs=1e-15)
