"""Gate rules in process: thresholds on the holdout (unrounded), undefined and thin metrics,
no-regression, judge usability with the record's own reasons, freshness, and exit codes."""

import pytest

from assay.artifacts.estimate import Estimate
from assay.artifacts.judge import AgreementMetrics, CalibrationMetrics
from assay.artifacts.rag import CompareMetrics, RagMetrics, SideMetrics, ToolSlices
from assay.artifacts.registry import METRIC_NAMES
from assay.artifacts.queue import ReviewMetrics
from assay.data.plan import Plan, ReviewAgreement
from assay.release.checks import (Check, GateParams, checks_table, exit_code, freshness_checks, judge_checks, metric_checks,
                                  review_agreement_checks)

from conftest import hand_wilson

PLAN = Plan.model_validate({
    "task": "t", "dataset": {"path": "data/cases.jsonl"}, "release_rule": "r",
    "failures": [{"name": "wrong", "cost": "high", "harmed": "customer", "metric": "answer_correct"}],
    "metrics": [
        {"name": "answer_correct", "family": "correctness", "gate": "block", "threshold": 0.85, "no_regression": True},
        {"name": "latency_p95_ms", "family": "latency", "gate": "block", "threshold": 1500, "direction": "lower"},
        {"name": "recall_at_k", "family": "retrieval", "gate": "report", "threshold": 0.8},
    ]})


def side(**values) -> SideMetrics:
    """A side whose named metrics have the given (value, n) or (value, n, ci_low, ci_high); every other metric undefined."""
    est = {name: Estimate(value=v[0], n=v[1], ci_low=v[2] if len(v) > 2 else None, ci_high=v[3] if len(v) > 2 else None)
           for name, v in values.items()}
    blank = Estimate(value=None, n=0)
    fields = {f: est.get(f, blank) for f in METRIC_NAMES}
    return SideMetrics(n=50, **fields, by_task={}, by_set={}, by_lang={},
                       tools=ToolSlices(by_task={}, by_set={}, by_lang={}))


def run(**holdout) -> RagMetrics:
    return RagMetrics(n=100, dev=side(answer_correct=(1.0, 50), latency_p95_ms=(10.0, 50)), holdout=side(**holdout))


def compare(regressions: dict) -> CompareMetrics:
    e = Estimate(value=0.5, n=2)
    return CompareMetrics(n=2, baseline_pass_rate=e, candidate_pass_rate=e, diff=0.0, diff_ci_low=-1.0, diff_ci_high=1.0,
                          better=0, worse=0, unchanged=2, still_failing=1, p_sign=1.0, mcnemar_statistic=0.0, mcnemar_p=1.0,
                          baseline_by_task={}, candidate_by_task={}, regressions=regressions,
                          regressions_n_paired={k: 2 for k in regressions})


def test_thresholds_are_read_on_the_holdout_and_directions_hold():
    # 40 of 40: one-sided Clopper-Pearson lower bound at 0.025 = 0.025 ** (1 / 40) = 0.9119 >= 0.85;
    # the p95 latency is not a share of cases, so its own 95% interval's upper end (1700) is read: > 1500
    checks = metric_checks(PLAN, run(answer_correct=(1.0, 40), latency_p95_ms=(1600.0, 40, 1400.0, 1700.0)),
                           compare({"answer_correct": 2}), "cand")
    assert [(c.name, c.status) for c in checks] == [
        ("answer_correct (cand, holdout)", "pass"), ("latency_p95_ms (cand, holdout)", "fail"),
        ("no regression on answer_correct", "fail")]
    assert checks[0].value == pytest.approx(0.025 ** (1 / 40), abs=1e-12)
    assert checks[1].detail == ("upper end 1700 of its 95% interval (one-sided level 0.025) misses <= 1500 "
                                "(estimate 1600, n 40)")
    assert checks[2].detail == "2 holdout case(s) went from pass to fail (per-case rule, plan max_regression 0)"
    assert exit_code(checks) == 1


