"""assay.stats.reliability: ordinal alpha against the krippendorff package, weighted kappa against
scikit-learn, and the coverage of the cluster bootstrap interval by simulation."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from assay.stats.reliability import cluster_bootstrap, ordinal_alpha, pair_tables, weighted_kappa

GRADES = [-1, 0, 1, 2]


def table(a, b):
    pos = {g: i for i, g in enumerate(GRADES)}
    return pair_tables([0] * len(a), [pos[x] for x in a], [pos[x] for x in b], 4)[1][0]


def test_worked_alpha_and_kappa_on_the_helper_pairs():
    # tests/study_helpers.PAIRS: A = [2,0,-1,1,0,2,1,-1], B = [2,1,-1,1,0,0,1,0]
    a, b = [2, 0, -1, 1, 0, 2, 1, -1], [2, 1, -1, 1, 0, 0, 1, 0]
    t = table(a, b)
    alpha = krippendorff.alpha(reliability_data=[a, b], level_of_measurement="ordinal", value_domain=GRADES)
    assert ordinal_alpha(t) == pytest.approx(alpha, abs=1e-12)
    assert weighted_kappa(t, "quadratic") == pytest.approx(cohen_kappa_score(a, b, weights="quadratic"), abs=1e-12)
    # hand check of kappa_w: squared gaps of the 3 disagreements 1 + 4 + 1 = 6 over 8 pairs; chance term
    # sum_ij (i-j)^2 r_i c_j / 8, rows (A) [2,2,2,2] and columns (B) [1,3,3,1] over grades -1,0,1,2
    rows, cols = np.array([2, 2, 2, 2]), np.array([1, 3, 3, 1])
    chance = sum((i - j) ** 2 * rows[i] * cols[j] for i in range(4) for j in range(4)) / 8
    assert weighted_kappa(t, "quadratic") == pytest.approx(1 - 6 / chance)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(GRADES), st.sampled_from(GRADES)), min_size=2, max_size=60))
def test_alpha_matches_krippendorff_and_kappa_matches_sklearn(pairs):
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    t = table(a, b)
    ours = ordinal_alpha(t)
    if len(set(a) | set(b)) == 1:
        assert math.isnan(ours)  # no variation: alpha is 0/0
    else:
        theirs = krippendorff.alpha(reliability_data=[a, b], level_of_measurement="ordinal", value_domain=GRADES)
        assert ours == pytest.approx(theirs, abs=1e-9)
    for weights in ("linear", "quadratic"):
        k = weighted_kappa(t, weights)
        if math.isnan(k):
            continue
        assert k == pytest.approx(cohen_kappa_score(a, b, weights=weights, labels=GRADES), abs=1e-9)


def test_perfect_agreement_is_one_and_constant_grades_are_nan():
    assert ordinal_alpha(table([2, 0, 1], [2, 0, 1])) == pytest.approx(1.0)
    assert weighted_kappa(table([2, 0, 1], [2, 0, 1])) == pytest.approx(1.0)
    assert math.isnan(ordinal_alpha(table([1, 1], [1, 1])))
    assert math.isnan(weighted_kappa(table([1, 1], [1, 1])))
    assert math.isnan(ordinal_alpha(np.zeros((4, 4))))


def test_statistics_work_on_stacks_of_tables():
    t1, t2 = table([2, 0, 1, -1], [2, 1, 1, -1]), table([0, 0, 2, 1], [0, 1, 2, 2])
    stacked = np.stack([t1, t2])
    assert ordinal_alpha(stacked).tolist() == pytest.approx([float(ordinal_alpha(t1)), float(ordinal_alpha(t2))])
    assert weighted_kappa(stacked).tolist() == pytest.approx([float(weighted_kappa(t1)), float(weighted_kappa(t2))])


def test_pair_tables_count_per_cluster_in_first_seen_order():
    names, tables = pair_tables(["q2", "q1", "q2"], [0, 1, 3], [0, 2, 3], 4)
    assert names == ["q2", "q1"]
    assert tables[0][0, 0] == 1 and tables[0][3, 3] == 1 and tables[1][1, 2] == 1 and tables.sum() == 3


def _population_draw(rng, queries: int) -> np.ndarray:
    """Per-query tables from a model with a query effect: true grade, each rater off by one with
    a probability that depends on the query (hard and easy queries), 6 documents per query."""
    noise = np.where(rng.random(queries) < 0.3, 0.45, 0.1)[:, None]
    truth = rng.integers(0, 4, size=(queries, 6))
    a = np.clip(truth + (rng.random((queries, 6)) < noise) * rng.choice([-1, 1], (queries, 6)), 0, 3)
    b = np.clip(truth + (rng.random((queries, 6)) < noise) * rng.choice([-1, 1], (queries, 6)), 0, 3)
    out = np.zeros((queries, 4, 4), dtype=np.int64)
    np.add.at(out, (np.repeat(np.arange(queries), 6), a.ravel(), b.ravel()), 1)
    return out


def test_cluster_bootstrap_interval_covers_the_population_alpha():
    # "truth": alpha of the model on a very large sample of queries
    rng = np.random.default_rng(2026)
    truth = float(ordinal_alpha(_population_draw(rng, 40000).sum(axis=0)))
    reps, covered = 300, 0
    for r in range(reps):
        sample = _population_draw(rng, 40)
        low, high = cluster_bootstrap(sample, ordinal_alpha, 400, seed=r, level=0.9)
        covered += low <= truth <= high
    # nominal 90%: a percentile interval over 40 clusters runs a little short; 300 replications give
    # a binomial sd of 1.7 points, so 0.84 is 3.5 sd below nominal and fails a badly built interval
    assert covered / reps >= 0.84, covered / reps


def test_bootstrap_is_seeded_and_undefined_without_clusters():
    sample = _population_draw(np.random.default_rng(1), 20)
    assert cluster_bootstrap(sample, ordinal_alpha, 200, seed=5) == cluster_bootstrap(sample, ordinal_alpha, 200, seed=5)
    assert all(math.isnan(x) for x in cluster_bootstrap(np.zeros((0, 4, 4)), ordinal_alpha, 200, seed=5))
    constant = np.zeros((5, 4, 4))
    constant[:, 1, 1] = 3
    assert all(math.isnan(x) for x in cluster_bootstrap(constant, ordinal_alpha, 200, seed=5))
