"""IR measures against pytrec_eval (trec_eval's own C code) and against hand computations."""

import math

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

from assay.relevance.measures import MeasureError, evaluate, parse_measure, parse_measures
from assay.relevance.ranking import order
from assay.relevance.trec import Qrels, Run

# our name -> pytrec_eval measure (RR@k is compared on the run cut to its first k documents)
PAIRS = {"R@10": "recall_10", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "AP": "map", "RR": "recip_rank",
         "P@5": "P_5", "R@5": "recall_5", "nDCG@5": "ndcg_cut_5"}


def qrels_of(rows):
    return Qrels(pd.DataFrame(rows, columns=["qid", "docno", "grade"]))


def run_of(rows):
    return Run(pd.DataFrame(rows, columns=["qid", "docno", "score"]))


def random_case(rng):
    """Random qrels and run with ties, -1 grades, unjudged documents and queries missing on either side."""
    qrels_rows, run_rows = [], []
    for q in range(10):
        pool = [f"d{rng.integers(0, 40)}" for _ in range(30)]
        if q != 8:  # q8: in the run, not in the qrels
            for d in sorted(set(pool[:rng.integers(0, 15)])):
                qrels_rows.append((f"q{q}", d, int(rng.choice([-1, 0, 1, 2, 3]))))
        if q != 9:  # q9: in the qrels, not in the run
            for d in sorted(set(pool[rng.integers(0, 10):])):
                run_rows.append((f"q{q}", d, float(rng.integers(0, 4)) / 2))  # few distinct scores: many ties
    return qrels_rows, run_rows


def nested(rows):
    out = {}
    for q, d, v in rows:
        out.setdefault(q, {})[d] = v
    return out


def cut(run: Run, k: int) -> dict:
    """The first k documents of each query in trec_eval order, as a pytrec_eval run."""
    t = run.table.iloc[order(run.table)]
    t = t[t.groupby("qid").cumcount() < k]
    return nested(zip(t["qid"], t["docno"], t["score"], strict=True))


@pytest.mark.parametrize("seed", range(40))
def test_every_measure_matches_pytrec_eval_per_query(seed):
    rng = np.random.default_rng(seed)
    qrels_rows, run_rows = random_case(rng)
    level = int(rng.choice([1, 2]))
    ours = evaluate(qrels_of(qrels_rows), run_of(run_rows), list(PAIRS) + ["RR@10"], relevance_level=level)
    evaluator = pytrec_eval.RelevanceEvaluator(nested(qrels_rows), {"map", "P", "recall", "ndcg_cut", "recip_rank"},
                                               relevance_level=level)
    theirs = evaluator.evaluate(nested(run_rows))
    rr10 = pytrec_eval.RelevanceEvaluator(nested(qrels_rows), {"recip_rank"}, relevance_level=level).evaluate(
        cut(run_of(run_rows), 10))
    assert set(ours.per_query.index) == set(theirs)
    worst = 0.0
    for qid, values in theirs.items():
        for mine, name in PAIRS.items():
            worst = max(worst, abs(ours.per_query.loc[qid, mine] - values[name]))
        worst = max(worst, abs(ours.per_query.loc[qid, "RR@10"] - rr10[qid]["recip_rank"]))
    assert worst <= 1e-12


def test_missing_queries_follow_trec_eval_and_dash_c():
    qrels = qrels_of([("a", "d1", 1), ("b", "d2", 1), ("c", "d3", 0)])
    run = run_of([("a", "d1", 1.0), ("c", "d3", 1.0), ("x", "d9", 1.0)])
    default = evaluate(qrels, run, "P@10,AP")
    assert list(default.per_query.index) == ["a", "c"]  # b: not in run; x: not in qrels
    assert default.missing_from_run == ["b"] and default.not_in_qrels == ["x"]
    assert default.mean["AP"] == pytest.approx((1.0 + 0.0) / 2)  # c has no relevant document: AP 0
    complete = evaluate(qrels, run, "P@10,AP", complete=True)
    assert list(complete.per_query.index) == ["a", "b", "c"]
    assert complete.per_query.loc["b", "AP"] == 0.0
    assert complete.mean["AP"] == pytest.approx(1.0 / 3)  # trec_eval -c: divide by the 3 qrels queries


def test_ties_are_broken_by_docno_descending_and_rank_column_is_ignored():
    # d2 and d10 tie; "d2" > "d10" as strings, so d2 ranks first whatever the rank column said
    qrels = qrels_of([("q", "d10", 1)])
    ev = evaluate(qrels, run_of([("q", "d10", 5.0), ("q", "d2", 5.0)]), "RR")
    assert ev.per_query.loc["q", "RR"] == 0.5


def test_minus_one_is_gain_zero_and_not_in_the_ideal_ranking():
    # ranking: d1 (grade -1), d2 (grade 2). Ideal over positive grades only: [2].
    # DCG = 0/log2(2) + 2/log2(3); IDCG = 2/log2(2) = 2; nDCG = (2/log2 3)/2 = 0.6309...
    qrels = qrels_of([("q", "d1", -1), ("q", "d2", 2)])
    ev = evaluate(qrels, run_of([("q", "d1", 2.0), ("q", "d2", 1.0)]), "nDCG@10,P@10")
    assert ev.per_query.loc["q", "nDCG@10"] == pytest.approx(1 / math.log2(3))
    assert ev.per_query.loc["q", "P@10"] == pytest.approx(0.1)  # P divides by the cutoff, not by the retrieved


def test_no_shared_query_gives_nan_means():
    ev = evaluate(qrels_of([("a", "d", 1)]), run_of([("b", "d", 1.0)]), "AP")
    assert math.isnan(ev.mean["AP"]) and ev.per_query.empty


def test_measure_names_parse_and_unknown_names_are_refused():
    assert [m.name for m in parse_measures("R@10,nDCG@10,RR@10,P@10,AP")] == ["R@10", "nDCG@10", "RR@10", "P@10", "AP"]
    assert parse_measure("RR").cutoff is None
    with pytest.raises(MeasureError, match=r"'MAP' is not a measure; use P@k"):
        parse_measure("MAP")
    with pytest.raises(MeasureError, match="no measure given"):
        parse_measures(" , ")


def test_json_states_the_missing_query_semantics():
    ev = evaluate(qrels_of([("a", "d1", 1), ("b", "d1", 1)]), run_of([("a", "d1", 1.0)]), "AP")
    out = ev.to_json()
    assert out["mean"] == {"AP": 1.0} and out["per_query"] == {"a": {"AP": 1.0}}
    assert out["queries"]["missing_from_run"] == ["b"] and "trec_eval -c" in out["note"]
