"""ReplayJudge: stored replies behind the Judge interface (hit, miss, identity)."""

import json

import pytest

from assay.core.errors import InputError, MissingArtifact
from assay.core.io import write_json, write_jsonl
from assay.data.pairs import load_pairs
from assay.judge.base import Judge, JudgeItem
from assay.judge.calibration import calibration_run
from assay.judge.fake import PRESETS
from assay.judge.orders import items_for, judge_pairs
from assay.judge.probe import bias_probes
from assay.judge.prompts import load_prompt
from assay.judge.replay import MissingReply, ReplayJudge
from assay.judge.replies import ask
from assay.judge.sensitivity import wording_sensitivity

from conftest import ROOT

PAIRS = sorted(load_pairs(ROOT / "data/pairs.jsonl"), key=lambda p: p.id)
V1, V2 = (load_prompt(ROOT / f"data/prompts/pairwise_v{v}.md") for v in (1, 2))


def store(folder, judge, prompts=(V1, V2), pairs=PAIRS, both_orders=True):
    """What the judge stage writes, for ``judge``."""
    identity = judge.identity
    for prompt in prompts:
        rows = ask(judge, identity, pairs, prompt, both_orders)
        write_jsonl(folder / f"pairwise_v{prompt.version}.jsonl", [r.model_dump() for r in rows])
    write_json(folder / "judge.json", {"judge": identity, "judge_keys": list(identity)})
    return folder


def test_replay_gives_what_the_judge_said_so_every_record_is_the_same(tmp_path):
    fake = PRESETS["mixed"]
    replay = ReplayJudge.open(store(tmp_path, fake), PAIRS)
    assert isinstance(replay, Judge)
    assert replay.identity == fake.identity and list(replay.identity) == list(fake.identity)  # order kept for reports
    items = items_for(PAIRS, swap=True)
    assert [(v.winner, v.status) for v in replay.judge_many(items, V2)] == \
        [(v.winner, v.status) for v in fake.judge_many(items, V2)]
    assert calibration_run(PAIRS, replay, V2).record == calibration_run(PAIRS, fake, V2).record
    assert bias_probes(replay, PAIRS, V2) == bias_probes(fake, PAIRS, V2)
    assert wording_sensitivity(replay, PAIRS, V1, V2) == wording_sensitivity(fake, PAIRS, V1, V2)
    assert replay.judge_many([], V2) == []


def test_a_request_with_no_stored_reply_names_pair_order_and_prompt(tmp_path):
    store(tmp_path, PRESETS["mixed"], both_orders=False)
    replay = ReplayJudge.open(tmp_path, PAIRS)
    with pytest.raises(MissingReply) as caught:
        judge_pairs(replay, PAIRS[:2], V2, swap=True)  # the (b, a) order was never asked
    message = str(caught.value)
    assert message.startswith(f"ReplayJudge: 2 of 4 requests have no stored reply in {tmp_path / 'pairwise_v2.jsonl'} "
                              "for fake preset mixed and prompt pairwise v2")
    assert f"pair {PAIRS[0].id} order ba; pair {PAIRS[1].id} order ba." in message
    assert message.endswith("(fix: run `dvc repro judge` to ask the judge, then commit data/derived/judge/)")
    assert caught.value.exit_code == 2 and isinstance(caught.value, MissingArtifact)


def test_an_edited_answer_or_another_judge_or_prompt_is_a_miss_never_a_tie(tmp_path):
    store(tmp_path, PRESETS["mixed"], prompts=(V2,))
    replay = ReplayJudge.open(tmp_path, PAIRS)
    edited = JudgeItem(PAIRS[0].case_question, tuple(PAIRS[0].facts), PAIRS[0].a + " Also.", PAIRS[0].b)
    with pytest.raises(MissingReply, match="an item not in the pairs file"):
        replay.judge_many([edited], V2)
    with pytest.raises(MissingReply, match=r"pairwise_v1.jsonl not found: no stored replies for prompt pairwise v1"):
        replay.judge_many(items_for(PAIRS, swap=False), V1)
    # the same rows read as another judge's: every key differs, since the identity is in the key
    other = ReplayJudge(PRESETS["clean"].identity, tmp_path, PAIRS)
    with pytest.raises(MissingReply, match=f"ReplayJudge: {len(PAIRS)} of {len(PAIRS)} requests .* fake preset clean"):
        other.judge_many(items_for(PAIRS, swap=False), V2)


