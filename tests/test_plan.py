import subprocess
import sys

import pytest
import yaml

from assay.core.errors import InputError
from pydantic import ValidationError

from assay.data.plan import Metric, Plan, load_plan, plan_problems
from conftest import ROOT

GOOD = {
    "task": "Answer customers' questions from the help centre.",
    "dataset": {"path": "data/cases.jsonl"},
    "failures": [
        {"name": "wrong policy stated as fact", "cost": "high", "harmed": "customer", "metric": "answer_correct"},
        {"name": "answer given when the documents are silent", "cost": "high", "harmed": "customer", "metric": "abstain_correct"},
        {"name": "citation does not hold the claim", "cost": "medium", "harmed": "support agent", "metric": "citation_support"},
        {"name": "reply is not valid JSON", "cost": "low", "harmed": "integrator", "metric": "format_ok"},
    ],
    "metrics": [
        {"name": "answer_correct", "family": "correctness", "gate": "block", "threshold": 0.85},
        {"name": "abstain_correct", "family": "correctness", "gate": "block", "threshold": 0.9},
        {"name": "citation_support", "family": "groundedness", "gate": "block", "threshold": 0.9},
        {"name": "format_ok", "family": "format", "gate": "report", "threshold": 0.99},
    ],
    "release_rule": "Ship when every blocking metric meets its threshold.",
}


def plan(**over):
    data = {**GOOD, **over}
    return Plan.model_validate(data)


def test_good_plan_has_no_problems():
    assert plan_problems(plan()) == []


def test_weakened_metric_names_the_unguarded_failure():
    metrics = [dict(m, gate="report") if m["name"] == "abstain_correct" else m for m in GOOD["metrics"]]
    assert plan_problems(plan(metrics=metrics)) == [
        "high-cost failure 'answer given when the documents are silent' is not guarded by a blocking metric (abstain_correct is report)"]


def test_each_problem_kind():
    metrics = [m for m in GOOD["metrics"] if m["family"] != "groundedness"]
    metrics[0] = dict(metrics[0], threshold=None)
    failures = GOOD["failures"] + [{"name": "slow", "cost": "low", "harmed": "customer", "metric": "latency_p95"}]
    assert plan_problems(plan(metrics=metrics, failures=failures)) == [
        "blocking metric answer_correct has no threshold",
        "failure 'citation does not hold the claim' names unknown metric citation_support (known: abstain_correct, answer_correct, format_ok)",
        "failure 'slow' names unknown metric latency_p95 (known: abstain_correct, answer_correct, format_ok)",
        "no groundedness metric",
        "high-cost failure 'wrong policy stated as fact' is not guarded by a blocking metric (answer_correct is block)",
    ]


def test_meets_respects_direction_and_undefined_values():
    m = plan().metric("answer_correct")
    assert m.meets(0.85) is True and m.meets(0.84) is False and m.meets(None) is None
    low = m.model_copy(update={"direction": "lower", "threshold": 1500})
    assert low.meets(1200) is True and low.meets(1600) is False


def test_bad_plan_errors_name_line_and_field(tmp_path):
    data = {**GOOD, "metrics": GOOD["metrics"][:1] + [dict(GOOD["metrics"][1], gate="blok", colour="red")]}
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_plan(path)
    lines = path.read_text().splitlines()
    gate_line = next(i for i, ln in enumerate(lines, 1) if "blok" in ln)
    colour_line = next(i for i, ln in enumerate(lines, 1) if "colour" in ln)
    assert str(err.value).splitlines() == [
        f"{path}:{gate_line}: field 'metrics.1.gate': 'blok' is not one of block, report (fix: use one of block, report)",
        f"{path}:{colour_line}: field 'metrics.1.colour': unknown field (fix: remove it or use one of name, family, gate, "
        "threshold, direction, no_regression, min_n, decide, max_regression, regression_rule, across_repeats, description)",
    ]


def test_yaml_syntax_error_names_the_line(tmp_path):
    path = tmp_path / "plan.yaml"
    path.write_text("task: x\nfailures: [\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"plan.yaml:3: not valid YAML"):
        load_plan(path)


@pytest.mark.parametrize("family, threshold, ok", [
    ("correctness", -1, False), ("correctness", 1.2, False), ("correctness", 0, True), ("correctness", 1, True),
    ("retrieval", 1.0001, False), ("format", float("nan"), False), ("latency", -0.5, False), ("latency", 0, True),
    ("latency", 1500, True), ("groundedness", None, True),
])
def test_thresholds_must_lie_in_the_metric_family_range(family, threshold, ok):
    row = {"name": "m", "family": family, "gate": "report", "threshold": threshold}
    if ok:
        assert Metric.model_validate(row).threshold == threshold
    else:
        with pytest.raises(ValidationError, match=f"outside the range of a {family} metric"):
            Metric.model_validate(row)


def test_out_of_range_threshold_names_its_line(tmp_path):
    data = {**GOOD, "metrics": [dict(GOOD["metrics"][0], threshold=-1)] + GOOD["metrics"][1:]}
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_plan(path)
    line = next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if "threshold: -1" in ln)
    assert str(err.value).startswith(f"{path}:{line}: field 'metrics.0.threshold': threshold -1.0 is outside the range "
                                     "of a correctness metric, [0, 1]")


