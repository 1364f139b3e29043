"""Intervals (coverage by simulation), Holm-corrected paired tests, the manifest check, answer rates."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from assay.relevance.answers import answer_rates, answer_table, support
from assay.relevance.comparison import paired_tests
from assay.relevance.intervals import mean_interval, proportion_interval, quantile_interval
from assay.relevance.manifest import ManifestMismatch, build_manifest, check_same
from assay.relevance.corpus import StudyDocument, StudyQuery
from assay.relevance.trec import Run


def test_t_interval_covers_the_mean_of_a_skewed_per_query_measure():
    """2,000 simulated studies of 80 queries whose values look like RR@10 (many 1s and 0s, some 1/k)."""
    rng = np.random.default_rng(7)
    support_values, probs = np.array([0.0, 0.2, 0.5, 1.0]), np.array([0.3, 0.1, 0.15, 0.45])
    true_mean = float(support_values @ probs)
    covered = 0
    for _ in range(2000):
        _, low, high = mean_interval(rng.choice(support_values, size=80, p=probs))
        covered += low <= true_mean <= high
    # binomial sd of the coverage estimate at 0.95 is 0.005: accept 0.93 to 0.97
    assert 0.93 <= covered / 2000 <= 0.97


def test_mean_interval_matches_scipy_and_edge_cases():
    x = [0.1, 0.4, 0.35, 0.8]
    mean, low, high = mean_interval(x)
    ref = stats.t.interval(0.95, len(x) - 1, loc=np.mean(x), scale=stats.sem(x))
    assert (low, high) == pytest.approx(ref, abs=1e-12)
    assert all(math.isnan(v) for v in mean_interval([]))
    assert mean_interval([0.5])[0] == 0.5 and math.isnan(mean_interval([0.5])[1])


def test_mean_interval_of_a_measure_in_0_1_stays_in_its_range():
    from assay.stats.mean import mean_ci

    x = [1.0] * 18 + [0.5, 0.0]  # scipy's t interval reaches above 1
    ref = stats.t.interval(0.95, len(x) - 1, loc=np.mean(x), scale=stats.sem(x))
    assert ref[1] > 1.0
    assert mean_ci(x, bounds=(0.0, 1.0), method="t") == pytest.approx((ref[0], 1.0), abs=1e-12)  # t, clipped
    mean, low, high = mean_interval(x, bounds=(0.0, 1.0))  # with bounds: the betting interval
    assert mean == pytest.approx(0.925) and (low, high) == mean_ci(x, bounds=(0.0, 1.0)) and 0 < low < 0.925 < high <= 1
    assert mean_interval(x)[2] == pytest.approx(ref[1], abs=1e-12)  # t, unclipped without bounds


def test_wilson_and_quantile_intervals():
    # Wilson for 8/10 at 95%: centre (8 + 1.92)/(10 + 3.84) = 0.7168, half 1.96*sqrt(1.6 + 0.96)/13.84 = 0.2286
    low, high = proportion_interval(8, 10)
    assert (low, high) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert all(math.isnan(v) for v in proportion_interval(0, 0))
    x = np.arange(1, 201, dtype=float)
    q, lo, hi = quantile_interval(x)
    assert q == pytest.approx(np.quantile(x, 0.95)) and lo <= q <= hi


def test_paired_tests_match_scipy_and_holm_by_hand():
    rng = np.random.default_rng(0)
    idx = [f"q{i}" for i in range(30)]
    base = rng.random(30)
    modes = {"a": pd.DataFrame({"m": base}, index=idx), "b": pd.DataFrame({"m": base + 0.2 + rng.normal(0, .1, 30)}, index=idx),
             "c": pd.DataFrame({"m": base + rng.normal(0, .1, 30)}, index=idx)}
    rows = paired_tests(modes, ["m"])
    assert [(r["a"], r["b"]) for r in rows] == [("a", "b"), ("a", "c"), ("b", "c")]
    ps = [stats.ttest_rel(modes[r["a"]]["m"], modes[r["b"]]["m"]).pvalue for r in rows]
    assert [r["p"] for r in rows] == pytest.approx(ps)
    # Holm by hand: sort p ascending, multiply the i-th smallest by (3 - i), keep running maximum, cap at 1
    order = np.argsort(ps)
    adjusted, running = [0.0] * 3, 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, ps[j] * (3 - i)))
        adjusted[j] = running
    assert [r["p_holm"] for r in rows] == pytest.approx(adjusted)
    same = paired_tests({"a": modes["a"], "z": modes["a"]}, ["m"])
    assert same[0]["p"] == 1.0 and same[0]["reject"] is False


def test_manifest_refuses_a_mode_on_other_inputs(tmp_path):
    corpus, queries = tmp_path / "c.jsonl", tmp_path / "q.jsonl"
    corpus.write_text("a\n")
    queries.write_text("b\n")
    m = build_manifest(str(corpus), str(queries), {"depth": 100})
    assert check_same({"lexical": m, "semantic": dict(m)}) == m
    changed = build_manifest(str(corpus), str(queries), {"depth": 50})
    other = {**m, "libraries": {**m["libraries"], "bm25s": "0.0.1"}}
    with pytest.raises(ManifestMismatch) as e:
        check_same({"lexical": m, "semantic": m, "hybrid": changed, "graph": other})
    text = str(e.value)
    assert "mode 'hybrid' differs from 'lexical' in params_sha256" in text
    assert "mode 'graph' differs from 'lexical' in libraries.bm25s" in text


def doc(doc_id, text, **kw):
    return StudyDocument(doc_id=doc_id, family="f", kind="policy", title="t", text=text, valid_from="2025-01-01", **kw)


def test_answer_rates_by_hand():
    docs = [doc("new", "router fee is 400 BDT"), doc("old", "router fee was 500 BDT", valid_to="2025-01-01",
                                                       superseded_by="new"),
            doc("src", "notice about the router fee")]
    queries = [StudyQuery(query_id="q1", task="current", text="router fee", acceptable_citation_ids=("new",)),
               StudyQuery(query_id="q2", task="current", text="router fee", acceptable_citation_ids=("new",)),
               StudyQuery(query_id="q3", task="abstain", text="satellite television fee"),
               StudyQuery(query_id="q4", task="trace", text="router fee notice", acceptable_citation_ids=("src",))]
    run = Run(pd.DataFrame({"qid": ["q1", "q2", "q2", "q3", "q4", "q4"],
                            "docno": ["new", "old", "new", "new", "src", "new"],
                            "score": [1.0, 2.0, 1.0, 1.0, 2.0, 3.0]}))
    # q4: "new" ranks first but is a graph-only heuristic candidate, so "src" is cited
    table = answer_table(run, {"q4": ["new"]}, docs, queries, min_support=0.6)
    t = table.set_index("query_id")
    assert list(t["cited"].fillna("-")) == ["new", "old", "-", "src"]
    assert t.loc["q3", "support"] == pytest.approx(1 / 3)  # only "fee" of satellite, television, fee
    rates = answer_rates(table)
    assert (rates["citation_provenance_accuracy"].hits, rates["citation_provenance_accuracy"].n) == (2, 3)
    assert (rates["stale_answer_rate"].hits, rates["stale_answer_rate"].n) == (1, 2)
    assert (rates["abstention_quality"].hits, rates["abstention_quality"].n) == (1, 1)
    assert (rates["false_abstention_rate"].hits, rates["false_abstention_rate"].n) == (0, 3)
    assert support("", "anything") == 0.0
