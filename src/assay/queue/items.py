"""What a queue item is made of: the judged pair or single response copied into the queue.

A JSONL source file holds one :class:`SourceItem` per line (or one :class:`Conversation` per line,
each assistant turn becoming a single-response item). Review snapshots reuse these models.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Letter = Literal["a", "b"]


class JudgeOpinion(BaseModel):
    """What the judge said about an item; everything optional.

    ``verdict`` a/b/tie; ``scores`` per source letter and criterion (1 to 5); ``order_flip`` true when
    the two presentation orders disagreed; ``margin`` the judge's own confidence margin (0 to 1).
    """

    model_config = ConfigDict(extra="forbid")
    verdict: Literal["a", "b", "tie"] | None = None
    reason: str | None = None
    scores: dict[Letter, dict[str, Annotated[int, Field(strict=True, ge=1, le=5)]]] | None = None
    order_flip: bool = False
    margin: float | None = None
    identity: str | None = None


class Message(BaseModel):
    """One turn of a conversation."""

    model_config = ConfigDict(extra="forbid")
    role: Literal["system", "user", "assistant"]
    content: str


class CitedDocument(BaseModel):
    """A document the case cites: its id, and its title and text when the source has them."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    title: str | None = None
    text: str | None = None


class Reference(BaseModel):
    """What a correct answer rests on: the case's facts and the documents it cites (either may be empty).

    Shown to the reviewer before saving: it says nothing about models or the judge.
    """

    model_config = ConfigDict(extra="forbid")
    facts: list[str] = []
    documents: list[CitedDocument] = []


class SourceItem(BaseModel):
    """One reviewable thing: a judged pair (answers a and b) or a single response (answer a).

    ``reference`` (optional) holds the case's facts and cited documents; ``None`` when the source
    has neither, and then the page shows no reference section.
    """

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    kind: Literal["pair", "response"] = "pair"
    question: str = Field(min_length=1)
    answers: dict[Letter, str]
    models: dict[Letter, str] = {}
    judge: JudgeOpinion = JudgeOpinion()
    human: Literal["a", "b", "tie"] | None = None
    version_flip: bool = False
    context: list[Message] = []
    reference: Reference | None = None

    @model_validator(mode="after")
    def _answers_fit_kind(self) -> SourceItem:
        want = {"a", "b"} if self.kind == "pair" else {"a"}
        if set(self.answers) != want:
            raise ValueError(f"a {self.kind} item needs answers {', '.join(sorted(want))}, got {', '.join(sorted(self.answers)) or 'none'}")
        return self


class Conversation(BaseModel):
    """A dataset line: a conversation whose assistant turns are reviewed one by one."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    messages: list[Message] = Field(min_length=2)
    model: str | None = None
