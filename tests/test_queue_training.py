"""The annotation-queue notes' export rules, one test each, and stable ids across re-exports."""

from __future__ import annotations

from assay.queue.items import Message
from assay.queue.training import REJECTED_SOURCE, example, training_metrics, training_set
from test_queue_results import CRITERIA, row, snap


def assistant(ex: dict) -> dict:
    return ex["messages"][-1]


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
    assert len(ids) == 1 and training_metrics(ts)["skipped_tie_without_correction"] == 1
    later = snap([row(0, "a", "a").model_copy(update={"correction": "fixed"}), row(1, "tie", "a"), row(2, "b", "b")])
    ts2 = training_set([later], into=ts)  # exported again after more reviews and an edit
    assert ids <= set(ts2.dpo) and len(ts2.dpo) == 2
    assert set(ts2.sft) == ids and assistant(ts2.sft[next(iter(ids))])["content"] == "fixed"
    assert training_set([later]).rows("dpo") == ts2.rows("dpo")
