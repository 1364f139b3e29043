"""assay.stats.decision: one-sided Clopper-Pearson bounds against statsmodels, their coverage by exact
enumeration, the exact pass probability against a sum of scipy.stats.binom terms, and the look spending."""

import math

import numpy as np
import pytest
from scipy.stats import binom
from statsmodels.stats.proportion import proportion_confint

from assay.stats.decision import (DecisionError, alpha_spent, least_n, look_alpha, one_sided_bound, pass_probability,
                                  passes, passing_counts)

SIZES = (1, 6, 14, 48, 58, 72, 200)
ALPHAS = (0.05, 0.025, 0.0125)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("n", SIZES)
def test_bounds_are_the_ends_of_statsmodels_beta_interval_at_twice_alpha(n, alpha):
    # a one-sided bound at alpha is the matching end of the equal-tailed Clopper-Pearson interval at level 1 - 2 alpha
    for k in range(n + 1):
        low, high = proportion_confint(k, n, alpha=2 * alpha, method="beta")
        assert one_sided_bound(k, n, alpha, "higher") == pytest.approx(float(low), abs=1e-12)
        assert one_sided_bound(k, n, alpha, "lower") == pytest.approx(float(high), abs=1e-12)


@pytest.mark.parametrize("n", (5, 14, 58, 150))
def test_lower_bound_is_above_the_truth_at_most_alpha_by_exact_enumeration(n):
    alpha = 0.05
    bounds = np.array([one_sided_bound(k, n, alpha) for k in range(n + 1)])
    ups = np.array([one_sided_bound(k, n, alpha, "lower") for k in range(n + 1)])
    worst_low = worst_up = 0.0
    for p in np.linspace(0.001, 0.999, 999):
        pmf = binom.pmf(np.arange(n + 1), n, p)
        worst_low = max(worst_low, float(pmf[bounds > p].sum()))
        worst_up = max(worst_up, float(pmf[ups < p].sum()))
    assert worst_low <= alpha + 1e-12 and worst_up <= alpha + 1e-12


def test_pass_probability_is_the_binomial_sum_over_the_counts_statsmodels_passes():
    # hand computation: sum binom.pmf(k) over every k whose statsmodels lower bound (alpha 2a) meets the threshold
    for n, t, a in ((58, 0.85, 0.0125), (48, 0.9, 0.025), (14, 0.5, 0.05), (72, 0.99, 0.05)):
        ok = [k for k in range(n + 1) if proportion_confint(k, n, alpha=2 * a, method="beta")[0] >= t]
        for p in (t - 0.05, t, min(1.0, t + 0.05)):
            hand = sum(binom.pmf(k, n, p) for k in ok)
            assert pass_probability(n, p, t, a) == pytest.approx(hand, abs=1e-12)
        # at the threshold the bound rule passes with chance at most its level
        assert pass_probability(n, t, t, a) <= a


def test_upper_side_pass_probability_for_lower_is_better_metrics():
    # lower is better: passes when the upper bound is <= t; hand sum over the counts statsmodels' upper end allows
    # (at n 58 not even 0 of 58 passes: its upper bound is 1 - 0.0125 ** (1 / 58) = 0.073 > 0.05)
    for n, t, a, edge in ((58, 0.05, 0.0125, None), (200, 0.05, 0.0125, 3)):
        ok = [k for k in range(n + 1) if proportion_confint(k, n, alpha=2 * a, method="beta")[1] <= t]
        assert passing_counts(n, t, a, "lower") == edge and ok == ([] if edge is None else list(range(edge + 1)))
        for p in (0.0, 0.01, 0.05, 0.1):
            assert pass_probability(n, p, t, a, "lower") == pytest.approx(sum(binom.pmf(k, n, p) for k in ok), abs=1e-12)


def test_the_estimate_rule_and_its_false_pass_rate():
    # 6 cases, threshold 1: the estimate passes only 6 of 6, chance p ** 6: 0.95 ** 6 = 0.7351 (the 74%)
    assert pass_probability(6, 0.95, 1.0, 0.05, rule="estimate") == pytest.approx(0.95 ** 6, abs=1e-14)
    # answer_correct at n 58, threshold 0.85: the estimate needs k >= 49.3, so 50; 0.05 below: P(X >= 50 | 0.8)
    assert passing_counts(58, 0.85, 0.05, rule="estimate") == 50
    assert pass_probability(58, 0.8, 0.85, 0.05, rule="estimate") == pytest.approx(binom.sf(49, 58, 0.8), abs=1e-14)
    assert pass_probability(58, 0.85, 0.85, 0.05, rule="estimate") > 0.4  # at the threshold: a coin toss, not alpha


def test_least_n_is_where_all_passing_first_clears_the_threshold():
    for t, a in ((0.99, 0.05), (0.9, 0.0125), (0.85, 0.025), (0.5, 0.05)):
        n = least_n(t, a)
        # n of n has lower bound alpha ** (1 / n) (statsmodels' beta end at alpha 2a)
        assert proportion_confint(n, n, alpha=2 * a, method="beta")[0] >= t
        assert n == 1 or proportion_confint(n - 1, n - 1, alpha=2 * a, method="beta")[0] < t
        assert n == math.ceil(math.log(a) / math.log(t))
    assert least_n(1.0, 0.05) is None and passing_counts(1000, 1.0, 0.05) is None
    assert least_n(0.01, 0.05, "lower") == math.ceil(math.log(0.05) / math.log(0.99))


def test_looks_spend_at_most_alpha():
    assert [look_alpha(0.05, k) for k in (1, 2, 3)] == [0.025, 0.0125, 0.00625]
    assert alpha_spent(0.05, 0) == 0 and alpha_spent(0.05, 60) <= 0.05
    assert alpha_spent(0.05, 3) == pytest.approx(0.05 * (1 - 2 ** -3), abs=1e-15)


def test_bad_arguments_are_refused():
    with pytest.raises(DecisionError, match="not a proportion"):
        one_sided_bound(5, 4, 0.05)
    with pytest.raises(DecisionError, match="alpha"):
        one_sided_bound(1, 4, 1.5)
    with pytest.raises(DecisionError, match="look 0"):
        look_alpha(0.05, 0)
    with pytest.raises(DecisionError, match="true rate"):
        pass_probability(4, 1.2, 0.5, 0.05)
    assert math.isnan(one_sided_bound(0, 0, 0.05)) and not passes(0, 0, 0.0, 0.05)
