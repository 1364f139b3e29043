"""The annotation-queue notes' export rules, one test each, and stable ids across re-exports."""

from __future__ import annotations

from assay.queue.items import Message
from assay.queue.training import REJECTED_SOURCE, TrainingSet, training_metrics, training_set
from assay.queue.training import example as _example
from test_queue_results import CRITERIA, row, snap


def example(queue, r):
    """The example as written to the file (a plain object), and its origin."""
    ex, origin = _example(queue, r)
    return (None if ex is None else ex.model_dump(mode="json")), origin


def rows(ts: TrainingSet, kind: str) -> list[dict]:
    """The ``sft``/``dpo`` examples or the ``trl`` preferences as written to their files."""
    return [x.model_dump(mode="json") for x in (ts.preferences() if kind == "trl" else ts.examples(kind))]


def assistant(ex) -> dict:
    return (ex if isinstance(ex, dict) else ex.model_dump(mode="json"))["messages"][-1]


def test_a_correction_is_the_answer_and_the_less_liked_answer_is_rejected():
    r = row(0, "a", "b").model_copy(update={"correction": "The right answer."})
    ex, origin = example("t", r)
    assert origin == "correction"
    assert ex["messages"][0] == {"role": "user", "content": "q"}
    assert assistant(ex) == {"role": "assistant", "content": "The right answer.", "rejected": "y",
                             "rejectedSource": REJECTED_SOURCE}


def test_a_tie_with_a_correction_rejects_the_lower_scored_answer():
    r = row(0, "tie", "a").model_copy(update={"correction": "Better.", "scores": {
        "a": dict.fromkeys(CRITERIA, 4), "b": dict.fromkeys(CRITERIA, 2)}})
    assert assistant(example("t", r)[0])["rejected"] == "y"  # b scored lower


def test_without_a_correction_the_chosen_answer_is_the_answer_and_the_other_rejected():
    ex, origin = example("t", row(0, "b", "a"))
    assert origin == "choice"
    assert (assistant(ex)["content"], assistant(ex)["rejected"]) == ("y", "x")


def test_ties_without_correction_and_bare_scores_are_not_exported():
    assert example("t", row(0, "tie", "a")) == (None, "tie_without_correction")
    response = row(1, None, None, kind="response").model_copy(update={"answers": {"a": "resp"}, "scores": {
        "a": dict.fromkeys(CRITERIA, 3)}})
    assert example("t", response) == (None, "scores_only")


def test_a_corrected_response_keeps_its_conversation_and_rejects_the_original():
    r = row(0, None, None, kind="response").model_copy(update={
        "answers": {"a": "old reply"}, "scores": {"a": dict.fromkeys(CRITERIA, 2)}, "correction": "new reply",
        "context": [Message(role="system", content="be brief"), Message(role="user", content="hi?")]})
    ex, origin = example("t", r)
    assert origin == "correction" and [m["role"] for m in ex["messages"]] == ["system", "user", "assistant"]
    assert (assistant(ex)["content"], assistant(ex)["rejected"]) == ("new reply", "old reply")


def test_re_export_updates_the_same_examples_instead_of_adding_copies():
    first = snap([row(0, "a", "a"), row(1, "tie", "a")])
    ts = training_set([first])
    ids = set(ts.dpo)
    assert len(ids) == 1 and training_metrics(ts).skipped_tie_without_correction == 1
    later = snap([row(0, "a", "a").model_copy(update={"correction": "fixed"}), row(1, "tie", "a"), row(2, "b", "b")])
    ts2 = training_set([later], into=ts)  # exported again after more reviews and an edit
    assert ids <= set(ts2.dpo) and len(ts2.dpo) == 2
    assert set(ts2.sft) == ids and assistant(ts2.sft[next(iter(ids))])["content"] == "fixed"
    assert rows(training_set([later]), "dpo") == rows(ts2, "dpo")


# TRL's conversational preference format, restated from TRL's docs ("Dataset formats and types":
# preference, conversational) and from trl.data_utils.is_conversational: the example has ``prompt``,
# ``chosen`` and ``rejected``, each a list of {"role", "content"} messages. TRL itself needs torch, so
# the test restates its check; the file is also loaded with the `datasets` library below.
TRL_PREFERENCE_COLUMNS = {"prompt", "chosen", "rejected"}


def trl_is_conversational(example: dict) -> bool:
    keys = [k for k in ("prompt", "chosen", "rejected", "completion", "messages") if k in example]
    if not keys:
        return False
    messages = example[keys[0]]
    return isinstance(messages, list) and isinstance(messages[0], dict) and "role" in messages[0] and "content" in messages[0]


