import math

import numpy as np
import pytest
from scipy import stats

from assay.stats.bootstrap import bootstrap_ci


def test_empty_and_constant_samples():
    assert all(math.isnan(x) for x in bootstrap_ci([]))
    assert bootstrap_ci([1, 1, 1]) == (1.0, 1.0)
    assert bootstrap_ci([0.25, 0.25]) == (0.25, 0.25)


def test_binary_fast_path_matches_scipy_percentile_bootstrap():
    # the Binomial(n, p_hat) / n draw has the distribution of a resampled mean of 0/1 data;
    # scipy resamples explicitly, so the two intervals agree up to Monte Carlo error
    x = np.array([1] * 31 + [0] * 9)
    ours = bootstrap_ci(x, resamples=20000, seed=1)
    ref = stats.bootstrap((x,), np.mean, n_resamples=20000, method="percentile", random_state=2).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=0.026)  # one step of 1/40


def test_general_values_match_scipy_percentile_bootstrap():
    x = np.random.default_rng(0).normal(10, 2, size=300)
    ours = bootstrap_ci(x, resamples=5000, seed=3)
    ref = stats.bootstrap((x,), np.mean, n_resamples=5000, method="percentile", random_state=4).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=0.05)
    # and both sit near the normal-theory interval mean +- 1.96 sd / sqrt(n)
    half = 1.96 * x.std(ddof=1) / math.sqrt(x.size)
    assert ours == pytest.approx((x.mean() - half, x.mean() + half), abs=0.06)


def test_same_seed_same_interval():
    x = [0, 1, 1, 0, 1]
    assert bootstrap_ci(x, 500, 7) == bootstrap_ci(x, 500, 7)
