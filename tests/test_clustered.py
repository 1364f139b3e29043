"""Shares over repeated runs (assay.stats.clustered): the cluster-robust standard error against statsmodels,
the interval's coverage by seeded simulation, pass^k and pass@k by exact enumeration, the paired t test on
case means against scipy, and the within-case share by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from assay.stats.clustered import cluster_se, clustered_share, paired_mean_diff, within_share
from assay.stats.proportion import ProportionError, proportion_ci


def _expand(successes, trials):
    """The runs behind per-case counts: one 0/1 value per run and its case's index."""
    y = np.concatenate([[1.0] * int(s) + [0.0] * int(m - s) for s, m in zip(successes, trials, strict=True)])
    groups = np.concatenate([[g] * int(m) for g, m in enumerate(trials)])
    return y, groups


@pytest.mark.parametrize("seed, k, unequal", [(0, 3, False), (1, 5, False), (2, 3, True), (3, 1, False)])
def test_the_standard_error_is_statsmodels_cluster_robust_ols_on_an_intercept(seed, k, unequal):
    """OLS when every case has k runs; with unequal runs per case, WLS with weights 1 / m_g (each case weighs
    the same: the mean of the per-case shares)."""
    import statsmodels.api as sm

    rng = np.random.default_rng(seed)
    n = 40
    trials = rng.integers(1, k + 1, n) if unequal else np.full(n, k)
    successes = rng.binomial(trials, rng.beta(2, 1, n))
    y, groups = _expand(successes, trials)
    weights = 1.0 / trials[groups]
    model = sm.WLS(y, np.ones_like(y), weights=weights) if unequal else sm.OLS(y, np.ones_like(y))
    fit = model.fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    share = clustered_share(successes, trials)
    assert share.value == pytest.approx(float(fit.params[0]), rel=1e-12)
    assert share.se == pytest.approx(float(fit.bse[0]), rel=1e-10)
    assert cluster_se(successes, trials) == pytest.approx(float(fit.bse[0]), rel=1e-10)
    assert share.se == pytest.approx(float(stats.sem(successes / trials)), rel=1e-10)  # the t standard error of the case means
    assert fit.df_resid_inference == n - 1  # statsmodels' t for the interval has G - 1 degrees of freedom, as ours


def test_the_interval_by_hand():
    # 4 cases of 3 runs: 3, 3, 2, 0 passes. p = 8/12; s - m p = 1, 1, 0, -2, squares sum 6;
    # CR1 variance 4/3 * 6 / 12**2 = 1/18; effective size (2/9) / (1/18) = 4, shrunk by (z / t_3)**2
    # (1.95996 / 3.18245)**2 = 0.37929 to 1.5172; Wilson at n = 1.5172 around 2/3.
    share = clustered_share([3, 3, 2, 0], [3, 3, 3, 3])
    assert share.se == pytest.approx(math.sqrt(1 / 18), rel=1e-12)
    z, t3 = 1.959963984540054, float(stats.t.ppf(0.975, 3))
    n_eff = 4 * (z / t3) ** 2
    assert share.n_eff == pytest.approx(n_eff, rel=1e-12)
    p = 2 / 3
    center = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z * math.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff**2)) / (1 + z * z / n_eff)
    assert (share.low, share.high) == pytest.approx((center - half, center + half), rel=1e-12)


def test_edges():
    # every run passes: no variance, so one trial per case (n 10) shrunk by (z / t_9)**2; Wilson's lower end
    # at p = 1 is n / (n + z**2)
    every = clustered_share([3] * 10, [3] * 10)
    z = 1.959963984540054
    n_eff = 10 * (z / float(stats.t.ppf(0.975, 9))) ** 2
    assert every.value == 1.0 and every.high == 1.0
    assert every.low == pytest.approx(n_eff / (n_eff + z * z), rel=1e-12)
    assert every.low < proportion_ci(10, 10)[0] < proportion_ci(30, 30)[0]  # never as narrow as 30 independent runs
    one_run = clustered_share([1, 0, 1, 1], [1, 1, 1, 1])
    assert one_run.value == 0.75 and one_run.runs == 4 and one_run.cases == 4
    assert math.isnan(clustered_share([], []).value)
    single = clustered_share([2], [3])
    assert single.value == pytest.approx(2 / 3) and math.isnan(single.low)
    skipped = clustered_share([2, 0, 1], [3, 0, 3])  # a case with no defined run is left out
    assert skipped.cases == 2 and skipped.runs == 6
    with pytest.raises(ProportionError, match="0 <= successes <= trials"):
        clustered_share([4], [3])


def test_within_share_by_hand():
    # cases (2 of 4) and (1 of 2): p = 3/6 = 0.5; within = 4 * 0.5 * 0.5 + 2 * 0.5 * 0.5 = 1.5 = total 6 * 0.25
    assert within_share([2, 1], [4, 2]) == pytest.approx(1.0)
    # (3 of 3), (0 of 3): the runs of each case agree, all the variance is between cases
    assert within_share([3, 0], [3, 3]) == 0.0
    # (3 of 4), (1 of 4): p = 0.5, within = 4 * 3/16 * 2 = 1.5 of total 8 * 0.25 = 2: 0.75
    assert within_share([3, 1], [4, 4]) == pytest.approx(0.75)
    assert math.isnan(within_share([1, 0], [1, 1]))  # one run per case: nothing varies within a case
    assert math.isnan(within_share([3, 3], [3, 3]))  # every run passes: no variance at all


