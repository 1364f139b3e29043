from assay.release.checks import Check, GateParams, checks_table, exit_code, freshness_checks, judge_checks, metric_checks
from assay.data.plan import Plan

PLAN = Plan.model_validate({
    "task": "t", "dataset": {"path": "data/cases.jsonl"}, "release_rule": "r",
    "failures": [{"name": "wrong", "cost": "high", "harmed": "customer", "metric": "answer_correct"}],
    "metrics": [
        {"name": "answer_correct", "family": "correctness", "gate": "block", "threshold": 0.85, "no_regression": True},
        {"name": "latency_p95_ms", "family": "latency", "gate": "block", "threshold": 1500, "direction": "lower"},
        {"name": "recall_at_k", "family": "retrieval", "gate": "report", "threshold": 0.8},
    ]})


def test_thresholds_directions_and_regressions():
    checks = metric_checks(PLAN, {"answer_correct": 0.9, "latency_p95_ms": 1600}, {"regressions": {"answer_correct": 2}}, "cand")
    assert [(c.name, c.status) for c in checks] == [
        ("answer_correct (cand)", "pass"), ("latency_p95_ms (cand)", "fail"), ("no regression on answer_correct", "fail")]
    assert checks[1].detail == "1600 misses <= 1500"
    assert exit_code(checks) == 1


def test_missing_files_and_values_are_never_a_pass():
    checks = metric_checks(PLAN, None, None, "cand")
    assert {c.status for c in checks} == {"missing"} and exit_code(checks) == 2
    checks = metric_checks(PLAN, {"answer_correct": None}, {"regressions": {}}, "cand")
    assert [c.status for c in checks] == ["missing", "missing", "missing"]


def test_judge_and_agreement_floors():
    params = GateParams(min_human_kappa=0.6)
    checks = judge_checks(params, {"kappa": 0.59}, {"usable": 1})
    assert [(c.name, c.status) for c in checks] == [("human agreement", "fail"), ("judge calibration", "pass")]
    assert [c.status for c in judge_checks(params, None, None)] == ["missing", "missing"]
    lenient = GateParams(require_judge=False, require_agreement=False)
    assert judge_checks(lenient, None, None) == []


def test_freshness_names_every_changed_input_and_hashes_each_once():
    calls = []

    def current(name, value):
        def f():
            calls.append(name)
            return value
        return f

    recorded = {"a.json": {"inputs": {"cases": "h1", "corpus": "h2", "unknown": "x"}}, "b.json": {"inputs": {"cases": "h1"}},
                "c.json": {"n": 1}}
    checks = freshness_checks(recorded, {"cases": current("cases", "h1"), "corpus": current("corpus", "NEW")})
    assert [(c.name, c.status, c.detail) for c in checks] == [
        ("fresh a.json", "stale", "changed since the last run: corpus"), ("fresh b.json", "pass", "inputs unchanged")]
    assert sorted(calls) == ["cases", "corpus"]
    assert exit_code(checks) == 2


def test_table_ends_with_the_verdict():
    text = checks_table([Check("x", "pass", "ok"), Check("y", "fail", "bad")])
    assert text.splitlines()[-1] == "verdict: FAIL: a pre-registered threshold is unmet"
    assert exit_code([]) == 0


def test_a_file_specific_input_wins_over_the_plain_name():
    recorded = {"rag/mine.json": {"inputs": {"answers": "old"}}, "rag/other.json": {"inputs": {"answers": "x"}}}
    checks = freshness_checks(recorded, {"rag/mine.json:answers": lambda: "new"})
    assert [(c.name, c.status, c.detail) for c in checks] == [("fresh rag/mine.json", "stale", "changed since the last run: answers")]
