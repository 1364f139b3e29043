"""The relevance study's own verdict (``assay study verdict``): fail when not passed, stale when an
input changed since, missing when absent (on a copy of the committed repository). The release gate
never reads it, so a study that waits for people cannot block a release."""

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


def relevance(repo):
    return [verdict_status(repo)]


def test_the_gate_never_has_a_study_row_and_a_plan_asking_for_one_is_refused_with_the_fix(repo):
    assert not [c for c in gather(repo)[0] if "relevance" in c.name]
    plan = repo / "data" / "plan.yaml"
    plan.write_text(plan.read_text() + "relevance_verdict: true\n")
    (check,) = [c for c in gather(repo)[0] if c.name == "inputs"]
    assert check.status == "missing" and "relevance_verdict" in check.detail
    assert "assay study verdict" in check.detail


def test_the_committed_synthetic_verdict_fails_the_gate_when_asked(repo):
    (check,) = relevance(repo)
    # the demo's evidence is synthetic, so the human_evidence condition is unmet (reports/relevance/verdict.md)
    assert check.status == "fail" and "human_evidence" in check.detail and check.metrics.passed == 0
    assert verdict_status(repo).metrics.conditions["human_evidence"] == 0


def test_changed_thresholds_make_the_verdict_stale_and_a_missing_one_is_missing(repo):
    thresholds = repo / "data" / "relevance" / "thresholds.yaml"
    thresholds.write_text(thresholds.read_text().replace("value: 0.95", "value: 0.90"))
    (check,) = relevance(repo)
    assert check.status == "stale" and "thresholds" in check.detail and "new pre-registration" in check.detail
    (repo / "metrics" / "relevance" / "verdict.json").unlink()
    (check,) = relevance(repo)
    assert check.status == "missing" and "run dvc repro" in check.detail


def test_a_forged_verdict_is_missing_not_a_pass(repo):
    (repo / "metrics" / "relevance" / "verdict.json").write_text('{"passed": "yes"}')
    (check,) = relevance(repo)
    assert check.status == "missing"


def test_received_evidence_that_differs_from_the_lock_makes_the_verdict_stale_only_with_the_root_set(repo, tmp_path,
                                                                                                      monkeypatch):
    secret = tmp_path / "vault-4d2e81"
    shutil.copytree(repo / "data/relevance/evidence.synthetic", secret)
    monkeypatch.setenv("ASSAY_EVIDENCE_ROOT", str(secret))
    (check,) = relevance(repo)
    assert check.status == "fail"  # the evidence matches the lock: the committed verdict stands
    judgments = secret / "development/judgments_A.jsonl"
    judgments.write_text(judgments.read_text().replace('"relevance": 2', '"relevance": 1', 1))
    (check,) = relevance(repo)
    assert check.status == "stale"
    assert check.detail == ("received evidence differs from the lock: development/judgments_A.jsonl "
                            "(fix: run `assay study intake`, then `dvc repro`)")
    assert str(secret) not in check.detail
    monkeypatch.delenv("ASSAY_EVIDENCE_ROOT")
    (check,) = relevance(repo)
    assert check.status == "fail"  # CI: no root, the committed lock is trusted
    monkeypatch.setenv("ASSAY_EVIDENCE_ROOT", str(tmp_path / "no-such-vault"))
    (check,) = relevance(repo)
    assert check.status == "missing" and "does not name a folder" in check.detail and "no-such-vault" not in check.detail
