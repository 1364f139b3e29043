"""What the holdout can detect: threshold_check for each blocking share metric, in the gate and the summary."""

from __future__ import annotations

from pathlib import Path

import pytest
from scipy.optimize import brentq
from scipy.stats import binom, binomtest

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
    assert checks["answer_correct"] == threshold_check("answer_correct", a.n, a.value, 0.85, "higher", power=0.8, alpha=0.05)
    # one-sample: 58 cases against 0.85 pass the exact one-sided test from 55 of 58 (scipy's binomtest), which a true
    # share of 0.960 reaches with probability 0.8 (scipy's brentq on binom.sf); 27/58 = 0.466 is 0.384 away: no warning
    passes = min(k for k in range(59) if binomtest(k, 58, 0.85, alternative="greater").pvalue <= 0.05)
    share = brentq(lambda p: binom.sf(passes - 1, 58, p) - 0.8, 0.85, 1.0, xtol=1e-12)
    assert passes == 55 and checks["answer_correct"].detectable == pytest.approx(share - 0.85, abs=2e-6)
    assert checks["answer_correct"].warning is None
    # 14 abstention cases at 0.9: 14 of 14 has P = 0.9**14 = 0.23 > 0.05, no count passes the test: warned
    assert "14 holdout cases cannot show the threshold 0.9 is met" in checks["abstain_correct"].warning
    assert "threshold 1 is the end of the scale" in checks["tool_permission"].warning
    page = "\n".join(markdown(list(checks.values())))
    assert "| answer_correct | 58 | 0.466 | 0.850 | 0.384 | 0.110 |" in page
    assert page.count("**Warning:**") == 3
    assert threshold_checks(plan, None) == []


def test_a_threshold_closer_than_the_detectable_change_warns():
    c = threshold_check("answer_correct", 66, 0.80, 0.75)  # the power module's doctest: 0.05 apart, 66 cases
    assert c.warning is not None and "closer than" in c.warning and c.margin < c.detectable


def test_a_threshold_every_share_meets_has_nothing_to_detect():
    # a lenient plan (threshold 0 for higher is better, 1 for lower) used to stop the gate stage with
    # "threshold 0.0 must be in (0.0, 1.0)": every share meets it, so the distance to detect is 0
    from assay.stats.power import threshold_check

    higher = threshold_check("answer_correct", 58, 0.5, 0.0, "higher")
    lower = threshold_check("latency_share", 58, 0.5, 1.0, "lower")
    assert (higher.detectable, higher.warning) == (0.0, None)
    assert (lower.detectable, lower.warning) == (0.0, None)
