"""The order-statistic interval for a quantile: exact coverage from the binomial, and a simulation."""

import math

import numpy as np
import pytest
from scipy.stats import binom

from assay.stats.quantile import quantile_ci


@pytest.mark.parametrize("n", [100, 200, 400])
def test_exact_coverage_of_the_ranks_chosen(n):
    # The interval [x_(l), x_(u)] covers the true q-quantile exactly when l <= B < u for
    # B ~ Binomial(n, q), the number of values below it: coverage = F(u - 1) - F(l - 1).
    q = 0.95
    x = np.arange(1, n + 1, dtype=float)  # x_(i) = i, so the bounds give back the ranks
    low, high = quantile_ci(x, q)
    coverage = binom.cdf(high - 1, n, q) - binom.cdf(low - 1, n, q)
    assert coverage >= 0.95


def test_coverage_by_simulation_on_a_skewed_distribution():
    rng = np.random.default_rng(7)
    truth = -math.log(0.05)  # p95 of Exponential(1)
    hits = trials = 0
    for _ in range(2000):
        low, high = quantile_ci(rng.exponential(size=200), 0.95)
        trials += 1
        hits += low <= truth <= high
    assert hits / trials >= 0.93


def test_small_samples_give_no_upper_bound():
    assert math.isnan(quantile_ci(np.arange(30.0), 0.95)[1])
