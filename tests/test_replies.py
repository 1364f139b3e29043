"""What the judge stage asks and the rows it stores."""

from collections import Counter

import pytest

from assay.data.pairs import load_pairs
from assay.judge.base import JudgeItem, Verdict
from assay.judge.fake import PRESETS
from assay.judge.orders import JudgeContractError
from assay.judge.prompts import load_prompt
from assay.judge.replies import REPLY_CHARS, StoredReply, ask, replies_file, reply_key, requested, status_line

from conftest import ROOT

PAIRS = sorted(load_pairs(ROOT / "data/pairs.jsonl"), key=lambda p: p.id)
V2 = load_prompt(ROOT / "data/prompts/pairwise_v2.md")


def test_requested_covers_calibrate_probe_and_sensitivity():
    # probe always needs both orders of the version in use; sensitivity both versions, both orders with swap
    assert requested(2, (1, 2), swap=True) == {1: True, 2: True}
    assert requested(2, (1, 2), swap=False) == {1: False, 2: True}
    assert requested(1, (2, 3), swap=False) == {1: True, 2: False, 3: False}


def test_key_changes_with_judge_prompt_and_every_part_of_the_item():
    item = JudgeItem("q", ("f",), "x", "y")
    base = reply_key({"kind": "fake"}, "sha", item)
    others = [reply_key({"kind": "fake", "preset": "clean"}, "sha", item), reply_key({"kind": "fake"}, "sha2", item),
              reply_key({"kind": "fake"}, "sha", JudgeItem("q2", ("f",), "x", "y")),
              reply_key({"kind": "fake"}, "sha", JudgeItem("q", ("g",), "x", "y")),
              reply_key({"kind": "fake"}, "sha", JudgeItem("q", ("f",), "y", "x"))]
    assert len({base, *others}) == 6 and len(base) == 64


def test_ask_stores_one_row_per_pair_and_order_with_the_fake_verdicts():
    fake = PRESETS["mixed"]
    rows = ask(fake, fake.identity, PAIRS, V2, both_orders=True)
    assert len(rows) == 2 * len(PAIRS)
    assert [(r.pair, r.order) for r in rows] == sorted((p.id, o) for p in PAIRS for o in ("ab", "ba"))
    by = {(r.pair, r.order): r for r in rows}
    for p in PAIRS[:5]:
        forward, backward = fake.judge_many([JudgeItem(p.case_question, tuple(p.facts), p.a, p.b),
                                             JudgeItem(p.case_question, tuple(p.facts), p.b, p.a)])
        assert by[(p.id, "ab")].winner == forward.winner and by[(p.id, "ba")].winner == backward.winner
    assert all(r.reply is None and r.prompt_version == 2 and r.prompt_sha == V2.sha for r in rows)
    assert status_line(V2, Counter(r.status for r in rows)) == f"pairwise v2: {len(rows)} replies (ok {len(rows)}, invalid 0, refused 0, failed 0)"
    assert replies_file("data/derived/judge", V2).as_posix() == "data/derived/judge/pairwise_v2.jsonl"
    assert ask(fake, fake.identity, [], V2, both_orders=True) == []


def test_reply_text_is_cut_and_statuses_kept():
    class Talkative:
        identity = {"provider": "x"}

        def judge_many(self, items, prompt):
            return [Verdict("tie", "invalid", "not JSON", {"reply": "w" * (REPLY_CHARS + 50), "model_version": "v"})
                    for _ in items]

    row = ask(Talkative(), Talkative.identity, PAIRS[:1], V2, both_orders=False)[0]
    assert isinstance(row, StoredReply)
    assert (row.status, row.winner, row.reason, row.model_version) == ("invalid", "tie", "not JSON", "v")
    assert row.reply == "w" * REPLY_CHARS


def test_a_judge_returning_the_wrong_number_of_verdicts_is_refused():
    class Short:
        identity = {}

        def judge_many(self, items, prompt):
            return [Verdict("tie")]

    with pytest.raises(JudgeContractError, match="returned 1 verdicts for 4 items"):
        ask(Short(), {}, PAIRS[:2], V2, both_orders=True)