def test_identity_learns_the_model_version_from_the_replies_it_serves(tmp_path):
    class Served:
        identity = {"provider": "openai-compatible", "model": "m", "model_version": None, "temperature": 0.0}

        def judge_many(self, items, prompt):
            from assay.judge.base import Verdict

            return [Verdict("first", "ok", None, {"model_version": "m-2026-01", "reply": '{"winner": "first"}'})
                    for _ in items]

    replay = ReplayJudge.open(store(tmp_path, Served(), prompts=(V2,)), PAIRS)
    assert replay.identity == Served.identity  # before any reply, as the judge itself
    replay.judge_many(items_for(PAIRS[:1], swap=True), V2)
    assert replay.identity == {**Served.identity, "model_version": "m-2026-01"}
    assert list(replay.identity) == ["provider", "model", "model_version", "temperature"]
    fake = ReplayJudge.open(store(tmp_path / "fake", PRESETS["mixed"], prompts=(V2,)))
    fake.judge_many(items_for(PAIRS, swap=True), V2)
    assert "model_version" not in fake.identity  # a judge without the field does not gain it


def test_missing_identity_file_and_bad_rows(tmp_path):
    with pytest.raises(MissingReply, match="judge.json not found: the judge has not been asked yet"):
        ReplayJudge.open(tmp_path)
    (tmp_path / "judge.json").write_text("[]", encoding="utf-8")
    with pytest.raises(InputError, match="field 'judge': expected an object naming the judge"):
        ReplayJudge.open(tmp_path)
    store(tmp_path, PRESETS["mixed"], prompts=(V2,))
    path = tmp_path / "pairwise_v2.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[2])
    row["winner"] = "a"
    lines[2] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"pairwise_v2.jsonl:3: field 'winner': 'a' is not one of first, second, tie"):
        ReplayJudge.open(tmp_path).judge_many(items_for(PAIRS, swap=False), V2)


def test_pairs_with_equal_content_replay_their_shared_reply_and_a_differing_copy_is_named(tmp_path):
    # issue 35: a copied row of the pairs file stored two rows per order under one key; replay read that
    # as a duplicate key and probe, calibrate and sensitivity exited 1
    copied = PAIRS[0].model_copy(update={"id": "zz-copy"})
    pairs = [*PAIRS, copied]
    fake = PRESETS["mixed"]
    replay = ReplayJudge.open(store(tmp_path, fake, pairs=pairs), pairs)
    assert calibration_run(pairs, replay, V2).record == calibration_run(pairs, fake, V2).record
    assert bias_probes(replay, pairs, V2) == bias_probes(fake, pairs, V2)
    assert wording_sensitivity(replay, pairs, V1, V2) == wording_sensitivity(fake, pairs, V1, V2)
    first, again = judge_pairs(replay, [PAIRS[0], copied], V2, swap=True)
    assert (first.label, first.forward, first.backward) == (again.label, again.forward, again.backward)
    # the copy's row edited to another winner: the same request with two replies is refused, both lines named
    path = tmp_path / "pairwise_v2.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    at = {(json.loads(t)["pair"], json.loads(t)["order"]): n for n, t in enumerate(lines, 1)}
    row = json.loads(lines[at[("zz-copy", "ab")] - 1])
    row["winner"] = {"first": "second", "second": "tie", "tie": "first"}[row["winner"]]
    lines[at[("zz-copy", "ab")] - 1] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        ReplayJudge.open(tmp_path, pairs).judge_many(items_for(pairs, swap=False), V2)
    assert str(caught.value) == (
        f"{path}:{at[('zz-copy', 'ab')]}: field 'winner': the same request as line {at[(PAIRS[0].id, 'ab')]} "
        f"(key {row['key'][:12]}) with a different reply (winner differ) "
        "(fix: run `dvc repro judge` to ask the judge, then commit data/derived/judge/)")


