"""Means: the betting interval for bounded values (by hand at its limits, coverage by seeded simulation on
skewed per-query measures) and Student's t against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from assay.stats.mean import BET_CAP, MeanError, mean_ci


def hand_log_capitals(values, m: float, alpha: float = 0.05, running: bool = False) -> tuple[float, float]:
    """(log K+, log K-) at candidate mean m, one value at a time (Waudby-Smith and Ramdas' hedged capital
    with the fixed-n bets sqrt(2 log(2/alpha) / (n s2)), s2 the running variance with a pseudo-value 1/2);
    with running, each side's largest value over t = 1..n instead of its last."""
    n = len(values)
    total, squares, s2 = 0.5, 0.25, 0.25
    up = down = 0.0
    up_max = down_max = -math.inf
    for i, x in enumerate(values, start=1):
        bet = math.sqrt(2 * math.log(2 / alpha) / (n * s2))
        up += math.log(1 + min(bet, BET_CAP / m if m > 0 else math.inf) * (x - m))
        down += math.log(1 - min(bet, BET_CAP / (1 - m) if m < 1 else math.inf) * (x - m))
        up_max, down_max = max(up_max, up), max(down_max, down)
        total += x
        squares += (x - total / (i + 1)) ** 2
        s2 = squares / (i + 1)
    return (up_max, down_max) if running else (up, down)


def hand_log_capital(values, m: float, alpha: float = 0.05, running: bool = False) -> float:
    """max(log K+, log K-) at m (see hand_log_capitals)."""
    return max(hand_log_capitals(values, m, alpha, running))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("method", ["betting", "betting_final"])
def test_the_betting_limits_are_where_the_capital_reaches_one_over_alpha(seed, method):
    # betting: the running maximum of the capital over t = 1..n reaches 2 / alpha (Ville's inequality);
    # betting_final: the capital at t = n does (Markov's inequality)
    running = method == "betting"
    rng = np.random.default_rng(seed)
    x = np.where(rng.random(30) < 0.6, 1.0, rng.random(30))
    low, high = mean_ci(x, bounds=(0.0, 1.0), method=method)
    threshold = math.log(2 / 0.05)  # max(K+, K-) / 2 >= 20
    assert low < x.mean() < high
    for limit, step in ((low, -1e-7), (high, 1e-7)):
        if 0 < limit < 1:
            assert hand_log_capital(list(x), limit, running=running) < threshold
            assert threshold <= hand_log_capital(list(x), limit + step, running=running)


def test_the_running_intersection_is_inside_the_final_interval():
    # the running maximum is at least the last value, so every m the final capital rejects is rejected
    rng = np.random.default_rng(11)
    narrower = 0
    for n in (10, 40, 200):
        for _ in range(20):
            x = rng.beta(0.5, 2.0, n)
            low, high = mean_ci(x, bounds=(0.0, 1.0))
            low_f, high_f = mean_ci(x, bounds=(0.0, 1.0), method="betting_final")
            assert low_f - 1e-9 <= low <= x.mean() <= high <= high_f + 1e-9
            narrower += (high - low) < (high_f - low_f) - 1e-6
    assert narrower >= 30  # strictly narrower in most samples, not only equal


def test_a_mean_outside_the_running_intersection_is_reported_as_a_limit():
    # 6 ones then 20 zeros (values in an order no i.i.d. sample would likely give): after the 6 ones K+
    # rejects every m below about 0.44, so the intersection (about [0.44, 0.56]) lies above the final
    # mean 6/26; the interval is widened down to the mean, so it still contains the intersection and
    # keeps its coverage
    x = [1.0] * 6 + [0.0] * 20
    assert hand_log_capitals(x, 6 / 26, running=True)[0] >= math.log(40)  # the mean is rejected at some t
    low, high = mean_ci(x, bounds=(0.0, 1.0))
    assert low == pytest.approx(6 / 26, abs=1e-12)
    assert hand_log_capital(x, high, running=True) < math.log(40) <= hand_log_capital(x, high + 1e-7, running=True)
    low_f, high_f = mean_ci(x, bounds=(0.0, 1.0), method="betting_final")
    assert low_f < low and high == pytest.approx(high_f, abs=1e-9)