def test_within_share_matches_the_anova_sums_of_squares():
    rng = np.random.default_rng(7)
    trials = rng.integers(2, 6, 30)
    successes = rng.binomial(trials, rng.beta(1, 1, 30))
    y, groups = _expand(successes, trials)
    means = np.bincount(groups, weights=y) / np.bincount(groups)
    within = float(np.sum((y - means[groups]) ** 2))
    total = float(np.sum((y - y.mean()) ** 2))
    assert within_share(successes, trials) == pytest.approx(within / total, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_paired_test_on_case_means_is_scipys(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.binomial(3, 0.6, 50) / 3, rng.binomial(5, 0.7, 50) / 5
    got = paired_mean_diff(a, b)
    ref = stats.ttest_rel(b, a)
    ci = ref.confidence_interval(0.95)
    assert got.diff == pytest.approx(float(np.mean(b - a)), rel=1e-12)
    assert (got.statistic, got.p) == pytest.approx((float(ref.statistic), float(ref.pvalue)), rel=1e-12)
    assert (got.low, got.high) == pytest.approx((float(ci.low), float(ci.high)), rel=1e-12)
    one_sample = stats.ttest_1samp(b - a, 0.0)  # the same test as a one-sample t on the differences
    assert got.p == pytest.approx(float(one_sample.pvalue), rel=1e-12)


def test_the_paired_test_with_no_spread():
    same = paired_mean_diff([0.5, 1.0], [0.5, 1.0])
    assert (same.diff, same.low, same.high) == (0.0, 0.0, 0.0) and math.isnan(same.p)
    assert math.isnan(paired_mean_diff([1.0], [0.0]).low)


#: Per-case pass probabilities around release thresholds (mean 0.8, 0.9, 0.95), from spread out (many
#: cases always or never passing) to concentrated (every case alike, the runs decide).
BETAS = [(4.0, 1.0), (2.0, 0.2), (45.0, 5.0), (9.5, 0.5), (19.0, 1.0)]
REPS = 600


def test_the_mean_over_runs_covers_by_seeded_simulation():
    """Coverage of the 95% interval of the mean over runs, at k in {1, 3, 5} and n in {50, 200}: each cell
    draws per-case probabilities from the Beta, then k runs per case, REPS times (seeded). The Monte Carlo
    standard error at 0.95 is 0.009, so a cell below 0.925 would be a real shortfall; the mean over the
    cells must be at least 0.945."""
    rng = np.random.default_rng(20261203)
    covered = {}
    for a, b in BETAS:
        mu = a / (a + b)
        for n in (50, 200):
            for k in (1, 3, 5):
                p = rng.beta(a, b, size=(REPS, n))
                s = rng.binomial(k, p)
                m = np.full(n, k)
                hits = 0
                for r in range(REPS):
                    share = clustered_share(s[r], m)
                    hits += share.low <= mu <= share.high
                covered[(a, b, n, k)] = hits / REPS
    worst = min(covered, key=covered.__getitem__)
    assert covered[worst] >= 0.925, (worst, covered[worst])
    assert np.mean(list(covered.values())) >= 0.945


def _binomial_coverage(q: float, n: int, method: str) -> float:
    pmf = stats.binom.pmf(np.arange(n + 1), n, q)
    hit = [lo <= q <= hi for lo, hi in (proportion_ci(x, n, method) for x in range(n + 1))]
    return float(np.sum(pmf[hit]))


def test_pass_k_and_pass_at_k_cover_by_exact_enumeration():
    """Cases are independent, so the number passing all k runs is Binomial(n, E[p^k]) and the number passing
    one is Binomial(n, 1 - E[(1 - p)^k]): the proportion interval's coverage is a sum over that binomial.

    Clopper-Pearson (what the gate's one-sided bound is) covers everywhere. Wilson (``rag.interval``'s
    default) covers pass^k at 0.92 or more in every cell, and pass@k wherever at least one case is expected
    to fail every run; pass@k nearer 1 than that is where Wilson falls short (0.878 at n 200, q 0.9994),
    a stated limit (docs/plug-in.md), not hidden."""
    for a, b in BETAS:
        for k in (1, 3, 5):
            # E[p^k] and E[(1-p)^k] of a Beta(a, b): prod (a + i) / (a + b + i) over i < k
            all_k = math.prod((a + i) / (a + b + i) for i in range(k))
            none_k = math.prod((b + i) / (a + b + i) for i in range(k))
            for reading, q in (("pass^k", all_k), ("pass@k", 1 - none_k)):
                for n in (50, 200):
                    assert _binomial_coverage(q, n, "clopper-pearson") >= 0.95, (a, b, k, n, reading)
                    if reading == "pass^k" or n * min(q, 1 - q) >= 1:
                        assert _binomial_coverage(q, n, "wilson") >= 0.92, (a, b, k, n, reading)
    assert _binomial_coverage(1 - math.prod((1 + i) / (20 + i) for i in range(3)), 200, "wilson") < 0.9