def test_a_point_estimate_above_the_threshold_is_not_enough():
    # 36 of 40 = 0.9 meets 0.85 as an estimate, but its lower bound at 0.025 (statsmodels beta, alpha 0.05:
    # 0.7634) does not: the old rule passed it, the bound rule fails it
    checks = metric_checks(PLAN, run(answer_correct=(0.9, 40), latency_p95_ms=(1.0, 40, 0.5, 2.0)), compare({}), "cand")
    assert checks[0].status == "fail"
    assert checks[0].detail.startswith("lower bound 0.763") and "(estimate 0.9, 36 of 40)" in checks[0].detail


def test_the_gate_compares_unrounded_values():
    # 85,011 / 100,013 = 0.84999950...: it would print as 0.85 to two places but is below 0.85.
    plan = PLAN.model_copy(update={"metrics": [PLAN.metrics[0].model_copy(update={"decide": "estimate"}), *PLAN.metrics[1:]]})
    checks = metric_checks(plan, run(answer_correct=(85011 / 100013, 100013), latency_p95_ms=(1.0, 100013, 0.5, 2.0)),
                           compare({"answer_correct": 0}), "cand")
    assert checks[0].status == "fail" and checks[0].detail == (
        "estimate 0.8499995001 misses >= 0.85 (85011 of 100013; point-estimate rule, plan decide: estimate)")


def test_undefined_and_thin_metrics_fail_with_their_reason_not_as_missing():
    checks = metric_checks(PLAN, run(latency_p95_ms=(10.0, 9)), compare({"answer_correct": 0}), "cand")
    assert [(c.status, c.detail) for c in checks[:2]] == [
        ("fail", "not defined on any holdout case"), ("fail", "too few cases (9 < min_n 10)")]
    assert exit_code(checks) == 1


def test_missing_files_are_never_a_pass():
    checks = metric_checks(PLAN, None, None, "cand")
    assert {c.status for c in checks} == {"missing"} and exit_code(checks) == 2


def test_judge_and_agreement_floors_use_the_records_reasons():
    params = GateParams(min_human_kappa=0.6)
    agreement = AgreementMetrics(n=10, observed=0.8, expected=0.5, kappa=0.59, kappa_se=0.1, kappa_ci_low=0.4,
                                 kappa_ci_high=0.78, level=0.95, disagreements=2, confusion={}, labels={})
    calibration = CalibrationMetrics(n=10, agreement=0.5, agreement_ci_low=0.2, agreement_ci_high=0.8, level=0.95,
                                     kappa=0.1, kappa_ci_low=-0.2, kappa_ci_high=0.4, confusion={}, by_kind={}, by_lang={},
                                     errors={}, order_disagreements=0, flip_pattern={}, flip_share=0.0, invalid_pairs=0, invalid_share=0.0,
                                     invalid=0, refused=0, failed=0, usable=0)
    checks = judge_checks(params, agreement, calibration, ["kappa 0.100 < 0.6"])
    assert [(c.name, c.status, c.detail) for c in checks] == [
        ("human agreement", "fail", "kappa 0.5900 < 0.600"), ("judge calibration", "fail", "not usable: kappa 0.100 < 0.6")]
    assert [c.status for c in judge_checks(params, None, None)] == ["missing", "missing"]
    assert judge_checks(GateParams(require_judge=False, require_agreement=False), None, None) == []


def test_freshness_names_every_changed_input_and_hashes_each_once():
    calls = []

    def current(name, value):
        def f():
            calls.append(name)
            return value
        return f

    recorded = {"a.json": {"cases": "h1", "corpus": "h2", "unknown": "x"}, "b.json": {"cases": "h1"}, "c.json": {}}
    checks = freshness_checks(recorded, {"cases": current("cases", "h1"), "corpus": current("corpus", "NEW")})
    assert [(c.name, c.status, c.detail) for c in checks] == [
        ("fresh a.json", "stale", "changed since the last run: corpus"), ("fresh b.json", "pass", "inputs unchanged")]
    assert sorted(calls) == ["cases", "corpus"]
    assert exit_code(checks) == 2


