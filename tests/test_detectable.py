"""What the holdout can detect: threshold_check for each blocking share metric, in the gate and the summary."""

from __future__ import annotations

from pathlib import Path

from assay.artifacts.registry import RAG
from assay.data.plan import load_plan
from assay.release.detectable import markdown, threshold_checks
from assay.stats.power import threshold_check

ROOT = Path(__file__).resolve().parents[1]


def test_each_blocking_share_metric_is_checked_on_the_candidates_holdout():
    plan = load_plan(ROOT / "data/plan.yaml")
    candidate = RAG.read(ROOT, version="candidate")
    checks = {c.name: c for c in threshold_checks(plan, candidate)}
    # blocking with a threshold: answer_correct, abstain_correct, citation_support, format_ok, tool_permission
    # (latency is not a share)
    assert list(checks) == ["answer_correct", "abstain_correct", "citation_support", "format_ok", "tool_permission"]
    a = candidate.holdout.answer_correct
    assert checks["answer_correct"] == threshold_check("answer_correct", a.n, a.value, 0.85, power=0.8, level=0.95)
    # 27/58 = 0.466 is 0.384 from 0.85, farther than the 0.267 that 58 cases detect: no warning
    assert checks["answer_correct"].warning is None and 0.2 < checks["answer_correct"].detectable < 0.3
    # 14 abstention cases detect nothing at 80% power: warned
    assert "14 holdout cases detect no change" in checks["abstain_correct"].warning
    page = "\n".join(markdown(list(checks.values())))
    assert "| answer_correct | 58 | 0.466 | 0.850 | 0.384 | 0.267 |" in page
    assert page.count("**Warning:**") == 4
    assert threshold_checks(plan, None) == []


def test_a_threshold_closer_than_the_detectable_change_warns():
    c = threshold_check("answer_correct", 66, 0.80, 0.75)  # the power module's doctest: 0.05 apart, 66 cases
    assert c.warning is not None and "closer than" in c.warning and c.margin < c.detectable
