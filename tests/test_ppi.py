"""PPI++ for a mean: equal to ppi-python and to the paper's formulas by hand, its coverage by seeded
simulation over judge quality, labelled n and judged N, and the win-rate and rubric helpers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from assay.stats.ppi import PPIError, ppi_mean_ci, rubric_values, win_values

ppi_py = pytest.importorskip("ppi_py")  # in the test extra (pinned in constraints.txt)


def _data(rng: np.random.Generator, n: int, big_n: int, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if kind == "continuous":
        y = rng.normal(0.3, 1.0, n)
        return y, 0.8 * y + rng.normal(0.1, 0.6, n), rng.normal(0.35, 1.0, big_n)
    if kind == "binary":
        y = (rng.random(n) < 0.7).astype(float)
        flip = rng.random(n) < 0.2
        f = np.where(flip, 1 - y, y)
        return y, f, (rng.random(big_n) < 0.72).astype(float)
    if kind == "win":  # three-valued pairwise outcomes, the judge weakly related
        y = rng.choice([0.0, 0.5, 1.0], n, p=[0.3, 0.2, 0.5])
        f = np.where(rng.random(n) < 0.5, y, rng.choice([0.0, 0.5, 1.0], n))
        return y, f, rng.choice([0.0, 0.5, 1.0], big_n)
    # a judge that is anti-correlated: the tuned lam clips at 0 (human only)
    y = rng.normal(0, 1, n)
    return y, -y + rng.normal(0, 0.1, n), rng.normal(0, 1, big_n)


@pytest.mark.parametrize("kind", ["continuous", "binary", "win", "anti"])
@pytest.mark.parametrize("lam", [None, 0.0, 0.5, 1.0])
def test_equals_ppi_python(kind, lam):
    rng = np.random.default_rng([7, len(kind), 99 if lam is None else int(lam * 10)])
    for n, big_n, level in [(2, 1, 0.95), (30, 200, 0.9), (200, 5_000, 0.95), (500, 100_000, 0.99)]:
        y, f, u = _data(rng, n, big_n, kind)
        got = ppi_mean_ci(y, f, u, level=level, lam=lam)
        low, high = ppi_py.ppi_mean_ci(y, f, u, alpha=1 - level, lam=lam)
        point = ppi_py.ppi_mean_pointestimate(y, f, u, lam=lam)
        assert got.low == pytest.approx(float(np.squeeze(low)), abs=1e-9, rel=0)
        assert got.high == pytest.approx(float(np.squeeze(high)), abs=1e-9, rel=0)
        assert got.estimate == pytest.approx(float(np.squeeze(point)), abs=1e-9, rel=0)
        if lam is not None:
            assert got.lam == lam
        if kind == "anti" and n > 2 and lam is None:
            assert got.lam == 0.0


def test_equals_hand_computation_of_the_paper():
    # PPI++ (Angelopoulos, Duchi, Zrnic 2023), example 6.1 for the mean, written out with numpy's own
    # estimators: lam = cov(Y, f) / ((1 + n/N) var(f over both sets)), theta = lam mean(f_u) + mean(Y - lam f),
    # se^2 = lam^2 var(f_u) / N + var(Y - lam f) / n (ddof 0), z from scipy
    rng = np.random.default_rng(11)
    y, f, u = _data(rng, 120, 3_000, "continuous")
    n, big_n = len(y), len(u)
    lam = np.cov(y, f, ddof=0)[0, 1] / ((1 + n / big_n) * np.var(np.concatenate([f, u]), ddof=1))
    lam = min(1.0, max(0.0, lam))
    theta = lam * u.mean() + (y - lam * f).mean()
    se = math.sqrt(np.var(lam * u) / big_n + np.var(y - lam * f) / n)
    z = norm.ppf(0.975)
    got = ppi_mean_ci(y, f, u)
    assert (got.estimate, got.low, got.high, got.lam) == pytest.approx((theta, theta - z * se, theta + z * se, lam), abs=1e-12)
    assert got.width == pytest.approx(2 * z * se, abs=1e-12)


def test_lam_zero_is_the_human_only_interval_and_one_is_classical_ppi():
    rng = np.random.default_rng(3)
    y, f, u = _data(rng, 80, 1_000, "binary")
    z = norm.ppf(0.975)
    human = ppi_mean_ci(y, f, u, lam=0.0)
    assert human.estimate == pytest.approx(y.mean(), abs=1e-15)
    assert human.se == pytest.approx(y.std() / math.sqrt(80), abs=1e-15)
    assert human.high - human.estimate == pytest.approx(z * y.std() / math.sqrt(80), abs=1e-12)
    classical = ppi_mean_ci(y, f, u, lam=1.0)
    assert classical.estimate == pytest.approx(u.mean() + (y - f).mean(), abs=1e-15)


def test_constant_judge_falls_back_to_human_only():
    # pooled judge variance 0: ppi-python's lam is 0/0 = nan; here lam = 0, the human-only interval
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    got = ppi_mean_ci(y, np.ones(5), np.ones(50))
    assert got.lam == 0.0 and got.estimate == pytest.approx(0.6) and got.se == pytest.approx(math.sqrt(0.24 / 5))


def test_everything_constant_gives_a_point():
    got = ppi_mean_ci([1.0, 1.0], [1.0, 1.0], [1.0], lam=1.0)
    assert (got.estimate, got.low, got.high, got.se) == (1.0, 1.0, 1.0, 0.0)


@pytest.mark.parametrize("args,kwargs,message", [
    (([1, 0, 1], [1, 0], [1, 1]), {}, "y has 3 values and yhat 2"),
    (([1], [1], [1, 1]), {}, "y has 1 value(s); at least 2"),
    (([1, 0], [1, 0], []), {}, "yhat_unlabeled has 0 value(s); at least 1"),
    (([1, float("nan")], [1, 0], [1]), {}, "y[1] is nan; every value must be finite"),
    (([1, 0], [1, 0], [[1, 0]]), {}, "yhat_unlabeled has shape (1, 2)"),
    (([1, 0], [1, 0], [1]), {"level": 1.0}, "level 1.0 must be between 0 and 1"),
    (([1, 0], [1, 0], [1]), {"lam": 1.5}, "lam 1.5 must be in [0, 1]"),
    (([1, 0], [1, 0], [1]), {"lam": float("nan")}, "lam nan must be in [0, 1]"),
])
def test_bad_input_is_refused(args, kwargs, message):
    with pytest.raises(PPIError) as info:
        ppi_mean_ci(*args, **kwargs)
    assert message in str(info.value) and str(info.value).startswith("ppi_mean_ci: ")


def test_win_values_and_rubric_values():
    assert win_values(["first", "second", "tie"]).tolist() == [1.0, 0.0, 0.5]
    assert win_values(["b", "a", "tie", "b"], first="b", second="a").mean() == pytest.approx(0.625)  # (1 + 0 + .5 + 1) / 4
    with pytest.raises(PPIError, match=r"choice 1 is None, not one of 'a', 'b', 'tie'"):
        win_values(["a", None], first="a", second="b")
    with pytest.raises(PPIError, match="three different labels"):
        win_values(["a"], first="a", second="a")
    assert rubric_values([1, 2, 3, 4, 5]).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert rubric_values([0, 10], low=0, high=10).tolist() == [0.0, 1.0]
    assert rubric_values([]).tolist() == []
    with pytest.raises(PPIError, match=r"score 2 is 6.0, outside 1..5"):
        rubric_values([1, 5, 6])
    with pytest.raises(PPIError, match=r"score 0 is nan"):
        rubric_values([float("nan")])


# --- coverage by seeded simulation ---------------------------------------------------------------

PASS_RATE = 0.70


def judge_rates(agreement: float) -> tuple[float, float]:
    """TPR and FPR of a judge with the human pass rate and ``agreement`` (errors split evenly)."""
    off = (1 - agreement) / 2
    return (PASS_RATE - off) / PASS_RATE, off / (1 - PASS_RATE)


JUDGES = {"agree .60": judge_rates(0.60), "agree .95": judge_rates(0.95), "biased .92/.25": (0.92, 0.25)}


def simulate(tpr: float, fpr: float, n: int, big_n: int, reps: int, seed: int) -> tuple[float, float, float]:
    """Coverage of PPI++ and of the human-only interval, and PPI's mean width over the human-only one's.

    Pass/fail values: the judge's values on the N judged-only cases enter only through how many
    passed, so each replicate's unlabelled array is a view of length N with that many ones (the
    function still reads all N values).
    """
    rng = np.random.default_rng(seed)
    q = PASS_RATE * tpr + (1 - PASS_RATE) * fpr
    strip = np.concatenate([np.ones(big_n), np.zeros(big_n)])
    covered = covered_human = 0
    width = width_human = 0.0
    for _ in range(reps):
        y = (rng.random(n) < PASS_RATE).astype(float)
        f = (rng.random(n) < np.where(y == 1, tpr, fpr)).astype(float)
        k = int(rng.binomial(big_n, q))
        u = strip[big_n - k:2 * big_n - k]
        e, h = ppi_mean_ci(y, f, u), ppi_mean_ci(y, f, u, lam=0.0)
        covered += e.low <= PASS_RATE <= e.high
        covered_human += h.low <= PASS_RATE <= h.high
        width += e.width
        width_human += h.width
    return covered / reps, covered_human / reps, width / width_human


@pytest.mark.parametrize("judge", list(JUDGES))
def test_coverage_by_simulation(judge):
    # 3 judges x n 50, 500 x N 1,000, 100,000, 1,500 replicates per cell: a true coverage of .95 falls
    # below .93 with probability ~0.2%; the seeds are fixed, so the test is deterministic. The fuller grid
    # with its width ratios is benchmarks/bench_ppi.py.
    tpr, fpr = JUDGES[judge]
    ratios = {}
    for n in (50, 500):
        for big_n in (1_000, 100_000):
            cover, cover_human, ratio = simulate(tpr, fpr, n, big_n, 1_500, seed=n * 7 + big_n)
            assert cover >= 0.93, (judge, n, big_n, cover)
            assert cover_human >= 0.92, (judge, n, big_n, cover_human)  # Wald at n = 50, p = .7: about .93-.94
            ratios[n, big_n] = ratio
    # never much wider than human only; a .95 judge with N >> n is far narrower
    assert max(ratios.values()) < 1.05
    if judge == "agree .95":
        assert ratios[50, 100_000] < 0.45
