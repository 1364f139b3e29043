"""Prompt-wording sensitivity: labels of one judge under two prompt versions."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer, make_prompt
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, cohen_kappa_score, confusion_matrix

from assay.judge.base import Verdict
from assay.judge.fake import FakeJudge
from assay.judge.openai import OpenAIJudge, OpenAIJudgeParams
from assay.data.pairs import LABELS, Pair
from assay.judge.prompts import load_prompt
from assay.judge.sensitivity import (LabelChange, SensitivityReport, outputs, sensitivity_markdown, stability_reading,
                                     wording_sensitivity)

ROOT = Path(__file__).resolve().parents[1]


def pair(pid: str, a: str, b: str, question: str = "How long is the trial?") -> Pair:
    return Pair(id=pid, case_question=question, facts=["14 days"], a=a, b=b, kind="clear", lang="en",
                ann1="a", ann2="a", final="a")


def test_a_misleading_wording_flips_every_decisive_label(tmp_path):
    plain = make_prompt(tmp_path / "p", 1)
    misleading = make_prompt(tmp_path / "p", 2, "Compare the two answers. [[flip]]")
    pairs = ([pair(f"a{i}", f"[[best]] 14 days ({i})", "[[plain]] 7 days") for i in range(4)]
             + [pair(f"b{i}", "[[plain]] 7 days", f"[[best]] fourteen days ({i})") for i in range(3)]
             + [pair(f"t{i}", f"x{i}", "y", "q [[winner:tie]]") for i in range(2)]
             + [pair("bad", "x", "y", "q [[fake:malformed]]")])
    with FakeOpenAIServer() as server:
        judge = OpenAIJudge(OpenAIJudgeParams(base_url=server.base_url, model="m", cache_path=None, progress=False,
                                              max_failed_share=0.2))
        report = wording_sensitivity(judge, pairs, plain, misleading, swap=True)
        assert server.requests == 40  # 10 pairs x 2 orders x 2 prompts
    # "bad" gets an unparseable reply under both wordings: left out, so 9 pairs are compared
    under_a = ["a"] * 4 + ["b"] * 3 + ["tie"] * 2
    under_b = ["b"] * 4 + ["a"] * 3 + ["tie"] * 2
    assert report.n == 10 and report.n_valid == 9 and report.swap is True
    assert report.not_valid == ["bad"] and report.agreement_undefined is None
    # 2 of 9 agree (the ties): 0.222; sklearn's accuracy_score is the same share
    assert report.agreement == pytest.approx(2 / 9) == accuracy_score(under_a, under_b)
    # hand: pe = (4*3 + 3*4 + 2*2) / 81 = 28/81; kappa = (18/81 - 28/81) / (53/81) = -10/53
    assert report.kappa == pytest.approx(-10 / 53) == pytest.approx(cohen_kappa_score(under_a, under_b))
    assert report.kappa_undefined is None
    table = confusion_matrix(under_a, under_b, labels=list(LABELS))
    assert report.confusion == {r: {c: int(table[i][j]) for j, c in enumerate(LABELS)} for i, r in enumerate(LABELS)}
    assert report.statuses == {"a": {"ok": 18, "invalid": 2, "refused": 0, "failed": 0},
                                  "b": {"ok": 18, "invalid": 2, "refused": 0, "failed": 0}}
    assert report.order_disagreements == {"a": 0, "b": 0}
    assert [row.id for row in report.changed] == ["a0", "a1", "a2", "a3", "b0", "b1", "b2"]
    assert report.prompts["b"] == {"name": "pairwise", "version": 2, "sha": misleading.sha}
    assert report.judge["model_version"] == "fake-judge-2026-01"


def test_the_fake_judge_ignores_wording():
    prompts = [load_prompt(ROOT / "data" / "prompts" / f"pairwise_v{v}.md") for v in (1, 2)]
    pairs = [pair("p1", "14 days [source: kb-1]", "7 days"), pair("p2", "7 days", "It is 14 days."),
             pair("p3", "14 days", "14 days, as the policy says")]
    report = wording_sensitivity(FakeJudge.from_preset("mixed"), pairs, *prompts, swap=False)
    assert report.agreement == 1.0 and report.changed == []
    assert report.statuses["a"] == {"ok": 3, "invalid": 0, "refused": 0, "failed": 0}


def test_no_pairs_gives_undefined_statistics():
    report = wording_sensitivity(FakeJudge.from_preset("clean"), [], "v1", "v2")
    assert math.isnan(report.agreement) and math.isnan(report.kappa)
    assert report.kappa_undefined == report.agreement_undefined == "no pairs" and report.n == 0


class Unparseable:
    identity = {"kind": "unparseable"}

    def judge_many(self, items, prompt):
        return [Verdict("tie", "invalid") for _ in items]


def test_no_valid_replies_is_said_not_scored_as_perfect_stability():
    # before issue 9 every unparseable reply was a tie under both wordings, so stability read 1.000
    pairs = [pair("p1", "x", "y"), pair("p2", "y", "x")]
    report = wording_sensitivity(Unparseable(), pairs, "v1", "v2")
    assert (report.n, report.n_valid, report.not_valid) == (2, 0, ["p1", "p2"])
    assert math.isnan(report.agreement) and report.agreement_undefined == "no valid replies"
    assert report.kappa_undefined == "no valid replies"
    text = sensitivity_markdown(report)
    assert "- Agreement between the two label lists: no valid replies." in text
    assert "1.000" not in text


class HashJudge:
    """A stub whose verdict is a hash of (prompt, item): deterministic, prompt-sensitive, sometimes invalid."""

    identity = {"kind": "hash"}

    def judge_many(self, items, prompt):
        out = []
        for item in items:
            byte = hashlib.sha256(f"{prompt}|{item.first}|{item.second}".encode()).digest()[0]
            status = "invalid" if byte % 7 == 0 else "ok"
            out.append(Verdict(("first", "second", "tie")[byte % 3] if status == "ok" else "tie", status))
        return out


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.text("xyz", min_size=1, max_size=4), st.text("xyz", min_size=1, max_size=4)),
                min_size=1, max_size=12),
       st.booleans(), st.sampled_from(["v1", "v2"]))
def test_report_invariants(answers, swap, other):
    pairs = [pair(f"p{i}", a, b) for i, (a, b) in enumerate(answers)]
    report = wording_sensitivity(HashJudge(), pairs, "v1", other, swap=swap)
    n, valid = len(pairs), report.n_valid
    cells = report.confusion
    assert sum(sum(row.values()) for row in cells.values()) == valid == n - len(report.not_valid)
    diagonal = sum(cells[label][label] for label in LABELS)
    if valid:
        assert report.agreement == pytest.approx(diagonal / valid)
    else:
        assert math.isnan(report.agreement) and report.agreement_undefined == "no valid replies"
    assert len(report.changed) == valid - diagonal
    for side in ("a", "b"):
        assert sum(report.statuses[side].values()) == n * (2 if swap else 1)
    numbers, prov = outputs(report, pairs="h")  # the model refuses anything but numbers
    assert numbers.n == report.n and prov.details["changed"] == [c.model_dump() for c in report.changed]
    if other == "v1" and valid:  # the same wording twice: a deterministic judge agrees with itself
        assert report.agreement == 1.0 and report.changed == []


class AlwaysFirst:
    """Picks the answer shown first in every order: every swapped pair flips, so every label is a tie."""

    identity = {"kind": "always-first"}

    def judge_many(self, items, prompt):
        return [Verdict("first") for _ in items]


def test_agreement_carried_by_ties_is_said_not_reassured():
    # 12 pairs, both orders, always "first": a then b -> labels a vs b: 12 flips, 12 ties under both wordings.
    # By hand: agreement 12/12 = 1, kappa undefined (one label only: pe = 1), tie_agreements 12 of 12 agreeing
    pairs = [pair(f"p{k:02d}", "x", "y") for k in range(12)]
    report = wording_sensitivity(AlwaysFirst(), pairs, "v1", "v2", swap=True)
    assert (report.agreement, report.tie_agreements, report.order_disagreements) == (1.0, 12, {"a": 12, "b": 12})
    assert report.kappa_undefined is not None
    text = sensitivity_markdown(report)
    assert "The agreement is carried by ties: 12 of the 12 pairs labelled alike are tie under both wordings" in text
    assert "held" not in text
    assert outputs(report)[0].tie_agreements == 12


def _report(confusion: dict[str, dict[str, int]], kappa: float) -> SensitivityReport:
    n = sum(sum(row.values()) for row in confusion.values())
    changed = [LabelChange(id=f"c{k}", a="a", b="b") for k in range(n - sum(confusion[x][x] for x in confusion))]
    return SensitivityReport(n=n, n_valid=n, swap=True, judge={}, prompts={}, agreement=(n - len(changed)) / n,
                             agreement_undefined=None, kappa=kappa, kappa_undefined=None, confusion=confusion,
                             statuses={}, order_disagreements={}, changed=changed, not_valid=[],
                             tie_agreements=confusion["tie"]["tie"])


def test_reading_follows_kappa_when_ties_do_not_carry_it():
    from sklearn.metrics import cohen_kappa_score

    # 10 a/a, 1 b/b, 1 tie/tie, 1 a/b, 1 b/a: 12 of 14 agree, 1 of the 12 a tie. kappa from scikit-learn
    x = ["a"] * 10 + ["b", "tie", "a", "b"]
    y = ["a"] * 10 + ["b", "tie", "b", "a"]
    conf = {"a": {"a": 10, "b": 1, "tie": 0}, "b": {"a": 1, "b": 1, "tie": 0}, "tie": {"a": 0, "b": 0, "tie": 1}}
    kappa = cohen_kappa_score(x, y)
    assert stability_reading(_report(conf, kappa)).startswith(f"The labels held under both wordings beyond chance (kappa {kappa:.3f})")
    # the same counts with a kappa under 0.2 read as chance-level agreement
    assert stability_reading(_report(conf, 0.1)).startswith("Kappa is 0.100: the labels agree little more than chance")
