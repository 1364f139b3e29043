"""Seeded simulation of PPI++ with a pass/fail judge, fast enough for 100,000 samples per cell.

With pass/fail values a sample is summed up by the labelled 2x2 table (human by judge) and the
number of judged-only cases the judge passed; :func:`intervals` computes ppi_mean_ci's statistic
from those counts for many samples at once, and :func:`arrays` rebuilds one sample's arrays so the
tests can check the two are the same statistic (tests/test_ppi.py). Used by tests/test_ppi.py and
benchmarks/bench_ppi.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

PASS_RATE = 0.70


def judge_rates(agreement: float, pass_rate: float = PASS_RATE) -> tuple[float, float]:
    """TPR and FPR of a judge with the human pass rate and ``agreement`` (its errors split evenly)."""
    off = (1 - agreement) / 2
    return (pass_rate - off) / pass_rate, off / (1 - pass_rate)


def flip_rates(agreement: float) -> tuple[float, float]:
    """TPR and FPR of a judge that flips each human label with probability ``1 - agreement`` (any pass rate)."""
    return agreement, 1 - agreement


@dataclass(frozen=True)
class Samples:
    """Counts per sample: labelled cells (human pass & judge pass, pass & fail, fail & pass, fail & fail), judged-only passes."""

    cells: np.ndarray  # (reps, 4)
    passed: np.ndarray  # (reps,)
    n: int
    big_n: int


def draw(tpr: float, fpr: float, n: int, big_n: int, reps: int, seed: int, pass_rate: float = PASS_RATE) -> Samples:
    rng = np.random.default_rng(seed)
    probs = [pass_rate * tpr, pass_rate * (1 - tpr), (1 - pass_rate) * fpr, (1 - pass_rate) * (1 - fpr)]
    q = pass_rate * tpr + (1 - pass_rate) * fpr
    return Samples(rng.multinomial(n, probs, size=reps), rng.binomial(big_n, q, size=reps), n, big_n)


def arrays(s: Samples, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample ``i`` as the (y, yhat, yhat_unlabeled) arrays ppi_mean_ci takes."""
    a, b, c, d = (int(x) for x in s.cells[i])
    y = np.repeat([1.0, 1.0, 0.0, 0.0], [a, b, c, d])
    f = np.repeat([1.0, 0.0, 1.0, 0.0], [a, b, c, d])
    k = int(s.passed[i])
    return y, f, np.repeat([1.0, 0.0], [k, s.big_n - k])


def intervals(s: Samples, interval: str = "bounded", level: float = 0.95,
              lam: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(estimate, low, high)`` per sample, the formulas of assay.stats.ppi from the counts (written
    again here, vectorised over samples: the "bounded" rectifier variance by expanding the four
    pseudo-values' squares, not by assay's pooling of sums of squares)."""
    n, big_n = s.n, s.big_n
    cells = s.cells.astype(float)
    my, mf, myf = (cells[:, 0] + cells[:, 1]) / n, (cells[:, 0] + cells[:, 2]) / n, cells[:, 0] / n
    mu = s.passed / big_n
    cov = myf - my * mf
    if lam is None:
        pooled = (big_n * mu * (1 - mu) + n * mf * (1 - mf) + n * big_n / (n + big_n) * (mu - mf) ** 2) / (n + big_n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            weight = np.where(pooled == 0, 0.0, np.clip(cov / ((1 + n / big_n) * pooled), 0, 1))
    else:
        weight = np.full(len(mu), lam)
    est = weight * mu + my - weight * mf
    var_rect = my * (1 - my) - 2 * weight * cov + weight ** 2 * mf * (1 - mf)
    var_u = mu * (1 - mu)
    if interval == "bounded":
        # the labelled rectifier values r = y - w f (n of them) and six more, (0, 0, 0, 1, 1, 1) - w mf:
        # ddof-1 variance from the sum and the sum of squares over the n + 6
        pseudo = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])[None, :] - (weight * mf)[:, None]
        total = n * (my - weight * mf) + pseudo.sum(axis=1)
        squares = n * (var_rect + (my - weight * mf) ** 2) + (pseudo ** 2).sum(axis=1)
        var4 = (squares - total ** 2 / (n + 6)) / (n + 5)
        se = np.sqrt(weight ** 2 * var_u / (big_n - 1) + var4 / n)
        q = student_t.ppf(0.5 + level / 2, n - 1)
        return est, np.clip(est - q * se, 0, 1), np.clip(est + q * se, 0, 1)
    if interval == "t":
        se = np.sqrt(weight ** 2 * var_u / (big_n - 1) + var_rect / (n - 1))
        q = student_t.ppf(0.5 + level / 2, n - 1)
    else:
        se = np.sqrt(weight ** 2 * var_u / big_n + var_rect / n)
        q = norm.ppf(0.5 + level / 2)
    return est, est - q * se, est + q * se


@dataclass(frozen=True)
class Cell:
    coverage: float
    coverage_human: float
    width_ratio: float  # mean PPI++ width over mean human-only width, on the same samples
    lower: float = 1.0  # share of samples whose lower bound is at or below the truth
    width_ratio_t: float = 1.0  # mean PPI++ width over the mean human-only plain "t" width (no pseudo-values, unclipped)


def cell(tpr: float, fpr: float, n: int, big_n: int, reps: int, seed: int, interval: str = "bounded",
         pass_rate: float = PASS_RATE) -> Cell:
    s = draw(tpr, fpr, n, big_n, reps, seed, pass_rate)
    _, low, high = intervals(s, interval)
    _, hlow, hhigh = intervals(s, interval, lam=0.0)
    _, tlow, thigh = intervals(s, "t", lam=0.0)
    width = (high - low).mean()
    return Cell(float(((low <= pass_rate) & (pass_rate <= high)).mean()),
                float(((hlow <= pass_rate) & (pass_rate <= hhigh)).mean()),
                float(width / (hhigh - hlow).mean()), float((low <= pass_rate).mean()),
                float(width / (thigh - tlow).mean()))