def test_review_agreement_is_optional_conservative_by_default_and_validated(tmp_path):
    assert plan().review_agreement is None
    r = plan(review_agreement={"queues": ["demo"], "min_agreement": 0.6}).review_agreement
    assert (r.queues, r.min_agreement, r.use) == (["demo"], 0.6, "lower_bound")
    data = {**GOOD, "review_agreement": {"queues": [], "min_agreement": 1.5, "use": "mean"}}
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_plan(path)
    fields = [line.split("field '")[1].split("'")[0] for line in str(err.value).splitlines()]
    assert fields == ["review_agreement.queues", "review_agreement.min_agreement", "review_agreement.use"]


# --- the plan checked whole, on a team's project made by `assay init` (parts core, judge) ---------------

@pytest.fixture
def team_project(tmp_path, monkeypatch):
    from assay.project.init import init_project

    root = init_project(tmp_path / "p", ["judge"], "minimal", setup=False).root
    monkeypatch.chdir(root)
    monkeypatch.delenv("CI", raising=False)
    return root


def _add_metric(root, **metric) -> int:
    """Append a metric to the project's plan; return the line of its ``name``."""
    path = root / "data/plan.yaml"
    plan = yaml.safe_load(path.read_text(encoding="utf-8"))
    plan["metrics"].append({"name": metric.pop("name"), "family": "correctness", "gate": "block", **metric})
    text = yaml.safe_dump(plan, sort_keys=False, allow_unicode=True, width=200)
    path.write_text(text, encoding="utf-8")
    lines = text.splitlines()
    return max(i for i, line in enumerate(lines, 1) if line == f"- name: {plan['metrics'][-1]['name']}")


@pytest.mark.parametrize(("metric", "field", "message"), [
    ({"name": "answer_corect", "threshold": 0.8}, "name",
     "blocking metric 'answer_corect' is computed by no stage, so the gate could never decide it (did you mean "
     "answer_correct?) (fix: name one of pass_rate, recall_at_k, citation_support, answer_correct, abstain_correct, "
     "format_ok, latency_p95_ms, tool_selection, tool_arguments, tool_permission, ppi_win_rate, ppi_score, or make it "
     "gate: report)"),
    ({"name": "ppi_win_rate", "threshold": 0.5}, "name",
     "metric ppi_win_rate is computed by the ppi stage, which the project's parts (core, judge) do not run (fix: add "
     "the parts it needs (core, judge, queue: `assay add queue`), or remove the metric from the plan)"),
    ({"name": "recall_at_k", "family": "latency", "threshold": 5, "gate": "report"}, "threshold",
     "threshold 5 is outside the range of recall_at_k, [0, 1] (fix: give a threshold in [0, 1]: one outside it is met "
     "by every value, or by none)"),
])
def test_a_plan_the_gate_could_never_decide_is_refused_before_anything_runs(team_project, capsys, metric, field, message):
    from assay.cli import main

    line = _add_metric(team_project, **metric) + (3 if field == "threshold" else 0)  # name, family, gate, threshold
    index = len(yaml.safe_load((team_project / "data/plan.yaml").read_text())["metrics"]) - 1
    assert main(["validate", "data/plan.yaml"]) == 1
    err = capsys.readouterr().err
    assert err == f"assay validate: data/plan.yaml:{line}: field 'metrics.{index}.{field}': {message}\n"
    # the plan stage refuses it the same way (exit 1, one line, no traceback)
    stage = subprocess.run([sys.executable, str(ROOT / "stages/plan.py")], cwd=team_project, capture_output=True, text=True)
    assert (stage.returncode, stage.stderr) == (1, f"stage plan: data/plan.yaml:{line}: field 'metrics.{index}.{field}': {message}\n")
    # and the gate never meets it: exit 2 (an input problem), not 1 ("threshold unmet") and no traceback
    assert main(["gate", "--skip-dvc-status"]) == 2
    out = capsys.readouterr()
    assert "params or plan unusable" in out.out and f"data/plan.yaml:{line}" in out.out and "Traceback" not in out.err


def test_the_init_projects_plan_is_valid_for_its_parts(team_project, capsys):
    from assay.cli import main

    assert main(["validate", "data/plan.yaml"]) == 0
    assert capsys.readouterr().out.startswith("data/plan.yaml: valid plan")
