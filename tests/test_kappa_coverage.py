"""Coverage of kappa's default interval (the Wald/Wilson hybrid of assay.stats.agreement), by seeded simulation.

The grid is the one a judge calibration meets: human labels a/b/tie with prevalences from balanced
to .9/.05/.05, a judge column ``invalid`` that no human label matches (0, 2 and 5% of pairs), true
kappa 0.4 to 0.9, n = 42 (the demo's calibration size) and 200, and two error patterns (a wrong
judge picks at random with the human prevalences, or says tie). 2,000 tables a cell, seed 23.

Targets: two-sided coverage >= 0.93 and the lower bound at or below the true kappa >= 0.95 of the
time, asserted with no allowance. The Monte Carlo standard error of a cell at 0.95 is 0.005; the
worst cells measured here are 0.948 (two-sided, n = 200) and 0.974 (lower bound, n = 42), so the
seeded values sit three or more standard errors above the targets, and the seed makes the run deterministic.

The simulation computes every interval with a vectorised float replica of the formulas (written
from Fleiss, Cohen and Everitt 1969 and Wilson 1927, independently of the library), which makes the
grid take about a second; the replica is checked against the library's interval on 400 tables,
boundaries included, and the library itself is run on the worst cells.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from assay.stats.agreement import Contingency

Z = 1.959963984540054
LABELS = ("a", "b", "tie", "invalid")
PREVALENCES = ((1 / 3, 1 / 3, 1 / 3), (0.5, 0.3, 0.2), (0.8, 0.1, 0.1), (0.9, 0.05, 0.05), (0.05, 0.05, 0.9))
INVALID = (0.0, 0.02, 0.05)
KAPPAS = (0.4, 0.6, 0.8, 0.9)
DRAWS = 2000


def replica(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """kappa, and the hybrid interval's (low, high), for tables of shape (draws, 3, 4): human rows a/b/tie,
    judge columns a/b/tie/invalid. Float arithmetic, one formula per line."""
    n = tables.sum(axis=(1, 2)).astype(float)
    p = tables / n[:, None, None]
    w = np.zeros((3, 4))
    w[0, 0] = w[1, 1] = w[2, 2] = 1.0  # agreement weights: the diagonal
    rows, cols = p.sum(axis=2), p.sum(axis=1)
    po = (p * w).sum(axis=(1, 2))
    pe = (rows[:, :, None] * cols[:, None, :] * w).sum(axis=(1, 2))
    with np.errstate(all="ignore"):
        k = (po - pe) / (1 - pe)
        w_row = (w[None] * cols[:, None, :]).sum(axis=2)
        w_col = (rows[:, :, None] * w[None]).sum(axis=1)
        spread = (p * (w[None] - (w_row[:, :, None] + w_col[:, None, :]) * (1 - k)[:, None, None]) ** 2).sum(axis=(1, 2))
        se = np.sqrt(np.maximum((spread - (k - pe * (1 - k)) ** 2) / (n * (1 - pe) ** 2), 0.0))
        centre = (po + Z * Z / (2 * n)) / (1 + Z * Z / n)
        half = Z * np.sqrt(po * (1 - po) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
        lo, hi = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
        low = np.minimum(k - Z * se, (lo - pe) / (1 - pe))
        high = np.maximum(k + Z * se, (hi - pe) / (1 - pe))
    return k, np.clip(low, -1, 1), np.clip(high, -1, 1)


def population(prevalence, right: float, invalid: float, errors: str) -> np.ndarray:
    """Joint distribution (3 x 4) of human label and judge label: the judge gives no verdict with
    probability ``invalid``; otherwise it is right with probability ``right`` and else wrong by
    ``errors``: ``random`` (a label drawn with the human prevalences) or ``tie`` (says tie; a on a tie)."""
    pi = np.asarray(prevalence)
    joint = np.zeros((3, 4))
    for i in range(3):
        joint[i, i] += (1 - invalid) * pi[i] * right
        if errors == "random":
            joint[i, :3] += (1 - invalid) * pi[i] * (1 - right) * pi
        else:
            joint[i, 2 if i != 2 else 0] += (1 - invalid) * pi[i] * (1 - right)
        joint[i, 3] = invalid * pi[i]
    return joint


def true_kappa(joint: np.ndarray) -> float:
    po = np.trace(joint[:, :3])
    pe = float(joint.sum(axis=1) @ joint.sum(axis=0)[:3])
    return (po - pe) / (1 - pe)


def cells():
    for n in (42, 200):
        for prevalence in PREVALENCES:
            for invalid in INVALID:
                for errors in ("random", "tie"):
                    for target in KAPPAS:
                        if true_kappa(population(prevalence, 1.0, invalid, errors)) < target:
                            continue  # not reachable with this much invalid and this prevalence
                        right = brentq(lambda r, p=prevalence, i=invalid, e=errors, t=target: true_kappa(population(p, r, i, e)) - t, 0, 1)
                        yield n, prevalence, invalid, errors, target, population(prevalence, right, invalid, errors)


def coverage(n, joint, rng, draws=DRAWS):
    tables = rng.multinomial(n, joint.ravel(), size=draws).reshape(draws, 3, 4)
    k, low, high = replica(tables)
    kept = ~np.isnan(k)  # kappa undefined (both sides one label): no interval to cover
    truth = true_kappa(joint)
    low, high = low[kept], high[kept]
    return float(np.mean((low <= truth) & (truth <= high))), float(np.mean(low <= truth)), tables[kept]


def library_interval(table: np.ndarray) -> tuple[float, float]:
    counts = np.zeros((4, 4), dtype=np.int64)
    counts[:3] = table
    cells_ = np.repeat(np.arange(16), counts.ravel())
    return Contingency(LABELS, counts, cells_ // 4, cells_ % 4).kappa_ci()


def test_the_replica_is_the_library_interval():
    rng = np.random.default_rng(7)
    joint = population((0.8, 0.1, 0.1), 0.7, 0.05, "random")
    tables = np.concatenate([rng.multinomial(n, joint.ravel(), size=100).reshape(100, 3, 4) for n in (2, 5, 42, 200)])
    tables[0] = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]]  # perfect agreement, n = 2
    tables[1] = [[0, 0, 10, 0], [0, 0, 10, 0], [0, 0, 10, 0]]  # a constant judge
    k, low, high = replica(tables)
    for i, table in enumerate(tables):
        if np.isnan(k[i]):
            continue
        assert library_interval(table) == pytest.approx((low[i], high[i]), abs=1e-9), table


def test_hybrid_kappa_interval_covers_over_the_calibration_grid():
    rng = np.random.default_rng(23)
    results = []
    for n, prevalence, invalid, errors, target, joint in cells():
        two_sided, lower, _ = coverage(n, joint, rng)
        results.append((two_sided, lower, n, prevalence, invalid, errors, target))
    assert len(results) >= 100
    worst_two = min(results)
    worst_lower = min(results, key=lambda r: r[1])
    print(f"\nkappa hybrid: worst two-sided {worst_two}; worst lower bound {worst_lower}")
    assert worst_two[0] >= 0.93, worst_two
    assert worst_lower[1] >= 0.95, worst_lower


def test_the_wald_interval_alone_fails_the_grid_and_the_library_run_passes():
    # the skewed cell where Wald under-covers most (n = 42, .9/.05/.05, kappa 0.9): run the library itself
    rng = np.random.default_rng(5)
    joint = next(c[-1] for c in cells() if c[:5] == (42, (0.9, 0.05, 0.05), 0.0, "random", 0.9))
    truth = true_kappa(joint)
    tables = rng.multinomial(42, joint.ravel(), size=600).reshape(600, 3, 4)
    hybrid, wald = [], []
    for table in tables:
        counts = np.zeros((4, 4), dtype=np.int64)
        counts[:3] = table
        cells_ = np.repeat(np.arange(16), counts.ravel())
        tab = Contingency(LABELS, counts, cells_ // 4, cells_ % 4)
        if tab.undefined():
            continue
        hybrid.append(tab.kappa_ci())
        wald.append(tab.kappa_ci(method="wald"))
    cover = lambda intervals: np.mean([lo <= truth <= hi for lo, hi in intervals])  # noqa: E731
    assert cover(hybrid) >= 0.93 and cover(wald) < 0.7
