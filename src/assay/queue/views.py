"""What the review API hands the page: the blind item a reviewer leases, and what saving reveals.

These are the JSON bodies of ``GET /api/queues/{queue}/next`` and ``POST /api/items/{id}/review``
(:mod:`assay.queue.app` sends ``model_dump()``): typed here so the leases, the app and the tests
share one shape. Keys appear in field order; ``reference`` is left out when the case has none.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from assay.queue.items import Message


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RubricCriterion(_View):
    """One criterion as the page shows it, with the rubric's scale."""

    name: str
    question: str
    min: int
    max: int


class ShownDocument(_View):
    """A document the case cites (title and text when the source gave them)."""

    id: str
    title: str | None = None
    text: str | None = None


class ShownReference(_View):
    """The case's reference: its facts and the documents it cites."""

    facts: list[str]
    documents: list[ShownDocument]


class ShownItem(_View):
    """A blind item: the question, the conversation so far and the answers as A (and B), in the shown order.

    No model names, no judge verdict, reason or scores, no human label, no source id.
    """

    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"reference"})
    item_id: str
    kind: str
    question: str
    context: list[Message]
    answers: dict[str, str]
    reference: ShownReference | None = None

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None or k not in self.omitted_when_none}


class Lease(ShownItem):
    """A leased item: the blind item plus the rubric and the lease's end (ISO 8601 UTC, and whole seconds
    left by the server's clock, so a page can count down without trusting its own clock)."""

    rubric: list[RubricCriterion]
    lease_expires: str
    lease_seconds_left: int


class JudgeShown(_View):
    """What the judge said, in shown letters (``scores`` ``None`` when it gave none)."""

    verdict: str | None
    reason: str | None
    scores: dict[str, dict[str, int]] | None


class Reveal(_View):
    """What saving shows: which model wrote each shown answer, the judge's opinion, and whether the reviewer
    agreed with it (``None`` unless both decided a pair)."""

    models: dict[str, str | None]
    judge: JudgeShown
    agrees_with_judge: bool | None