@pytest.mark.parametrize("size", range(1, 8))
def test_every_record_and_stored_file_is_the_same_in_batches_of_one_to_seven(tmp_path, monkeypatch, size):
    from assay.core.bulk import BATCH_ENV
    from assay.judge.calibration import pair_rows
    from assay.judge.probe import preset_table
    from assay.judge.replies import ask_in_batches, write_replies
    from assay.artifacts.registry import JUDGE_REPLY_FILE

    fake = PRESETS["mixed"]
    shuffled = PAIRS[1::2] + PAIRS[::2]  # ask_in_batches sorts by id whatever order it is given
    monkeypatch.delenv(BATCH_ENV, raising=False)
    default = ReplayJudge.open(store(tmp_path / "default", fake), PAIRS)
    expected = (calibration_run(PAIRS, default, V2).record, bias_probes(default, PAIRS, V2),
                wording_sensitivity(default, PAIRS, V1, V2), preset_table(PAIRS, V2))
    dims = list(pair_rows(PAIRS, calibration_run(PAIRS, default, V2).labels))
    whole = tmp_path / "whole.jsonl"
    counts = write_replies(JUDGE_REPLY_FILE, whole, ask(fake, fake.identity, PAIRS, V2, True), "pairwise_v2")
    assert counts == {"ok": 2 * len(PAIRS)}

    monkeypatch.setenv(BATCH_ENV, str(size))
    batched_file = tmp_path / "batched.jsonl"
    rows = ask_in_batches(fake, fake.identity, shuffled, V2, True, batch=size)
    assert write_replies(JUDGE_REPLY_FILE, batched_file, rows, "pairwise_v2") == counts
    assert batched_file.read_bytes() == whole.read_bytes()
    replay = ReplayJudge.open(store(tmp_path / "batched", fake), PAIRS)
    got = (calibration_run(PAIRS, replay, V2).record, bias_probes(replay, PAIRS, V2),
           wording_sensitivity(replay, PAIRS, V1, V2), preset_table(PAIRS, V2))
    assert repr(got) == repr(expected)
    assert list(pair_rows(PAIRS, calibration_run(PAIRS, replay, V2).labels)) == dims


def test_a_repeated_key_with_another_reply_is_named_with_both_lines_and_an_odd_key_is_never_served(tmp_path):
    store(tmp_path, PRESETS["mixed"], prompts=(V2,))
    path = tmp_path / "pairwise_v2.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    upper = json.loads(lines[1])
    upper["key"] = upper["key"].upper()  # not what reply_key writes: kept out, so the request is a miss
    path.write_text("\n".join([*lines, lines[4]]) + "\n", encoding="utf-8")  # the same row again: one stored reply
    assert len(ReplayJudge.open(tmp_path).judge_many(items_for(PAIRS, swap=False), V2)) == len(PAIRS)
    again = json.loads(lines[4])
    again["status"] = "refused" if again["status"] == "ok" else "ok"
    path.write_text("\n".join([*lines, json.dumps(again)]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"pairwise_v2.jsonl:{len(lines) + 1}: field 'status': the same request as "
                                         r"line 5 \(key .*\) with a different reply \(status differ\)"):
        ReplayJudge.open(tmp_path).judge_many(items_for(PAIRS, swap=False), V2)
    path.write_text("\n".join([*lines, json.dumps(upper), json.dumps(upper)]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"pairwise_v2.jsonl:{len(lines) + 2}: field 'key': duplicate key .* "
                                         rf"\(first on line {len(lines) + 1}\)"):
        ReplayJudge.open(tmp_path).judge_many(items_for(PAIRS, swap=False), V2)
    lines[1] = json.dumps(upper)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(MissingReply, match="1 of"):
        ReplayJudge.open(tmp_path, PAIRS).judge_many(items_for(PAIRS, swap=True), V2)