def test_an_empty_running_intersection_falls_back_to_the_final_interval():
    # 30 ones then 70 zeros: K+ rejects every m below about 0.85 by t = 30, K- every m above about 0.70
    # by t = 100, so no m survives every t; the result is the interval at t = n, itself widened to the
    # mean 0.3 (K+ at t = n rejects below about 0.34)
    x = [1.0] * 30 + [0.0] * 70
    for m in np.linspace(0, 1, 101):
        assert hand_log_capital(x, float(m), running=True) >= math.log(40)
    assert mean_ci(x, bounds=(0.0, 1.0)) == mean_ci(x, bounds=(0.0, 1.0), method="betting_final")
    low, high = mean_ci(x, bounds=(0.0, 1.0))
    assert low == pytest.approx(0.3, abs=1e-12) and 0.6 < high < 0.75


def test_a_sample_at_a_bound_keeps_a_width():
    # the t interval of 20 ones is (1, 1); the betting interval's lower limit is where 20 bets of
    # min(sqrt(2 log 40 / (20 s2)), 0.75 / m) on "above m" pay 40 times the stake
    assert mean_ci([1.0] * 20, bounds=(0.0, 1.0), method="t") == (1.0, 1.0)
    low, high = mean_ci([1.0] * 20, bounds=(0.0, 1.0))
    assert high == 1.0 and 0.7 < low < 0.8
    assert hand_log_capital([1.0] * 20, low) < math.log(40) <= hand_log_capital([1.0] * 20, low - 1e-7)
    # bounds other than [0, 1]: the same interval rescaled
    low5, high5 = mean_ci([5.0] * 20, bounds=(0.0, 5.0))
    assert (low5, high5) == pytest.approx((5 * low, 5.0), abs=1e-9)


def test_t_matches_scipy_and_edge_cases():
    x = [0.1, 0.4, 0.35, 0.8]
    assert mean_ci(x) == pytest.approx(stats.t.interval(0.95, 3, loc=np.mean(x), scale=stats.sem(x)), abs=1e-12)
    assert all(math.isnan(v) for v in mean_ci([0.5], bounds=(0.0, 1.0)))
    assert all(math.isnan(v) for v in mean_ci([]))


def test_bad_input_is_named():
    with pytest.raises(MeanError, match=r"value 1.5 at position 1 is outside the bounds \(0.0, 1.0\)"):
        mean_ci([0.5, 1.5], bounds=(0.0, 1.0))
    with pytest.raises(MeanError, match="needs bounds"):
        mean_ci([0.5, 0.4], method="betting")
    with pytest.raises(MeanError, match="'bootstrap' is not one of betting, betting_final, t"):
        mean_ci([0.5, 0.4], method="bootstrap")
    with pytest.raises(MeanError, match="value nan at position 0"):
        mean_ci([math.nan, 0.4], bounds=(0.0, 1.0))


def draw(kind: str, n: int, rng) -> np.ndarray:
    u, v = rng.random(n), rng.random(n)
    if kind == "80% at 1":  # nDCG-like: most queries perfect, the rest spread
        return np.where(u < 0.8, 1.0, v)
    if kind == "70% at 0":  # most queries find nothing relevant
        return np.where(u < 0.7, 0.0, v)
    if kind == "balanced mixture":  # a third at 0, a third at 1, a third in between
        return np.where(u < 1 / 3, 0.0, np.where(u < 2 / 3, 1.0, v))
    return rng.choice([0.0, 0.2, 0.5, 1.0], size=n, p=[0.3, 0.1, 0.15, 0.45])  # RR@10-like


TRUE_MEAN = {"80% at 1": 0.9, "70% at 0": 0.15, "balanced mixture": 0.5, "RR-like": 0.545}
DRAWS = 250