def mixed_snapshots():
    real = snap([row(0, "a", "a"), row(1, "b", "a").model_copy(update={"correction": "fixed"})])
    demo = snap([row(5, "b", "b")])
    demo = demo.model_copy(update={"queue": demo.queue.model_copy(update={"name": "demo", "synthetic": True})})
    return real, demo


def test_trl_rows_are_conversational_preferences_with_the_dpo_examples_answers():
    real, _ = mixed_snapshots()
    ts = training_set([("mine", real)])
    for seed_shape, trl in zip(rows(ts, "dpo"), rows(ts, "trl"), strict=True):
        assert set(trl) >= TRL_PREFERENCE_COLUMNS and trl_is_conversational(trl)
        assert all(trl_is_conversational({k: trl[k]}) for k in TRL_PREFERENCE_COLUMNS)
        assert trl["prompt"] == seed_shape["messages"][:-1]
        assert trl["chosen"] == [{"role": "assistant", "content": seed_shape["messages"][-1]["content"]}]
        assert trl["rejected"] == [{"role": "assistant", "content": seed_shape["messages"][-1]["rejected"]}]
        assert (trl["id"], trl["snapshot"], trl["synthetic"]) == (seed_shape["id"], "mine", False)


def test_the_trl_file_loads_with_the_datasets_library_as_message_lists(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    from datasets import Dataset

    from assay.core.io import write_jsonl

    r = row(2, "a", "b").model_copy(update={"context": [Message(role="system", content="be brief"),
                                                         Message(role="user", content="q?")]})
    ts = training_set([("mine", snap([row(0, "a", "a"), r]))])
    write_jsonl(tmp_path / "dpo_trl.jsonl", rows(ts, "trl"))
    ds = Dataset.from_json(str(tmp_path / "dpo_trl.jsonl"), cache_dir=str(tmp_path / "cache"))
    assert ds.num_rows == 2 and set(ds.column_names) >= TRL_PREFERENCE_COLUMNS
    message = {"content": "string", "role": "string"}
    for column in TRL_PREFERENCE_COLUMNS:
        feature = ds.features[column]
        assert {k: v.dtype for k, v in feature.feature.items()} == message, (column, feature)
    assert ds.to_list() == rows(ts, "trl")


def test_real_snapshots_are_exported_alone_and_the_synthetic_ones_counted():
    real, demo = mixed_snapshots()
    ts = training_set([("demo", demo), ("mine", real)])
    assert ts.exported == ["mine"] and ts.synthetic_left_out == ["demo"]
    for kind in ("sft", "dpo", "trl"):
        assert {(x["snapshot"], x["synthetic"]) for x in rows(ts, kind)} == {("mine", False)}
    assert training_metrics(ts).n_synthetic_snapshots_left_out == 1 and training_metrics(ts).n_snapshots_exported == 1


def test_synthetic_snapshots_alone_are_exported_and_every_row_says_so():
    _, demo = mixed_snapshots()
    ts = training_set([("demo", demo)])
    assert ts.exported == ["demo"] and ts.synthetic_left_out == []
    assert [(x["snapshot"], x["synthetic"]) for x in rows(ts, "dpo") + rows(ts, "trl")] == [("demo", True)] * 2


def test_the_stage_leaves_the_demo_out_beside_a_real_snapshot_and_says_so(tmp_path):
    import json
    import shutil
    import subprocess
    import sys

    from conftest import ROOT

    lines = (ROOT / "data/reviews/demo.jsonl").read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])
    meta.update(name="mine", synthetic=False, note=None)
    (tmp_path / "data/reviews").mkdir(parents=True)
    shutil.copy(ROOT / "data/reviews/demo.jsonl", tmp_path / "data/reviews/demo.jsonl")
    (tmp_path / "data/reviews/mine.jsonl").write_text("\n".join([json.dumps(meta)] + lines[1:]) + "\n", encoding="utf-8")
    from queue_helpers import sign_folder

    sign_folder(tmp_path / "data/reviews")  # one key signs both in this folder; the demo stays marked synthetic
    (tmp_path / "params.yaml").write_text("review:\n  snapshots: [demo, mine]\n", encoding="utf-8")
    shutil.copytree(ROOT / "stages", tmp_path / "stages")
    out = subprocess.run([sys.executable, "stages/training.py"], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "left out the synthetic snapshot(s) demo" in out.stderr
    training = json.loads((tmp_path / "metrics/training.json").read_text(encoding="utf-8"))
    assert (training["n_snapshots_exported"], training["n_synthetic_snapshots_left_out"]) == (1, 1)
    for name in ("sft", "dpo", "dpo_trl"):
        rows = [json.loads(x) for x in (tmp_path / f"reports/training/{name}.jsonl").read_text(encoding="utf-8").splitlines()]
        assert rows and {(x["snapshot"], x["synthetic"]) for x in rows} == {("mine", False)}, name
