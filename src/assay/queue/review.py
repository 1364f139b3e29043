"""One reviewer's review: validating it against the item and rubric, and the blind A/B mapping.

Answers are stored under their source letters ``a`` and ``b``; a reviewer sees them as "Answer A"
and "Answer B" in a per-item order fixed at queue creation (``swap``: the source's ``b`` is shown
as A). A review arrives in shown letters and is converted back for results and export.

A review of a judged pair is ``{"choice": "A"|"B"|"tie", "scores": {"A": {criterion: 1-5, ...},
"B": {...}}, "correction": null|str, "note": null|str}``; a review of a single response has
``choice`` null and scores for ``A`` only. Every criterion of the rubric must be scored, nothing
else; an empty correction or note counts as none.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from assay.core.errors import shown as shown_value
from assay.queue.errors import QueueError
from assay.queue.rubric import Rubric
from assay.queue.views import JudgeShown, Reveal, ShownDocument, ShownItem, ShownReference

SHOWN = ("A", "B")
CHOICES = ("A", "B", "tie")
REVIEW_FIELDS = ("choice", "scores", "correction", "note")


class ReviewInvalid(QueueError):
    """A review body that does not fit the item or rubric (HTTP 422).

    ``field`` names the bad field (``choice``, ``scores.B.tone``, ``note``, ``body`` ...) and
    ``message`` says in plain words what the reviewer should do; the web app sends both, and the
    page shows the message next to that field. ``str()`` prefixes the field for logs.
    """

    status = 422

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"field '{field}': {message}")


@dataclass(frozen=True)
class Review:
    """A validated review in shown letters."""

    choice: str | None
    scores: dict[str, dict[str, int]]
    correction: str | None
    note: str | None


def letters(kind: str) -> tuple[str, ...]:
    """The shown letters an item of ``kind`` has: A and B for a pair, A alone for a response."""
    return SHOWN if kind == "pair" else ("A",)


def to_source(letter: str | None, swap: bool) -> str | None:
    """Shown letter (A, B, tie) to source letter (a, b, tie); ``None`` stays ``None``.

    >>> to_source("A", True), to_source("B", False), to_source("tie", True)
    ('b', 'b', 'tie')
    """
    if letter is None or letter == "tie":
        return letter
    source = letter.lower()
    return {"a": "b", "b": "a"}[source] if swap else source


def to_shown(source: str | None, swap: bool) -> str | None:
    """Source letter (a, b, tie) to shown letter (A, B, tie); the inverse of :func:`to_source`."""
    if source is None or source == "tie":
        return source
    letter = {"a": "b", "b": "a"}[source] if swap else source
    return letter.upper()


def _optional_text(body: dict, field: str) -> str | None:
    value = body.get(field)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ReviewInvalid(field, f"The {field} must be text (or left empty), not {type(value).__name__}.")
    bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cs") and c not in "\n\r\t"), None)
    if bad is not None:
        raise ReviewInvalid(field, f"The {field} holds a control character ({bad!r} at character "
                                   f"{value.index(bad) + 1}); remove it (line breaks and tabs are fine).")
    return value.strip() or None


def validate_review(body: object, kind: str, rubric: Rubric) -> Review:
    """Check a review body against the item kind and the queue's rubric.

    Raises:
        ReviewInvalid: naming the first bad field (``choice``, ``scores.B.tone``, an unknown field ...).
    """
    if not isinstance(body, dict):
        raise ReviewInvalid("body", "Send the review as a JSON object with choice, scores, correction and note.")
    unknown = sorted(set(body) - set(REVIEW_FIELDS))
    if unknown:
        raise ReviewInvalid(unknown[0], f"'{unknown[0]}' is not part of a review; a review has {', '.join(REVIEW_FIELDS)}.")
    shown = letters(kind)
    choice = body.get("choice")
    if kind == "pair":
        if choice is None:
            raise ReviewInvalid("choice", "Choose which answer is better: Answer A, Answer B or a tie.")
        if choice not in CHOICES:
            raise ReviewInvalid("choice", f"Choose Answer A, Answer B or a tie ({shown_value(choice, 60)} is none of them).")
    elif choice is not None:
        raise ReviewInvalid("choice", "This item has a single answer, so there is nothing to choose; send no choice.")
    scores = body.get("scores")
    if not isinstance(scores, dict):
        raise ReviewInvalid("scores", f"Score {_answers(shown)} on every criterion.")
    extra = sorted(set(scores) - set(shown))
    if extra:
        raise ReviewInvalid(f"scores.{extra[0]}", f"This item has {_answers(shown)} only; there is no Answer {extra[0]}.")
    clean = {letter: _letter_scores(scores.get(letter), letter, rubric) for letter in shown}
    return Review(choice, clean, _optional_text(body, "correction"), _optional_text(body, "note"))


def _answers(shown: tuple[str, ...]) -> str:
    """``Answer A and Answer B`` or ``Answer A``.

    >>> _answers(("A", "B"))
    'Answer A and Answer B'
    """
    return " and ".join(f"Answer {letter}" for letter in shown)


def _letter_scores(given: object, letter: str, rubric: Rubric) -> dict[str, int]:
    """The scores of shown answer ``letter``: every rubric criterion, a whole number on the scale.

    Raises:
        ReviewInvalid: not an object, an unknown criterion (the first in sorted order), or a bad value.
    """
    lo, hi = rubric.spec.scale.min, rubric.spec.scale.max
    if not isinstance(given, dict):
        raise ReviewInvalid(f"scores.{letter}", f"Score Answer {letter} on every criterion: {', '.join(rubric.spec.names)}.")
    for name in sorted(set(given) - set(rubric.spec.names)):
        raise ReviewInvalid(f"scores.{letter}.{name}",
                            f"'{name}' is not a criterion of this rubric; its criteria are {', '.join(rubric.spec.names)}.")
    clean: dict[str, int] = {}
    for name in rubric.spec.names:
        value = given.get(name)
        if value is None:
            raise ReviewInvalid(f"scores.{letter}.{name}", f"Give Answer {letter} a {name} score from {lo} to {hi}.")
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ReviewInvalid(f"scores.{letter}.{name}",
                                f"Give Answer {letter} a {name} score from {lo} to {hi} as a whole number "
                                f"({shown_value(value, 60)} is not one).")
        clean[name] = value
    return clean


def shown_item(item_id: str, kind: str, swap: bool, payload: dict[str, Any]) -> ShownItem:
    """What a reviewer may see before saving: the question, the answers as A/B and the case's reference.

    ``reference`` (the case's facts and cited documents) is there only when the source has one. No
    model names, no judge verdict, reason or scores, no human label, no source id.
    """
    answers = payload["answers"]
    if kind == "pair":
        shown = {"A": answers["b"] if swap else answers["a"], "B": answers["a"] if swap else answers["b"]}
    else:
        shown = {"A": answers["a"]}
    reference = payload.get("reference")
    shown_reference = ShownReference(facts=list(reference.get("facts") or []), documents=[
        ShownDocument(id=d["id"], title=d.get("title"), text=d.get("text")) for d in reference.get("documents") or []
    ]) if reference else None
    return ShownItem(item_id=item_id, kind=kind, question=payload["question"], context=payload.get("context") or [],
                     answers=shown, reference=shown_reference)


def reveal(kind: str, swap: bool, payload: dict[str, Any], choice: str | None) -> Reveal:
    """What saving shows: which model wrote each shown answer, and what the judge said (in shown letters)."""
    models = payload.get("models") or {}
    judge = payload.get("judge") or {}
    judge_scores = judge.get("scores") or {}
    out_models = {to_shown(src, swap): models.get(src) for src in ("a", "b") if src in payload["answers"]}
    verdict = to_shown(judge.get("verdict"), swap)
    shown_scores = {to_shown(src, swap): sc for src, sc in judge_scores.items()}
    agrees = None
    if kind == "pair" and choice in ("A", "B") and verdict in ("A", "B"):
        agrees = choice == verdict
    return Reveal(models=out_models, judge=JudgeShown(verdict=verdict, reason=judge.get("reason"), scores=shown_scores or None),
                  agrees_with_judge=agrees)