def test_a_gate_with_nothing_to_check_is_not_a_pass():
    assert exit_code([]) == 2
    assert exit_code([Check("plan", "warn", "a problem")]) == 0
    text = checks_table([Check("x", "pass", "ok"), Check("y", "fail", "bad")])
    assert text.splitlines()[-1] == "verdict: FAIL: a pre-registered threshold is unmet"


def test_a_file_specific_input_wins_over_the_plain_name():
    recorded = {"evaluate_mine": {"answers": "old"}, "evaluate_other": {"answers": "x"}}
    checks = freshness_checks(recorded, {"evaluate_mine:answers": lambda: "new"})
    assert [(c.name, c.status, c.detail) for c in checks] == [
        ("fresh evaluate_mine", "stale", "changed since the last run: answers")]


# ---- judge vs reviewers: the plan's review_agreement ------------------------------------------------

def review(agreed: int, decided: int, random_fill: bool = True, synthetic: bool = False) -> ReviewMetrics:
    """A review queue's metrics with ``agreed`` of ``decided`` and its Wilson interval (hand formula, conftest)."""
    low, high = hand_wilson(agreed, decided) if decided else (None, None)
    return ReviewMetrics(n=decided, n_items=decided, n_pair_reviews=decided, n_decided=decided, agreed=agreed,
                         agreement=agreed / decided if decided else None, agreement_ci_low=low, agreement_ci_high=high,
                         kappa=None, excluded_human_tie=0, excluded_judge_tie=0, excluded_judge_silent=0,
                         n_disagreements=decided - agreed, n_gaps_flagged=0, random_fill=int(random_fill),
                         synthetic=int(synthetic), score_gap={})


def requirement(queues=("rand",), minimum=0.6, use="lower_bound") -> ReviewAgreement:
    return ReviewAgreement(queues=list(queues), min_agreement=minimum, use=use)


def test_no_requirement_in_the_plan_asks_nothing():
    assert review_agreement_checks(None, {"rand": review(1, 10)}, ["rand"]) == []


def test_the_lower_bound_decides_by_default_and_the_estimate_only_when_the_plan_says_so():
    # 9 of 11 (the demo): 0.818, Wilson lower bound 0.5230 (hand formula; statsmodels agrees in test_queue_results)
    reviews = {"rand": review(9, 11)}
    [conservative] = review_agreement_checks(requirement(), reviews, ["rand"])
    assert conservative.status == "fail" and conservative.value == pytest.approx(hand_wilson(9, 11)[0])
    assert conservative.detail == "lower bound 0.523 of agreement 0.818 (9 of 11 decided) is below the minimum 0.6"
    assert conservative.threshold == 0.6 and exit_code([conservative]) == 1
    [point] = review_agreement_checks(requirement(use="estimate"), reviews, ["rand"])
    assert point.status == "pass" and point.value == pytest.approx(9 / 11)
    # 90 of 110 has the same estimate and a lower bound of 0.7371: enough evidence for 0.6
    [many] = review_agreement_checks(requirement(), {"rand": review(90, 110)}, ["rand"])
    assert many.status == "pass" and many.detail.endswith("(90 of 110 decided) meets the minimum 0.6")


def test_a_hard_fill_is_never_evidence_however_high_its_agreement():
    [hard] = review_agreement_checks(requirement(["hard"], minimum=0.5), {"hard": review(100, 100, random_fill=False)},
                                     ["hard"])
    assert hard.status == "fail" and exit_code([hard]) == 1
    assert "never evidence of overall agreement" in hard.detail and "biased low by design" in hard.detail
    assert "only a uniform random sample can" in hard.detail and "--fill random" in hard.detail
    # a random queue beside it passes on its own; the hard one still fails, so the gate does
    checks = review_agreement_checks(requirement(["rand", "hard"], minimum=0.5),
                                     {"rand": review(95, 100), "hard": review(100, 100, random_fill=False)}, ["rand", "hard"])
    assert [(c.name, c.status) for c in checks] == [("judge vs reviewers (rand)", "pass"), ("judge vs reviewers (hard)", "fail")]


