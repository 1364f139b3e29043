"""The judge's comparison of two versions: values per case, stored replies replayed without a server."""

from __future__ import annotations

import pytest

from assay.judge.base import Verdict
from assay.judge.fake import FakeJudge
from assay.judge.matchup import FIX, Matchup, asked, judge_values, matchups
from assay.judge.prompts import load_prompt
from assay.judge.replay import MissingReply, ReplayJudge
from assay.judge.replies import ask


def _m(case: str, a: str, b: str, facts: tuple[str, ...] = ("30 days",)) -> Matchup:
    return Matchup(id=case, case_question="How long?", facts=facts, a=a, b=b, task="lookup", set="golden", lang="en")


class Scripted:
    """A judge replying from a list, to show how each verdict pair becomes a value."""

    identity = {"kind": "scripted"}

    def __init__(self, verdicts: list[Verdict]):
        self.verdicts = verdicts

    def judge_many(self, items, prompt=None):
        return self.verdicts[:len(items)]


@pytest.mark.parametrize(("forward", "backward", "want"), [
    (Verdict("second"), Verdict("first"), 1.0),   # b (candidate) preferred in both orders
    (Verdict("first"), Verdict("second"), 0.0),   # a (baseline) preferred in both orders
    (Verdict("first"), Verdict("first"), 0.5),    # position: the orders disagree, a tie
    (Verdict("tie"), Verdict("tie"), 0.5),
    (Verdict("second"), Verdict("tie", "failed"), None),   # a failed reply is dropped, never a tie
    (Verdict("tie", "invalid"), Verdict("first"), None),
])
def test_values(forward, backward, want):
    assert judge_values([_m("c", "x", "y")], Scripted([forward, backward]), prompt=None) == [want]


def test_replayed_values_equal_the_live_judge(tmp_path):
    prompt = load_prompt("data/prompts/pairwise_v2.md")
    items = [_m("c1", "It takes 30 days.", "No idea."), _m("c2", "No idea.", "30 days [source: kb-x]."),
             _m("c3", "30 days.", "30 days.", facts=("30 days",))]
    judge = FakeJudge.from_preset("mixed")
    rows = ask(judge, judge.identity, asked(items), prompt, both_orders=True)  # c3: same answers, not asked
    (tmp_path / "pairwise_v2.jsonl").write_text("".join(__import__("json").dumps(r.row()) + "\n" for r in rows))
    replay = ReplayJudge(judge.identity, tmp_path, items)
    assert judge_values(items, replay, prompt) == judge_values(items, judge, prompt) == [0.0, 1.0, 0.5]
    changed = [_m("c1", "It takes 31 days.", "No idea.")]  # the baseline's run changed since the replies
    stale = ReplayJudge(judge.identity, tmp_path, changed, fix=FIX)
    with pytest.raises(MissingReply, match=r"2 of 2 requests .* pair c1 order ab; pair c1 order ba.*dvc repro judge_compare"):
        judge_values(changed, stale, prompt)


def test_matchups_pairs_runs_by_case():
    from assay.data.cases import load_cases

    cases = load_cases("data/cases.jsonl")
    ids = [c.id for c in cases][:3]
    items = matchups(cases, {i: f"base {i}" for i in ids}, {i: f"cand {i}" for i in ids[1:]})
    assert [m.id for m in items] == sorted(ids[1:]) and items[0].a.startswith("base") and items[0].b.startswith("cand")
