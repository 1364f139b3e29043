"""Row models of the JSONL files the pipeline writes (see :mod:`assay.artifacts.outputs`)."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field, field_validator

from assay.artifacts.files import Row, SparseRow


class DisagreementRow(Row):
    """reports/disagreements.jsonl: one pair the two annotators labelled differently (sorted by id)."""

    id: str
    ann1: str
    ann2: str
    kind: str
    lang: str


class DimensionRow(Row):
    """reports/judge_dimensions.jsonl: per pair, the final human label, the judge's label and the
    rule-based verdict on each dimension (see :mod:`assay.judge.dimensions`)."""

    id: str
    kind: str
    lang: str
    final: str
    judge: str | None
    correctness: str
    evidence: str
    concision: str


class LedgerRow(Row):
    """data/holdout_ledger.jsonl: one look at the holdout (see :mod:`assay.release.ledger`)."""

    candidate: str
    dataset: str
    verdict: str



#: a SHA-256 as hex, what a stored judge reply keeps of the reply text
SHA256_HEX = re.compile(r"[0-9a-f]{64}")

#: How a judge's request ended (``assay.judge.base.Status`` is this type).
ReplyStatus = Literal["ok", "invalid", "refused", "failed"]


class StoredReply(SparseRow):
    """data/derived/judge/<prompt>.jsonl (and the judge_compare stage's): one stored judge reply.

    See :mod:`assay.judge.replies` for the fields. ``response_id`` and ``system_fingerprint`` are
    written only when the server gave them, so a judge without them (the fake judge, an older file)
    keeps its bytes. ``reply`` is the SHA-256 of the reply text (64 lowercase hex digits) or ``None``:
    a row holding the text itself (written by an assay before the hash) is refused, naming the fix.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    omit_when_none: ClassVar[frozenset[str] | None] = frozenset({"response_id", "system_fingerprint"})
    key: str = Field(min_length=64, max_length=64)
    pair: str = Field(min_length=1)
    order: Literal["ab", "ba"]
    prompt_version: int = Field(ge=1)
    prompt_sha: str
    status: ReplyStatus
    winner: Literal["first", "second", "tie"]
    reason: str | None = None
    reply: str | None = None
    model_version: str | None = None
    response_id: str | None = None
    system_fingerprint: str | None = None

    @field_validator("reply")
    @classmethod
    def _reply_is_a_hash(cls, value: str | None) -> str | None:
        if value is not None and not SHA256_HEX.fullmatch(value):
            raise ValueError("holds text, not the SHA-256 of the reply: the raw reply is never kept (fix: run "
                             "`dvc repro -f judge` to rewrite the replies; the response cache answers without "
                             "asking the judge again)")
        return value

    def row(self) -> dict[str, Any]:
        """The row as written (the optional server fields only when given)."""
        data: dict[str, Any] = self.model_dump(mode="json")
        return data


class SystemReplyRow(SparseRow):
    """data/derived/replies/<version>.jsonl: one stored reply of a system assay calls (see :mod:`assay.rag.reply_store`).

    ``status`` ``failed`` rows keep the error (``reply`` is then empty and the case is scored as a
    failed reply); ``tool_calls`` is in the OpenAI function-calling shape. ``repeat`` is the run's
    index for a version with ``repeats``, written only from the second run on (absent: run 0).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    omit_when_none: ClassVar[frozenset[str] | None] = frozenset({"repeat"})
    key: str = Field(min_length=64, max_length=64)
    case_id: str = Field(min_length=1)
    status: Literal["ok", "failed"]
    reply: str
    retrieved: list[str] | None = None
    latency_ms: float | None = None
    tool_calls: list[dict[str, Any]] | None = None
    error: str | None = None
    repeat: int | None = Field(default=None, ge=1)

    @property
    def run(self) -> int:
        """The run's index (0 when ``repeat`` is absent)."""
        return self.repeat or 0


class Turn(SparseRow):
    """One chat turn; the answer's turn of an SFT/DPO example also carries the rejected answer."""

    role: str
    content: str
    rejected: str | None = None
    rejectedSource: str | None = None  # the chat format's spelling


class ChatExample(Row):
    """reports/training/sft.jsonl and dpo.jsonl: one example in the chat ``messages`` format
    (see :mod:`assay.queue.training`)."""

    id: str
    snapshot: str
    synthetic: bool
    messages: list[Turn]


class PreferenceExample(Row):
    """reports/training/dpo_trl.jsonl: one DPO example in TRL's conversational preference format."""

    id: str
    snapshot: str
    synthetic: bool
    prompt: list[Turn]
    chosen: list[Turn]
    rejected: list[Turn]
