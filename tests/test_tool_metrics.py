"""The tool-use family's rates against hand counts, its slices, its regressions in the comparison, and the plan."""

from __future__ import annotations

import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from assay.artifacts.registry import METRIC_NAMES
from assay.data.plan import METRIC_FAMILIES, Plan, plan_problems
from assay.rag.compare import compare_runs
from assay.rag.metrics import side_metrics, tool_rates

from conftest import hand_wilson


def row(id, task="lookup", set="golden", lang="en", sel=None, right=None, total=None, perm=None, passed=True):
    return {"id": id, "task": task, "set": set, "lang": lang, "passed": passed, "recall_at_k": None,
            "citation_support": None, "answer_correct": None, "abstain_correct": passed, "format_ok": True,
            "latency_ms": 20.0, "tool_selection": sel, "tool_arguments": None if total is None else right == total,
            "tool_args_right": right, "tool_args_total": total, "tool_permission": perm}


ROWS = [
    row("a", sel=True, right=2, total=2, perm=True),
    row("b", sel=False, right=1, total=2, perm=True, lang="bn"),
    row("c", sel=False, perm=False, set="adversarial", task="unanswerable"),  # refund without the permission
    row("d", sel=True, right=0, total=1, perm=True, lang="bn", set="production_like"),
    row("e"),  # not a tool case: counts in none of the three
]


def test_the_three_rates_equal_hand_counts_with_the_wilson_interval():
    rates = tool_rates(ROWS, "wilson")
    # selection: a, d right of a, b, c, d -> 2/4; permission: c breached -> 3/4
    # arguments: per expected argument over the cases whose tool was called: (2 + 1 + 0) / (2 + 2 + 1) = 3/5
    for name, k, n in (("tool_selection", 2, 4), ("tool_permission", 3, 4), ("tool_arguments", 3, 5)):
        est = rates[name]
        assert (est.value, est.n) == (k / n, n)
        assert (est.ci_low, est.ci_high) == pytest.approx(hand_wilson(k, n), abs=1e-12)
        assert (est.ci_low, est.ci_high) == pytest.approx(proportion_confint(k, n, method="wilson"), abs=1e-12)


def test_clopper_pearson_is_used_when_params_say_so():
    est = tool_rates(ROWS, "clopper-pearson")["tool_arguments"]
    assert (est.ci_low, est.ci_high) == pytest.approx(proportion_confint(3, 5, method="beta"), abs=1e-10)


def test_no_tool_case_leaves_every_rate_undefined_not_zero():
    rates = tool_rates([row("e")], "wilson")
    assert all(e.value is None and e.n == 0 for e in rates.values())


def test_side_metrics_carry_the_rates_and_their_slices():
    side = side_metrics(ROWS, "wilson")
    assert (side.tool_selection.value, side.tool_permission.value, side.tool_arguments.value) == (0.5, 0.75, 0.6)
    # by language: en holds a, c (e is not a tool case): selection 1/2; bn holds b, d: selection 1/2, arguments 1/3
    assert side.tools.by_lang["tool_selection"]["en"].value == 0.5 and side.tools.by_lang["tool_selection"]["en"].n == 2
    assert (side.tools.by_lang["tool_arguments"]["bn"].value, side.tools.by_lang["tool_arguments"]["bn"].n) == (1 / 3, 3)
    assert side.tools.by_set["tool_permission"]["adversarial"].value == 0.0
    assert side.tools.by_task["tool_selection"]["multi_fact"].value is None  # every value listed, undefined at n 0
    assert side.tools.by_task["tool_selection"]["multi_fact"].n == 0


def test_the_comparison_counts_tool_regressions():
    def run(sel, perm):
        return pd.DataFrame({"id": ["a", "b", "c"], "task": ["lookup"] * 3, "passed": [True] * 3,
                             **{m: [True] * 3 for m in ("answer_correct", "abstain_correct", "citation_support", "format_ok")},
                             "tool_selection": pd.Series(sel, dtype=object), "tool_arguments": pd.Series([None] * 3, dtype=object),
                             "tool_permission": pd.Series(perm, dtype=object)})

    base, cand = run([True, True, None], [True, True, None]), run([True, False, None], [True, False, None])
    metrics, report = compare_runs(base, cand, {i: "holdout" for i in "abc"})
    # b went from right to wrong on both; c is not a tool case (undefined), so 2 comparable cases
    assert metrics.regressions["tool_selection"] == metrics.regressions["tool_permission"] == 1
    assert metrics.regressions_n_paired["tool_permission"] == 2 and metrics.regressions_n_paired["tool_arguments"] == 0
    assert report["regressed"]["tool_permission"] == ["b"]


def test_a_run_without_tool_columns_compares_as_undefined():
    df = pd.DataFrame({"id": ["a"], "task": ["lookup"], "passed": [True],
                       **{m: [True] for m in ("answer_correct", "abstain_correct", "citation_support", "format_ok")}})
    metrics, _ = compare_runs(df, df, {"a": "holdout"})
    assert metrics.regressions["tool_permission"] == 0 and metrics.regressions_n_paired["tool_permission"] == 0


def test_tool_use_is_a_real_family_in_the_plan():
    assert {"tool_selection", "tool_arguments", "tool_permission"} <= set(METRIC_NAMES)
    assert set(METRIC_FAMILIES) == set(METRIC_NAMES)  # every measured metric has its family
    plan = Plan.model_validate({
        "task": "t", "dataset": {"path": "data/cases.jsonl"}, "release_rule": "r",
        "failures": [{"name": "refund issued without authorisation", "cost": "high", "harmed": "NodiNet",
                      "metric": "tool_permission"}],
        "metrics": [{"name": "answer_correct", "family": "correctness", "gate": "block", "threshold": 0.8},
                    {"name": "citation_support", "family": "groundedness", "gate": "block", "threshold": 0.8},
                    {"name": "tool_permission", "family": "format", "gate": "report", "threshold": 1.0}]})
    assert plan_problems(plan) == [
        "metric tool_permission is a tool_use metric, not format (fix its family in the plan)",
        "high-cost failure 'refund issued without authorisation' is not guarded by a blocking metric "
        "(tool_permission is report)"]


def test_a_blocking_permission_metric_blocks_the_gate():
    from assay.artifacts.rag import RagMetrics
    from assay.release.checks import metric_checks

    plan = Plan.model_validate({
        "task": "t", "dataset": {"path": "data/cases.jsonl"}, "release_rule": "r",
        "failures": [{"name": "refund issued without authorisation", "cost": "high", "harmed": "NodiNet",
                      "metric": "tool_permission"}],
        "metrics": [{"name": "tool_permission", "family": "tool_use", "gate": "block", "threshold": 1.0, "min_n": 4}]})
    side = side_metrics(ROWS, "wilson")
    [check] = metric_checks(plan, RagMetrics(n=5, dev=side, holdout=side), None, "candidate")
    # the gate decides on the one-sided Clopper-Pearson lower bound at the first look's level 0.025: 3 of 4 gives
    # beta.ppf(0.025, 3, 2) = 0.1941 (scipy); a threshold of 1 is out of reach of any bound
    from scipy.stats import beta

    assert check.status == "fail" and check.value == pytest.approx(beta.ppf(0.025, 3, 2), abs=1e-9)
    assert check.detail == ("lower bound 0.1941204497 (one-sided Clopper-Pearson at level 0.025) misses >= 1 (estimate 0.75, "
                            "3 of 4); even every case passing could not pass: no holdout size can show it")
