"""assay.study.verdict: passes only when every condition and every threshold holds; publishes everything."""

from __future__ import annotations

from pathlib import Path

from assay.artifacts.study import VerdictMetrics
from assay.relevance.params import MODES
from assay.relevance.thresholds import load_thresholds
from assay.study.conditions import CONDITIONS, Condition
from assay.study.verdict import decide, verdict_markdown, verdict_metrics

THRESHOLDS = load_thresholds(Path(__file__).resolve().parents[1] / "data/relevance/thresholds.yaml")
GIVEN = ("judgments_and_receipt", "adjudicated", "hashes_verified", "holdout_opened", "human_evidence")


def figures(**values) -> dict:
    """One mode's thresholds block with every figure just meeting its threshold unless overridden."""
    out = {}
    for key, t in THRESHOLDS.items():
        v = values.get(key, t.value)
        out[key] = {"value": v, "low": None if v is None else v - 0.01, "high": None if v is None else v + 0.01,
                    "threshold": t.value, "pass": int(t.met(v))}
    return {"thresholds": out, "thresholds_met": sum(x["pass"] for x in out.values())}


def evaluation(**per_mode) -> dict:
    modes = {m: figures(**per_mode.get(m, {})) for m in MODES}
    return {"development": {"modes": modes}, "sealed_holdout": {"modes": modes}}


def conditions(failing: str | None = None) -> list[Condition]:
    return [Condition(k, k != failing, "why") for k in GIVEN]


def test_passes_when_every_condition_and_threshold_holds():
    outcome = decide(conditions(), evaluation(), "hybrid")
    assert outcome.passed and all(m["passed"] for m in outcome.modes.values())
    assert [c.key for c in outcome.conditions] == list(GIVEN) + ["same_runtime", "all_published"]
    assert set(CONDITIONS) == {c.key for c in outcome.conditions}


def test_one_failed_condition_fails_every_mode():
    for key in GIVEN:
        outcome = decide(conditions(failing=key), evaluation(), "hybrid")
        assert not outcome.passed and not any(m["passed"] for m in outcome.modes.values())


def test_one_unmet_threshold_fails_that_mode_and_is_published():
    outcome = decide(conditions(), evaluation(hybrid={"ndcg_at_10": 0.69}, lexical={"p95_latency_ms": 1600}), "hybrid")
    assert not outcome.passed
    assert {m: v["passed"] for m, v in outcome.modes.items()} == {"graph": 1, "hybrid": 0, "lexical": 0,
                                                                       "reranked": 1, "semantic": 1}
    page = verdict_markdown(outcome, evaluation(hybrid={"ndcg_at_10": 0.69}), {}, THRESHOLDS, "hybrid", False, {}, 0.95)
    assert "**Verdict: NOT PASSED** for the candidate mode `hybrid` (3 of 5 modes pass)" in page
    assert "- hybrid: ndcg_at_10 = 0.6900 (needs >= 0.7)" in page
    assert "- lexical: p95_latency_ms = 1600 (needs <= 1500)" in page
    assert "0.690 [0.680, 0.700] **UNMET**" in page
    assert page.count("| hybrid | 0.") == 2  # sealed holdout and development tables (the third row: answer counts)


def test_an_undefined_figure_or_a_missing_mode_fails_the_conditions():
    outcome = decide(conditions(), evaluation(graph={"abstention_quality": None}), "hybrid")
    published = {c.key: c for c in outcome.conditions}["all_published"]
    assert not published.ok and "graph: abstention_quality" in published.detail
    ev = evaluation()
    del ev["sealed_holdout"]["modes"]["graph"]
    same = {c.key: c for c in decide(conditions(), ev, "hybrid").conditions}["same_runtime"]
    assert not same.ok


def test_sealed_holdout_not_evaluated_is_not_a_pass_and_the_page_says_so():
    ev = {"development": evaluation()["development"], "sealed_holdout": {}}
    outcome = decide(conditions(), ev, "hybrid")
    assert not outcome.passed and outcome.modes == {}
    page = verdict_markdown(outcome, ev, {}, THRESHOLDS, "hybrid", True, {"thresholds.yaml": "ab"}, 0.95)
    assert "**Synthetic evidence.**" in page and "has not been opened" in page and "- thresholds.yaml: `ab`" in page


def test_metrics_are_numbers_only_and_fit_the_model():
    receipt = {"pairs": 8, "disagreements": 3,
               "measures": [{"value": 0.5, "interval": {"low": 0.1, "high": 0.8}},
                            {"value": None, "interval": {"low": None, "high": None}}]}
    outcome = decide(conditions(failing="human_evidence"), evaluation(), "hybrid")
    m = VerdictMetrics(**verdict_metrics(outcome, evaluation(), {"development": receipt}, True, True))
    assert m.passed == 0 and m.synthetic == 1 and m.conditions_met == 6 and m.conditions["human_evidence"] == 0
    assert m.agreement["development"].kappa.value is None and m.sealed_holdout["hybrid"].thresholds_met == 7


def test_the_page_shows_the_answer_figures_with_intervals_and_their_counts():
    from statsmodels.stats.proportion import proportion_confint

    # hybrid on the sealed holdout: 19 of 20 answers cite an acceptable document, 1 of 20 a stale one,
    # 27 of 30 answer-or-abstain decisions match the people's, 0 of 20 citations unjudged
    counts = {"citation_provenance_accuracy": (19, 20), "stale_answer_rate": (1, 20), "abstention_quality": (27, 30),
              "unjudged_citation_rate": (0, 20)}
    wilson = {k: proportion_confint(h, n, alpha=0.05, method="wilson") for k, (h, n) in counts.items()}
    keys = {"citation_provenance_accuracy": "citation_provenance_accuracy", "stale_answer_rate": "stale_answer_rate_max",
            "abstention_quality": "abstention_quality"}
    ev = evaluation()
    for split in ("development", "sealed_holdout"):
        hybrid = figures(**{keys[k]: h / n for k, (h, n) in counts.items() if k in keys})
        for k, key in keys.items():
            hybrid["thresholds"][key].update(low=wilson[k][0], high=wilson[k][1])
        hybrid["answers"] = {k: {"value": h / n, "low": wilson[k][0], "high": wilson[k][1], "n": n}
                             for k, (h, n) in counts.items()}
        ev[split]["modes"] = {**ev[split]["modes"], "hybrid": hybrid}
    outcome = decide(conditions(), ev, "hybrid")
    page = verdict_markdown(outcome, ev, {}, THRESHOLDS, "hybrid", False, {}, 0.95)
    # 19/20 = 0.950, Wilson [0.764, 0.991]; 1/20 = 0.050, Wilson [0.009, 0.236] (> 0.02: unmet); 27/30 = 0.900 [0.744, 0.965]
    row = next(line for line in page.splitlines() if line.startswith("| hybrid | 0.800"))
    assert "| 0.950 [0.764, 0.991] met | 0.050 [0.009, 0.236] **UNMET** | 0.900 [0.744, 0.965] met |" in row
    assert "- hybrid: stale_answer_rate_max = 0.0500 (needs <= 0.02)" in page
    assert "scored against the people's final labels" in page
    assert "| hybrid | 19/20 | 1/20 | 27/30 | 0/20 |" in page
    assert "| lexical | n/a | n/a | n/a | n/a |" in page  # a mode without answer counts is shown as such
