"""What the judge stage asks and the rows it stores."""

import json
from collections import Counter

import pytest

from assay.data.pairs import load_pairs
from assay.judge.base import JudgeItem, Verdict
from assay.judge.fake import PRESETS
from assay.judge.orders import JudgeContractError
from assay.judge.prompts import load_prompt
from assay.judge.replies import REASON_CHARS, StoredReply, ask, replies_file, reply_key, requested, status_line

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


def test_only_parsed_fields_are_kept_and_the_reply_text_as_its_sha256():
    """Issue 31: the raw reply never reaches the committed file; its SHA-256 does (hashlib, by hand below)."""
    import hashlib

    text = "w" * 3000 + " Bearer sk-echoedsecret1234"  # what a server might play back
    reason = "because " + "x" * 600

    class Talkative:
        identity = {"provider": "x"}

        def judge_many(self, items, prompt):
            return [Verdict("tie", "invalid", reason + " api_key=hunter22x", {"reply": text, "model_version": "v"})
                    for _ in items]

    row = ask(Talkative(), Talkative.identity, PAIRS[:1], V2, both_orders=False)[0]
    assert isinstance(row, StoredReply)
    assert (row.status, row.winner, row.model_version) == ("invalid", "tie", "v")
    assert row.reply == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert len(row.reason) == REASON_CHARS and row.reason == reason[:REASON_CHARS - 1] + "…"
    short = ask(type("T", (Talkative,), {"judge_many": lambda self, items, prompt: [
        Verdict("first", "ok", "Bearer abc123xyz and api_key=hunter22x", {"reply": ""}) for _ in items]})(),
        {}, PAIRS[:1], V2, both_orders=False)[0]
    assert short.reason == "*** and api_key=***" and short.reply == hashlib.sha256(b"").hexdigest()
    dumped = json.dumps(row.row())
    assert "wwww" not in dumped and "echoedsecret" not in dumped and "hunter22" not in dumped


def test_a_stored_row_holding_reply_text_is_refused_naming_the_fix(tmp_path):
    from assay.core.errors import InputError
    from assay.core.io import read_jsonl
    from assay.core.records import validate_rows

    good = {"key": "a" * 64, "pair": "p", "order": "ab", "prompt_version": 2, "prompt_sha": "s", "status": "ok",
            "winner": "first", "reason": None, "reply": "b" * 64, "model_version": None}
    path = tmp_path / "pairwise_v2.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "key": "c" * 64, "reply": '{"winner": "first"}'})
                    + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        validate_rows(str(path), read_jsonl(path), StoredReply, key="key")
    message = str(caught.value)
    assert message.startswith(f"{path}:2: field 'reply': ") and "not the SHA-256 of the reply" in message
    assert "dvc repro -f judge" in message and "{" not in message.split("field 'reply'")[1].split("(fix")[0]


def test_a_judge_returning_the_wrong_number_of_verdicts_is_refused():
    class Short:
        identity = {}

        def judge_many(self, items, prompt):
            return [Verdict("tie")]

    with pytest.raises(JudgeContractError, match="returned 1 verdicts for 4 items"):
        ask(Short(), {}, PAIRS[:2], V2, both_orders=True)


class Counting:
    """A judge that answers like ``inner`` and records every item it is asked."""

    def __init__(self, inner):
        self.inner, self.asked = inner, []
        self.identity = inner.identity

    def judge_many(self, items, prompt):
        self.asked += items
        return self.inner.judge_many(items, prompt)


def copy(pair, id, swapped=False):
    """``pair`` under another id; ``swapped`` also exchanges its answers (and the labels with them)."""
    flip = {"a": "b", "b": "a", "tie": "tie"}
    if not swapped:
        return pair.model_copy(update={"id": id})
    return pair.model_copy(update={"id": id, "a": pair.b, "b": pair.a,
                                   **{k: flip[getattr(pair, k)] for k in ("ann1", "ann2", "final")}})


def test_two_ids_with_equal_content_are_asked_once_and_each_keeps_its_rows():
    # a copied row of a labelling export (issue 35): 2 pairs x 2 orders = 4 rows, but 2 distinct requests
    judge = Counting(PRESETS["position"])
    pairs = [PAIRS[0], copy(PAIRS[0], "zz-copy")]
    rows = ask(judge, judge.identity, pairs, V2, both_orders=True)
    assert len(judge.asked) == 2 and len(set(judge.asked)) == 2
    assert [(r.pair, r.order) for r in rows] == [(PAIRS[0].id, "ab"), (PAIRS[0].id, "ba"), ("zz-copy", "ab"), ("zz-copy", "ba")]
    for order in ("ab", "ba"):
        mine, copied = (r for r in rows if r.order == order)
        assert mine.model_dump(exclude={"pair"}) == copied.model_dump(exclude={"pair"})
    # a pair whose answers are another's swapped: its (a, b) is the other's (b, a), so 4 rows, 2 requests again
    judge = Counting(PRESETS["position"])
    rows = ask(judge, judge.identity, [PAIRS[0], copy(PAIRS[0], "zz-swapped", swapped=True)], V2, both_orders=True)
    by = {(r.pair, r.order): r for r in rows}
    assert len(judge.asked) == 2 and len(rows) == 4
    assert by[(PAIRS[0].id, "ab")].key == by[("zz-swapped", "ba")].key
    assert by[(PAIRS[0].id, "ab")].winner == by[("zz-swapped", "ba")].winner


def test_a_served_judge_gets_one_http_request_per_distinct_content(tmp_path):
    from fake_openai_server import FakeOpenAIServer

    from assay.judge.openai import OpenAIJudge, OpenAIJudgeParams

    pairs = [*PAIRS[:3], copy(PAIRS[0], "zz-copy-1"), copy(PAIRS[0], "zz-copy-2"), copy(PAIRS[1], "zz-copy-3")]
    with FakeOpenAIServer() as server:
        judge = OpenAIJudge(OpenAIJudgeParams(base_url=server.base_url, model="judge-model", timeout=5.0, retries=0,
                                              concurrency=4, progress=False, cache_path=None))
        rows = ask(judge, judge.identity, pairs, V2, both_orders=True)
        assert server.requests == 3 * 2  # 3 distinct pairs, both orders; the copies send nothing
    assert len(rows) == 6 * 2 and len({r.key for r in rows}) == 6
    by = {(r.pair, r.order): r for r in rows}
    for copied, source in (("zz-copy-1", PAIRS[0].id), ("zz-copy-2", PAIRS[0].id), ("zz-copy-3", PAIRS[1].id)):
        for order in ("ab", "ba"):
            assert by[(copied, order)].model_dump(exclude={"pair"}) == by[(source, order)].model_dump(exclude={"pair"})
