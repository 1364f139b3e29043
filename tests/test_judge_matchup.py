"""The judge's comparison of two versions: values per case, stored replies replayed without a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.judge.base import Verdict
from assay.judge.fake import FakeJudge
from assay.judge.matchup import FIX, Matchup, asked, judge_values, matchups
from assay.judge.prompts import load_prompt
from assay.judge.replay import MissingReply, ReplayJudge
from assay.judge.replies import ask

ROOT = Path(__file__).resolve().parents[1]


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
    prompt = load_prompt(ROOT / "data/prompts/pairwise_v2.md")
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


def test_two_cases_with_the_same_question_and_answers_are_one_request_and_replay_alike(tmp_path):
    # issue 35: the judge_compare stage keys replies like the judge stage; two cases asking the same question
    # whose versions answered alike are asked once, and ppi's replay gives both the same value
    prompt = load_prompt(ROOT / "data/prompts/pairwise_v2.md")
    items = [_m("c1", "It takes 30 days.", "No idea."), _m("c2", "It takes 30 days.", "No idea."),
             _m("c3", "No idea.", "30 days [source: kb-x].")]
    seen: list = []
    fake = FakeJudge.from_preset("mixed")

    class Counting:
        identity = fake.identity

        def judge_many(self, items, prompt=None):
            seen.extend(items)
            return fake.judge_many(items, prompt)

    judge = Counting()
    rows = ask(judge, judge.identity, asked(items), prompt, both_orders=True)
    assert len(seen) == 4 and len(rows) == 6  # 2 distinct cases x 2 orders asked; a row per case and order
    (tmp_path / "pairwise_v2.jsonl").write_text("".join(__import__("json").dumps(r.row()) + "\n" for r in rows))
    replay = ReplayJudge(judge.identity, tmp_path, items)
    assert judge_values(items, replay, prompt) == judge_values(items, fake, prompt) == [0.0, 0.0, 1.0]


def test_matchups_pairs_runs_by_case():
    from assay.data.cases import load_cases

    cases = load_cases(ROOT / "data/cases.jsonl")
    ids = [c.id for c in cases][:3]
    items = matchups(cases, {i: f"base {i}" for i in ids}, {i: f"cand {i}" for i in ids[1:]})
    assert [m.id for m in items] == sorted(ids[1:]) and items[0].a.startswith("base") and items[0].b.startswith("cand")


def test_the_compare_source_carries_the_judge_compare_verdicts(tmp_path):
    import json
    import shutil

    import pandas as pd

    from assay.judge.matchup import REPLIES_DIR
    from assay.judge.replies import IDENTITY_FILE
    from assay.queue.fill import hard_reasons
    from assay.queue.sources import JUDGE_COMPARE, RULE, from_compare

    (tmp_path / "data").mkdir()
    shutil.copy(ROOT / "params.yaml", tmp_path / "params.yaml")
    shutil.copy(ROOT / "data/cases.jsonl", tmp_path / "data/cases.jsonl")
    shutil.copytree(ROOT / "data/prompts", tmp_path / "data/prompts")
    ids = ["g01", "g02", "g03"]
    runs = {"baseline": (["12 months minimum.", "BDT 150.", "Same."], [True, True, True]),
            "candidate": (["No idea.", "The fee is BDT 150 [source: kb-late-payment].", "Same."], [False, True, True])}
    (tmp_path / "data/derived/runs").mkdir(parents=True)
    for name, (replies, passed) in runs.items():
        pd.DataFrame({"id": ids, "reply": replies, "passed": passed}).to_parquet(tmp_path / f"data/derived/runs/{name}.parquet")
    rule = {i.id: i.judge for i in from_compare(tmp_path)}  # judge_compare has not run: the rule's verdict
    assert rule["g01"].verdict == "a" and rule["g01"].identity == RULE

    from assay.data.cases import load_cases
    items = matchups(load_cases(tmp_path / "data/cases.jsonl"), dict(zip(ids, runs["baseline"][0], strict=True)),
                     dict(zip(ids, runs["candidate"][0], strict=True)))
    judge = FakeJudge.from_preset("mixed")
    prompt = load_prompt(tmp_path / "data/prompts/pairwise_v2.md")
    folder = tmp_path / REPLIES_DIR
    folder.mkdir(parents=True)
    rows = ask(judge, judge.identity, asked(items), prompt, both_orders=True)
    (folder / "pairwise_v2.jsonl").write_text("".join(json.dumps(r.row()) + "\n" for r in rows), encoding="utf-8")
    (folder / IDENTITY_FILE).write_text(json.dumps({"judge": judge.identity}), encoding="utf-8")
    got = {i.id: i for i in from_compare(tmp_path)}
    want = {0.0: "a", 1.0: "b", 0.5: "tie"}
    assert {k: i.judge.verdict for k, i in got.items()} == {m.id: want[v] for m, v in zip(items, judge_values(items, judge, prompt),
                                                                                          strict=True)}
    assert all(i.judge.identity == JUDGE_COMPARE for i in got.values())
    assert got["g03"].judge.reason == "both versions gave the same reply" and not hard_reasons(got["g03"])
    assert got["g01"].version_flip  # still the rule's pass/fail: g01 passes in the baseline only