def test_betting_interval_covers_skewed_per_query_measures():
    # 250 seeded samples a cell; the Monte Carlo sd of a cell at 0.97 is 0.011. Target: every cell >= 0.93
    # (the interval's coverage is at least 0.95 by construction; the simulation checks the implementation).
    rng = np.random.default_rng(23)
    worst = (2.0, "", 0)
    for kind, mu in TRUE_MEAN.items():
        for n in (20, 27, 59, 200):
            hits = 0
            for _ in range(DRAWS):
                low, high = mean_ci(draw(kind, n, rng), bounds=(0.0, 1.0))
                hits += low <= mu <= high
            worst = min(worst, (hits / DRAWS, kind, n))
    print(f"\nbetting mean interval: worst coverage {worst}")
    assert worst[0] >= 0.93, worst


def test_the_t_interval_fails_where_the_betting_interval_holds():
    # 80% of values at 1, n = 20: the clipped t interval covers about 0.83-0.90 (the audit: 0.826)
    rng = np.random.default_rng(5)
    samples = [draw("80% at 1", 20, rng) for _ in range(600)]
    t_cover = np.mean([lo <= 0.9 <= hi for lo, hi in (mean_ci(x, bounds=(0.0, 1.0), method="t") for x in samples)])
    bet_cover = np.mean([lo <= 0.9 <= hi for lo, hi in (mean_ci(x, bounds=(0.0, 1.0)) for x in samples)])
    assert t_cover < 0.92 and bet_cover >= 0.95


def test_betting_interval_covers_bernoulli_exactly_at_n_10():
    # exact enumeration: the interval depends on the order of the values, so all 2^10 sequences are
    # computed once; coverage at p is the sum of p^k (1 - p)^(10 - k) over the sequences whose interval
    # holds p. Ville's inequality promises >= 0.95 at every p.
    n = 10
    sequences = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(float)
    limits = np.array([mean_ci(s, bounds=(0.0, 1.0)) for s in sequences])
    ones = sequences.sum(axis=1)
    worst = (2.0, -1.0)
    for p in np.linspace(0.005, 0.995, 199):
        weight = p ** ones * (1 - p) ** (n - ones)
        covered = (limits[:, 0] <= p) & (p <= limits[:, 1])
        worst = min(worst, (float(weight[covered].sum()), float(p)))
    print(f"\nbetting mean, Bernoulli n = 10: worst exact coverage {worst}")
    assert worst[0] >= 0.95, worst


def test_betting_interval_covers_bernoulli_and_beta_means_near_the_bounds():
    # seeded simulation: Bernoulli(mu) and Beta(2 mu, 2 (1 - mu)) (U-shaped, mass at the bounds) at
    # means 0.02-0.98 and n 10-500 (100, 80 and 30 samples a cell: the Monte Carlo sd of a cell at 0.95
    # is 0.022-0.04, so each cell must reach 0.90 and the pooled coverage 0.95; benchmarks/bench_mean.py
    # runs 1,000 a cell).
    rng = np.random.default_rng(32)
    cells, hits_all, draws_all = [], 0, 0
    for kind in ("bernoulli", "beta"):
        for mu in (0.02, 0.3, 0.7, 0.98):
            for n, draws in ((10, 100), (40, 80), (500, 30)):
                hits = 0
                for _ in range(draws):
                    x = (rng.random(n) < mu).astype(float) if kind == "bernoulli" else rng.beta(2 * mu, 2 * (1 - mu), n)
                    low, high = mean_ci(x, bounds=(0.0, 1.0))
                    hits += low <= mu <= high
                cells.append((hits / draws, kind, mu, n))
                hits_all, draws_all = hits_all + hits, draws_all + draws
    worst = min(cells)
    print(f"\nbetting mean: worst cell {worst}, pooled {hits_all / draws_all:.4f} over {draws_all} samples")
    assert worst[0] >= 0.90, worst
    assert hits_all / draws_all >= 0.95