def test_unlisted_absent_unusable_and_undecided_queues():
    checks = review_agreement_checks(requirement(["gone", "absent", "old", "broken", "ties"]),
                                     {"absent": None, "old": review(95, 100), "broken": None, "ties": review(0, 0)},
                                     ["absent", "old", "broken", "ties"],
                                     {"old": ("stale", "data/reviews/old.jsonl changed"), "broken": ("missing", "not JSON")})
    assert [(c.name.split("(")[1].rstrip(")"), c.status) for c in checks] == [
        ("gone", "missing"), ("absent", "missing"), ("old", "stale"), ("broken", "missing"), ("ties", "fail")]
    assert "not in review.snapshots" in checks[0].detail and checks[1].detail.startswith("metrics/review/absent.json not found")
    assert checks[4].detail.startswith("no item that both the reviewers and the judge decided") and checks[4].value is None
    assert exit_code(checks) == 2


def test_synthetic_reviews_are_labelled_in_the_detail():
    [check] = review_agreement_checks(requirement(), {"rand": review(95, 100, synthetic=True)}, ["rand"])
    assert check.status == "pass" and check.detail.endswith("(synthetic reviews: demo data, not people)")


def test_the_row_names_the_judge_of_the_verdicts_and_is_stale_for_another_judge():
    from assay.release.checks import ConfiguredJudge

    fake = ConfiguredJudge.from_params("fake", "mixed", None)
    served = ConfiguredJudge.from_params("openai", "mixed", {"model": "SmolLM2-135M", "base_url": "http://x"})
    copied = {"rand": ["fake judge (params judge) + SYNTHETIC rule scores"]}
    reviews = {"rand": review(90, 110)}
    # the fake judge's verdicts, the fake judge configured: the row passes and names them
    [same] = review_agreement_checks(requirement(), reviews, ["rand"], None, copied, fake)
    assert same.status == "pass"
    assert same.detail.endswith("meets the minimum 0.6; verdicts by 'fake judge (params judge) + SYNTHETIC rule scores'")
    # the same verdicts with a served model configured: they are not its verdicts, so the row is stale (exit 2)
    [other] = review_agreement_checks(requirement(), reviews, ["rand"], None, copied, served)
    assert other.status == "stale" and exit_code([other]) == 2
    assert other.detail.endswith("verdicts by 'fake judge (params judge) + SYNTHETIC rule scores', not the configured "
                                 "judge (openai-compatible judge, model SmolLM2-135M; params judge)")
    # the model's own verdicts (case-insensitive text match); a mixed snapshot is stale
    [own] = review_agreement_checks(requirement(), reviews, ["rand"], None, {"rand": ["openai judge smollm2-135m"]}, served)
    assert own.status == "pass"
    mixed = {"rand": ["openai judge SmolLM2-135M", "fake judge"]}
    assert review_agreement_checks(requirement(), reviews, ["rand"], None, mixed, served)[0].status == "stale"
    # unnamed and unrecorded judges are said, not guessed
    [unnamed] = review_agreement_checks(requirement(), reviews, ["rand"], None, {"rand": []}, served)
    assert unnamed.status == "pass" and unnamed.detail.endswith("the snapshot does not name the judge that made its verdicts")
    [unrecorded] = review_agreement_checks(requirement(), reviews, ["rand"], None, {"rand": None}, served)
    assert unrecorded.detail.endswith("is not recorded (run dvc repro review@rand)")
    # a failing row whose verdicts are another judge's is stale: not this judge's evidence either way
    assert review_agreement_checks(requirement(), {"rand": review(9, 11)}, ["rand"], None, copied, served)[0].status == "stale"
