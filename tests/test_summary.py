"""The summary page (reports/summary.md) in process, from a copy of the committed metrics and provenance:
its figures against counts and intervals worked out here, absent sections, the holdout-looks line."""

import json
import math

import pytest

from assay.release.gather import gather
from assay.release.summary import summary_markdown

from conftest import ROOT, hand_wilson


def ci_text(k: int, n: int) -> str:
    low, high = hand_wilson(k, n)
    return f"{k / n:.3f} (95% interval {low:.3f} to {high:.3f})"


@pytest.fixture
def evidence(committed_repo, monkeypatch):
    monkeypatch.chdir(committed_repo)  # see test_gather.py: the judge's staleness check reads relative paths
    return gather(committed_repo)


def test_figures_match_counts_and_intervals_worked_out_here(evidence):
    checks, ev = evidence
    page = summary_markdown(ev, checks, holdout_looks=1)
    cases = [json.loads(line) for line in (ROOT / "data" / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    bn = sum(c["lang"] == "bn" for c in cases)
    documents = len(list((ROOT / "data" / "corpus").glob("*.md")))
    # the dataset hash is pinned and derived in test_dataset.py (DEMO_DATASET_HASH)
    assert (f"{len(cases)} cases (bn {bn}, en {len(cases) - bn}) over {documents} documents, dataset hash "
            "`f7b73613f42c`.") in page
    assert "Split by salted id hash: 122 dev, 72 holdout." in page  # worked by hand in test_demo_data.py
    # the mixed judge agrees on 24 of 42 pairs, kappa (24 - 14) / 28 (test_calibration.py), bn 1 of 7
    assert f"agreement {ci_text(24, 42)}, kappa {10 / 28:.3f}; 28 order disagreement(s)" in page
    assert "| bn | 0.143 | 7 |" in page
    # the candidate's holdout answer_correct: 27 of 58 (the gate's failing figure)
    assert f"| answer_correct | {ci_text(40, 58)}, n 58 | {ci_text(27, 58)}, n 58 |" in page
    # 3 better, 13 worse: exact sign test p = 2 * P(X <= 3), X ~ Binomial(16, 1/2), = 2 * 697 / 2**16
    p_sign = 2 * sum(math.comb(16, i) for i in range(4)) / 2**16
    assert "3 better, 13 worse, 56 unchanged (24 failing in both)" in page
    assert f"Exact sign test p = {p_sign:.3f};" in page
    assert "This holdout has judged 1 distinct candidate configuration(s)" in page
    assert "It is being tuned on" not in page


def test_the_page_is_what_the_gate_stage_committed(evidence):
    # everything below the check table comes from metrics and provenance only, so the committed page's
    # lower part (written by the gate stage) is what the same files give in process
    checks, ev = evidence
    page = summary_markdown(ev, checks, holdout_looks=1)
    committed = (ROOT / "reports" / "summary.md").read_text(encoding="utf-8")
    assert page.split("## Dataset", 1)[1] == committed.split("## Dataset", 1)[1]


def test_absent_metrics_say_so_and_the_page_still_renders(evidence):
    checks, ev = evidence
    ev.metrics["metrics/agreement.json"] = None
    ev.metrics["metrics/compare.json"] = None
    ev.metrics["metrics/rag/baseline.json"] = None
    page = summary_markdown(ev, checks)
    assert "_Not available: metrics/agreement.json is missing; run `dvc repro`._" in page
    assert "_Not available: metrics/compare.json is missing; run `dvc repro`._" in page
    assert f"| answer_correct | missing | {ci_text(27, 58)}, n 58 |" in page
    assert "distinct candidate configuration" not in page  # no ledger count given, no line


def test_a_holdout_judged_too_often_is_flagged(evidence):
    checks, ev = evidence
    assert ev.params.max_holdout_looks == 5
    assert "It is being tuned on" not in summary_markdown(ev, checks, holdout_looks=5)
    assert "**It is being tuned on: its figures overstate" in summary_markdown(ev, checks, holdout_looks=6)


def test_the_judge_vs_reviewers_section_and_row(evidence):
    checks, ev = evidence
    page = summary_markdown(ev, checks, holdout_looks=1)
    # the demo queue: 9 of 11 decided agree (ties left out), 30 reviews, random fill, synthetic
    assert (f"| demo | random, synthetic | {ci_text(9, 11)} | 11 | {num_text(ev.reviews['demo'].kappa)} | 30 |") in page
    assert "Required: agreement over items both decided of at least 0.600 on the lower end of its 95% interval" in page
    assert ("| judge vs reviewers (demo) | fail | lower bound 0.523 of agreement 0.818 (9 of 11 decided) is below the "
            "minimum 0.6 (synthetic reviews: demo data, not people); verdicts by 'fake judge (params judge) + SYNTHETIC rule "
            "scores' |") in page
    ev.reviews["demo"] = None
    assert "| demo | missing | | | | |" in summary_markdown(ev, checks)
    ev.review_queues = []
    assert "The plan does not ask for the judge's agreement with reviewers" in summary_markdown(ev, checks)


def num_text(x: float) -> str:
    return f"{x:.3f}"
