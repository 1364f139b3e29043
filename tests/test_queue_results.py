"""Judge-versus-people results against independent computations and the annotation-queue notes' definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from assay.queue.items import JudgeOpinion
from assay.artifacts.queue import ReviewMetrics
from assay.queue.results import AgreementEvidence, agreement_reading, review_metrics, summarize
from assay.queue.snapshot import QueueMeta, ReviewRow, Snapshot

CRITERIA = ["correctness", "helpfulness", "tone", "format"]


def row(i: int, choice, verdict, mine=3, theirs=None, kind="pair") -> ReviewRow:
    scores = {"a": dict.fromkeys(CRITERIA, mine), "b": dict.fromkeys(CRITERIA, mine)}
    judge_scores = None if theirs is None else {"a": dict.fromkeys(CRITERIA, theirs), "b": dict.fromkeys(CRITERIA, theirs)}
    return ReviewRow(item=f"i{i}", kind=kind, reviewer="r", question="q", answers={"a": "x", "b": "y"},
                     judge=JudgeOpinion(verdict=verdict, scores=judge_scores, reason="because"),
                     shown_order="ab", choice=choice, scores=scores, note="mine")


def snap(rows, fill="random") -> Snapshot:
    meta = QueueMeta(name="t", source="s", fill=fill, seed=0, n_items=len(rows), reviewers_per_item=1,
                     rubric_sha256="0" * 64, criteria=CRITERIA)
    return Snapshot(queue=meta, reviews=rows)


def test_agreement_counts_only_items_both_decided():
    # 6 items both decided (4 agree), plus a reviewer tie, a judge tie and a silent judge: all left out
    rows = [row(0, "a", "a"), row(1, "b", "b"), row(2, "a", "a"), row(3, "b", "b"), row(4, "a", "b"), row(5, "b", "a"),
            row(6, "tie", "a"), row(7, "a", "tie"), row(8, "b", None)]
    s = summarize(snap(rows))
    a = s["agreement"]
    assert (a["agreed"], a["n_decided"]) == (4, 6)
    assert a["agreement"] == pytest.approx(4 / 6)
    assert (s["counts"]["human_tie"], s["counts"]["judge_tie"], s["counts"]["judge_silent"]) == (1, 1, 1)
    # kappa over the same six decided items, against scikit-learn
    assert a["kappa"] == pytest.approx(cohen_kappa_score(list("ababab"), list("ababba")))
    assert len(s["disagreements"]) == 2
    assert {d["judge_rationale"] for d in s["disagreements"]} == {"because"}
    assert {d["reviewer_rationale"] for d in s["disagreements"]} == {"mine"}


def test_agreement_interval_is_wilson_by_hand():
    # 4 of 6 decided items agree. Wilson: (p + z^2/2n -/+ z*sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), p = 4/6
    rows = [row(0, "a", "a"), row(1, "b", "b"), row(2, "a", "a"), row(3, "b", "b"), row(4, "a", "b"), row(5, "b", "a")]
    a = summarize(snap(rows))["agreement"]
    z, n, p = stats.norm.ppf(0.975), 6, 4 / 6
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert a["ci_low"] == pytest.approx((centre - half) / (1 + z * z / n))
    assert a["ci_high"] == pytest.approx((centre + half) / (1 + z * z / n))
    none = summarize(snap([row(0, "tie", "a")]))["agreement"]
    assert math.isnan(none["ci_low"]) and math.isnan(none["ci_high"])


def test_no_decided_item_is_nan_with_a_reason():
    s = summarize(snap([row(0, "tie", "a"), row(1, "a", "tie")]))
    assert math.isnan(s["agreement"]["agreement"]) and s["agreement"]["n_decided"] == 0
    assert s["agreement"]["reading"].startswith("undefined")


def test_sixty_percent_on_two_way_choices_is_barely_above_chance():
    reading = agreement_reading(0.6)
    assert "coin" in reading and "only a little better than chance" in reading
    assert agreement_reading(0.85).startswith("about 80% or more")
    assert agreement_reading(0.55).startswith("below about 60%: do not decide on the judge's numbers alone")


def test_score_gap_is_people_minus_judge_with_a_t_interval():
    rows = [row(0, "a", "a", mine=2, theirs=4), row(1, "a", "a", mine=4, theirs=4), row(2, "b", "b", mine=3, theirs=4)]
    g = summarize(snap(rows))["score_gaps"]["correctness"]
    diffs = np.array([-2, -2, 0, 0, -1, -1], dtype=float)  # two answers per review
    ci = stats.ttest_1samp(diffs, 0).confidence_interval(0.95)
    assert g["gap"] == pytest.approx(diffs.mean()) == pytest.approx(-1.0)
    assert (g["ci_low"], g["ci_high"]) == pytest.approx((ci.low, ci.high))
    assert g["n"] == 6 and g["flag"] == 1  # |gap| >= 1: look closer


def test_small_gap_is_not_flagged_and_no_judge_scores_give_nan():
    s = summarize(snap([row(0, "a", "a", mine=4, theirs=4), row(1, "a", "a", mine=5, theirs=4)]))
    assert s["score_gaps"]["tone"]["flag"] == 0 and s["score_gaps"]["tone"]["gap"] == pytest.approx(0.5)
    none = summarize(snap([row(0, "a", "a")]))["score_gaps"]["format"]
    assert none["n"] == 0 and math.isnan(none["gap"]) and none["flag"] == 0


def test_metrics_are_numbers_only_and_the_gate_never_accepts_a_hard_fill():
    rows = [row(i, "a", "a") for i in range(9)] + [row(9, "a", "b")]
    for fill, random_fill in (("random", True), ("hard", False)):
        m = review_metrics(summarize(snap(rows, fill)))
        flat = [v for v in m.values() if not isinstance(v, dict)] + [x for g in m["score_gap"].values() for x in g.values()]
        assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in flat)
        assert m["random_fill"] == int(random_fill)
        evidence = AgreementEvidence.from_metrics(ReviewMetrics(**m))
        assert evidence.agreement == pytest.approx(0.9) and evidence.random_fill is random_fill
        # 9 of 10: Wilson lower bound 0.5958 (statsmodels), so 0.5 is met on the bound and 0.8 only on the estimate
        assert evidence.ci_low == pytest.approx(0.5958, abs=1e-4)
        assert evidence.supports(0.5)[0] is random_fill
        assert evidence.supports(0.8)[0] is False
        assert evidence.supports(0.8, "estimate")[0] is random_fill
    ok, why = AgreementEvidence(0.95, 0.8, 1.0, 50, False, 48).supports(0.5)
    assert not ok and why.startswith("hard-fill queue, never evidence of overall agreement: a hard fill picks the items")
    assert AgreementEvidence(0.7, 0.6, 0.8, 50, True, 35).supports(0.8, "estimate")[0] is False
    nothing = AgreementEvidence(math.nan, math.nan, math.nan, 0, True, 0).supports(0.0)
    assert nothing == (False, "no item that both the reviewers and the judge decided (ties on either side are left out)")
