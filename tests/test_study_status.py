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


def test_received_evidence_that_differs_from_the_lock_makes_the_verdict_stale_only_with_the_root_set(repo, tmp_path,
                                                                                                      monkeypatch):
    from assay.release.checks import exit_code

    asked(repo)
    secret = tmp_path / "vault-4d2e81"
    shutil.copytree(repo / "data/relevance/evidence.synthetic", secret)
    monkeypatch.setenv("ASSAY_EVIDENCE_ROOT", str(secret))
    (check,) = relevance(repo)
    assert check.status == "fail"  # the evidence matches the lock: the committed verdict stands
    judgments = secret / "development/judgments_A.jsonl"
    judgments.write_text(judgments.read_text().replace('"relevance": 2', '"relevance": 1', 1))
    checks = gather(repo)[0]
    (check,) = [c for c in checks if c.name == "relevance study verdict"]
    assert check.status == "stale" and exit_code(checks) == 2
    assert check.detail == ("received evidence differs from the lock: development/judgments_A.jsonl "
                            "(fix: run `assay relevance intake`, then `dvc repro`)")
    assert str(secret) not in check.detail
    monkeypatch.delenv("ASSAY_EVIDENCE_ROOT")
    (check,) = relevance(repo)
    assert check.status == "fail"  # CI: no root, the committed lock is trusted
    monkeypatch.setenv("ASSAY_EVIDENCE_ROOT", str(tmp_path / "no-such-vault"))
    (check,) = relevance(repo)
    assert check.status == "missing" and "does not name a folder" in check.detail and "no-such-vault" not in check.detail
