"""The review API's bodies as models (assay.queue.views): the same keys, in the same order, as the page reads."""

from __future__ import annotations

from assay.queue.review import reveal, shown_item

PAYLOAD = {"question": "q?", "answers": {"a": "x", "b": "y"}, "models": {"a": "m1", "b": "m2"},
           "judge": {"verdict": "a", "reason": "r", "scores": None}, "context": []}


def test_a_blind_item_without_a_reference_has_no_reference_key_and_swaps_the_answers():
    shown = shown_item("i1", "pair", True, PAYLOAD).model_dump()
    assert list(shown) == ["item_id", "kind", "question", "context", "answers"]
    assert shown["answers"] == {"A": "y", "B": "x"}  # swapped: b is shown first


def test_a_reference_is_shown_with_its_documents():
    payload = {**PAYLOAD, "reference": {"facts": ["f"], "documents": [{"id": "d1", "title": "T"}]}}
    shown = shown_item("i1", "pair", False, payload).model_dump()
    assert shown["reference"] == {"facts": ["f"], "documents": [{"id": "d1", "title": "T", "text": None}]}


def test_the_reveal_keeps_a_judge_without_scores_as_null_and_agreement_in_shown_letters():
    shown = reveal("pair", True, PAYLOAD, "B").model_dump()
    assert list(shown) == ["models", "judge", "agrees_with_judge"]
    # swapped: source a (the judge's verdict) is shown as B, which the reviewer chose
    assert shown == {"models": {"A": "m2", "B": "m1"}, "judge": {"verdict": "B", "reason": "r", "scores": None},
                     "agrees_with_judge": True}
