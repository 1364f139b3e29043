"""A system that samples, run ``repeats: 3`` times per case in process: every run stored under its own key and
replayed without a call, the run table and the figures read case by case (pass^k <= mean <= pass@k), the
comparison on per-case means, and the gate's reading of them."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from scipy import stats

from assay.artifacts.estimate import Estimate
from assay.artifacts.registry import RAG
from assay.data.plan import Metric
from assay.rag.compare import compare_runs, read_run
from assay.rag.version_figures import version_metrics
from assay.rag.repeats import REPEATED, figures
from assay.rag.reply_store import REPLAY_ENV, ReplyStore, system_sha
from assay.rag.runner import VersionParams, results_table, run_version
from assay.release.rule import decide
from assay.core.io import write_parquet
from conftest import logged_calls, team_module

#: A team's system that samples: per case a chance to answer right (t1 always, t2 never, the rest half the
#: time), drawn from a generator seeded on (case, run), so each run differs and a re-run repeats it.
PLUGIN = '''
import os, random
from pathlib import Path

GOLD = {gold!r}
CHANCE = {{"t1": 1.0, "t2": 0.0}}

def answer(request):
    if os.environ.get("PLUGIN_REFUSE"):
        raise AssertionError("called although every run is stored")
    with Path(os.environ["PLUGIN_LOG"]).open("a") as log:
        log.write(f"{{request.case_id}}:{{request.repeat}}\\n")
    right = random.Random(f"{{request.case_id}}:{{request.repeat}}").random() < CHANCE.get(request.case_id, 0.5)
    text, doc = GOLD[request.case_id]
    if right == (doc is None):  # abstain: right on an abstain case, wrong on an answer case
        return {{"answer": "", "citations": [], "abstained": True, "retrieved": []}}
    doc = doc or sorted(request.corpus)[0]
    return {{"answer": text or "no idea", "citations": [doc], "abstained": False, "retrieved": [doc]}}
'''


@pytest.fixture
def corpus(fixture_corpus):
    return fixture_corpus


@pytest.fixture
def cases(fixture_cases):
    return fixture_cases


@pytest.fixture
def team(tmp_path, monkeypatch, cases):
    gold = {c.id: (" and ".join(c.facts), c.doc_ids[0] if c.doc_ids else None) for c in cases}
    yield team_module(tmp_path, monkeypatch, "sampling_rag", PLUGIN.format(gold=gold))
    sys.modules.pop("sampling_rag", None)


calls = logged_calls


def _run(version: VersionParams, cases, corpus):
    identity = system_sha(version.identity())
    with ReplyStore("mine") as store:
        results = run_version("mine", version, cases, corpus, 3, store=store, identity_sha=identity)
        store.write()
    return results, store.asked


def _holdout(cases) -> dict[str, str]:
    return {c.id: "holdout" for c in cases}


def test_each_case_runs_k_times_each_run_stored_and_replayed_without_a_call(team, corpus, cases, monkeypatch):
    version = VersionParams(system="callable", callable="sampling_rag:answer", repeats=3, source="sampling_rag.py")
    results, asked = _run(version, cases, corpus)
    assert asked == 18 and sorted(calls(team)) == sorted(f"{c.id}:{r}" for c in cases for r in range(3))
    assert [(r.id, r.repeat) for r in results] == [(c.id, r) for c in sorted(cases, key=lambda c: c.id) for r in range(3)]
    passed = {(r.id, r.repeat): r.passed for r in results}
    assert all(passed[("t1", r)] for r in range(3)) and not any(passed[("t2", r)] for r in range(3))
    assert len({tuple(passed[(c.id, r)] for r in range(3)) for c in cases}) > 2  # the runs of a case differ

    replies = (team / "data/derived/replies/mine.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in replies.splitlines()]
    assert [(r["case_id"], r.get("repeat", 0)) for r in rows] == [(r.id, r.repeat) for r in results]
    assert sum("repeat" in r for r in rows) == 12 and not any(r.get("repeat") == 0 for r in rows)  # run 0: the old row
    assert len({r["key"] for r in rows}) == 18

    (team / "calls.log").unlink()
    monkeypatch.setenv("PLUGIN_REFUSE", "1")  # the function raises if it is called at all
    monkeypatch.setenv(REPLAY_ENV, "only")  # what assay verify sets
    again, asked = _run(version, cases, corpus)
    assert asked == 0 and calls(team) == [] and again == results
    assert (team / "data/derived/replies/mine.jsonl").read_text(encoding="utf-8") == replies


def test_raising_repeats_asks_only_the_new_runs(team, corpus, cases):
    once = VersionParams(system="callable", callable="sampling_rag:answer", source="sampling_rag.py")
    first, asked = _run(once, cases, corpus)
    assert asked == 6 and all(r.repeat == 0 for r in first)
    assert "repeat" not in results_table(first).column_names  # repeats 1 writes the table it always did
    thrice = VersionParams(system="callable", callable="sampling_rag:answer", repeats=3, source="sampling_rag.py")
    _, asked = _run(thrice, cases, corpus)
    assert asked == 12 and sorted(calls(team)) == sorted([f"{c.id}:0" for c in cases]
                                                         + [f"{c.id}:{r}" for c in cases for r in (1, 2)])


def test_figures_read_case_by_case(team, corpus, cases):
    version = VersionParams(system="callable", callable="sampling_rag:answer", repeats=3, source="sampling_rag.py")
    results, _ = _run(version, cases, corpus)
    table = results_table(results)
    assert table.column_names[:2] == ["id", "repeat"] and table.num_rows == 18
    metrics = version_metrics(table.to_pylist(), _holdout(cases), "wilson")
    side = metrics.holdout
    assert metrics.n == 6 and side.n == 6 and side.repeats is not None and side.repeats.runs == 3
    by_case: dict[str, list[bool]] = {}
    for r in results:
        by_case.setdefault(r.id, []).append(r.passed)
    every = sum(all(v) for v in by_case.values())
    some = sum(any(v) for v in by_case.values())
    runs = sum(sum(v) for v in by_case.values())
    pass_rate = side.repeats.by_metric["pass_rate"]
    assert (pass_rate.all_runs.value, pass_rate.any_run.value) == (every / 6, some / 6)
    assert pass_rate.mean_runs.value == pytest.approx(runs / 18) and pass_rate.mean_runs.n == 6
    assert side.pass_rate == pass_rate.all_runs  # the usual field is pass^k, what the gate reads by default
    for name in REPEATED:
        f = side.repeats.by_metric[name]
        if f.all_runs.value is not None:
            assert f.all_runs.value <= f.mean_runs.value + 1e-12 <= f.any_run.value + 2e-12, name
    assert 0.0 < pass_rate.within_share < 1.0  # t1 and t2 never vary, the others do
    assert metrics.dev.n == 0 and metrics.dev.repeats is not None and metrics.dev.repeats.by_metric["pass_rate"].mean_runs.n == 0

    written = team / "rag.json"
    RAG.model.model_validate_json(metrics.model_dump_json())  # the file's model reads what it writes
    written.write_text(metrics.model_dump_json(), encoding="utf-8")
    assert '"repeats"' in written.read_text()


def test_a_version_without_repeats_writes_no_repeats_key(corpus, cases):
    table = results_table(run_version("base", VersionParams(), cases, corpus, 3))
    dumped = version_metrics(table.to_pylist(), _holdout(cases), "wilson").model_dump(mode="json")
    assert "repeats" not in dumped["holdout"] and "repeats" not in dumped["dev"]


def test_the_comparison_uses_per_case_means(team, corpus, cases, tmp_path):
    base = results_table(run_version("base", VersionParams(), cases, corpus, 3))
    version = VersionParams(system="callable", callable="sampling_rag:answer", repeats=3, source="sampling_rag.py")
    cand_results, _ = _run(version, cases, corpus)
    write_parquet(tmp_path / "cand.parquet", results_table(cand_results))
    cand = read_run(tmp_path / "cand.parquet")  # one row per case and run is a valid run table
    m, report = compare_runs(base, cand, _holdout(cases))
    b = {r["id"]: float(r["passed"]) for r in base.to_pylist()}
    c: dict[str, list[float]] = {}
    for r in cand_results:
        c.setdefault(r.id, []).append(float(r.passed))
    ids = sorted(b)
    qb, qc = np.array([b[i] for i in ids]), np.array([np.mean(c[i]) for i in ids])
    ref = stats.ttest_rel(qc, qb)
    assert m.diff == pytest.approx(float(np.mean(qc - qb)))
    assert (m.diff_ci_low, m.diff_ci_high) == pytest.approx(tuple(ref.confidence_interval(0.95)))
    assert m.repeats is not None and m.repeats.t_p == pytest.approx(float(ref.pvalue))
    assert (m.repeats.baseline_runs, m.repeats.candidate_runs) == (1, 3) and m.mcnemar_p is None
    assert report["better"] == [i for i in ids if c[i] and np.mean(c[i]) > b[i]]
    assert m.better + m.worse + m.unchanged == 6
    assert m.candidate_pass_rate.value == pytest.approx(float(np.mean(qc)))
    assert "repeats" not in compare_runs(base, base, _holdout(cases))[0].model_dump(mode="json")


def test_the_gate_reads_pass_k_unless_the_plan_says_otherwise():
    all_runs = Estimate(value=0.6, n=50, ci_low=0.46, ci_high=0.73)
    mean = Estimate(value=0.8, n=50, ci_low=0.72, ci_high=0.86)
    m = Metric(name="pass_rate", family="correctness", gate="block", threshold=0.7)
    assert m.across_repeats == "all_runs"
    d = decide(m, all_runs, 0.025)  # pass^k: a share of cases, its Clopper-Pearson bound
    assert d.reading == "bound" and d.k == 30 and not d.passed
    mean_rule = Metric(name="pass_rate", family="correctness", gate="block", threshold=0.7, across_repeats="mean_runs")
    d = decide(mean_rule, mean, 0.025, share=False)  # the mean over runs: its own interval's lower end
    assert d.reading == "interval" and d.value == 0.72 and d.passed and d.k is None
    with pytest.raises(ValidationError, match="across_repeats"):
        Metric(name="pass_rate", family="correctness", gate="block", threshold=0.7, across_repeats="best")


def test_repeats_are_refused_for_a_system_that_does_not_sample():
    with pytest.raises(ValidationError, match="repeats: only used by system callable or http, not reference"):
        VersionParams(repeats=3)
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        VersionParams(system="callable", callable="m:f", repeats=0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 5)), min_size=1, max_size=30))
def test_pass_k_is_at_most_the_mean_which_is_at_most_pass_at_k(cases):
    s = np.array([min(a, b) for a, b in cases])
    m = np.array([b for _, b in cases])
    f = figures(s, m, "wilson")
    # per case 1[s = m] <= s/m <= 1[s > 0]; the mean over runs is the mean of s/m, each case weighing the same
    assert f.all_runs.value <= f.mean_runs.value + 1e-12 <= f.any_run.value + 2e-12
    if len(cases) > 1:  # one case has no interval
        assert f.mean_runs.ci_low <= f.mean_runs.value <= f.mean_runs.ci_high


def test_the_gate_checks_the_reading_the_plan_names(team, corpus, cases):
    from assay.data.plan import Plan
    from assay.release.checks import metric_checks

    version = VersionParams(system="callable", callable="sampling_rag:answer", repeats=3, source="sampling_rag.py")
    results, _ = _run(version, cases, corpus)
    metrics = version_metrics(results_table(results).to_pylist(), _holdout(cases), "wilson")
    figures_ = metrics.holdout.repeats.by_metric["pass_rate"]

    def check(across: str):
        plan = Plan.model_validate({
            "task": "t", "dataset": {"path": "data/cases.jsonl"}, "release_rule": "r",
            "failures": [{"name": "wrong answer", "cost": "high", "harmed": "users", "metric": "pass_rate"}],
            "metrics": [{"name": "pass_rate", "family": "correctness", "gate": "block", "threshold": 0.1, "min_n": 4,
                         "across_repeats": across}]})
        decisions: list = []
        [c] = metric_checks(plan, metrics, None, "candidate", decisions=decisions)
        return c, decisions[0]

    c, d = check("all_runs")  # pass^k, a share of cases: its Clopper-Pearson bound
    assert d.reading == "bound" and d.estimate == figures_.all_runs.value and d.k == round(figures_.all_runs.value * 6)
    c, d = check("mean_runs")  # the mean over runs: the lower end of its cluster-robust interval
    assert d.reading == "interval" and d.value == figures_.mean_runs.ci_low and d.k is None
    c, d = check("any_run")
    assert d.reading == "bound" and d.estimate == figures_.any_run.value
