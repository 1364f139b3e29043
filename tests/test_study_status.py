"""The gate includes the relevance study's verdict when the plan asks for it: fail when not passed,
stale when an input changed since, missing when absent (on a copy of the committed repository)."""

from __future__ import annotations

import shutil

import pytest

from assay.release.gather import gather
from assay.study.status import verdict_status

from conftest import ROOT


@pytest.fixture
def repo(committed_repo, monkeypatch):
    shutil.copytree(ROOT / "reports" / "relevance" / "study", committed_repo / "reports" / "relevance" / "study")
    monkeypatch.chdir(committed_repo)
    return committed_repo


def asked(repo, value: bool = True) -> None:
    plan = repo / "data" / "plan.yaml"
    plan.write_text(plan.read_text() + f"relevance_verdict: {'true' if value else 'false'}\n")


def relevance(repo):
    return [c for c in gather(repo)[0] if c.name == "relevance study verdict"]


def test_the_gate_leaves_the_study_out_unless_the_plan_asks(repo):
    assert relevance(repo) == []
    asked(repo, False)
    assert relevance(repo) == []


def test_the_committed_synthetic_verdict_fails_the_gate_when_asked(repo):
    asked(repo)
    (check,) = relevance(repo)
    # the demo's evidence is synthetic, so the human_evidence condition is unmet (reports/relevance/verdict.md)
    assert check.status == "fail" and "human_evidence" in check.detail and check.value == 0
    assert verdict_status(repo).metrics.conditions["human_evidence"] == 0


def test_changed_thresholds_make_the_verdict_stale_and_a_missing_one_is_missing(repo):
    asked(repo)
    thresholds = repo / "data" / "relevance" / "thresholds.yaml"
    thresholds.write_text(thresholds.read_text().replace("value: 0.95", "value: 0.90"))
    (check,) = relevance(repo)
    assert check.status == "stale" and "thresholds" in check.detail and "new pre-registration" in check.detail
    (repo / "metrics" / "relevance" / "verdict.json").unlink()
    (check,) = relevance(repo)
    assert check.status == "missing" and "run dvc repro" in check.detail


def test_a_forged_verdict_is_missing_not_a_pass(repo):
    asked(repo)
    (repo / "metrics" / "relevance" / "verdict.json").write_text('{"passed": "yes"}')
    (check,) = relevance(repo)
    assert check.status == "missing"
