"""The interface every pairwise judge implements, fake or real.

A judge sees one question, the facts a correct answer must hold (used by the fake judge only), a
prompt version, and two answers shown as *first* and *second*. It returns a :class:`Verdict`.
Judging both orders is done by the caller, which sends (a, b) and (b, a) as two items in one
``judge_many`` call so a real judge can run them concurrently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, get_args, runtime_checkable

from assay.artifacts.rows import ReplyStatus
from assay.judge.prompt_version import PromptVersion

Winner = Literal["first", "second", "tie"]
# ok: a parsed verdict; invalid: the reply broke the output contract; refused: the model declined;
# failed: no reply after retries. Everything but ok is scored as a tie and counted separately.
Status = ReplyStatus  # "ok", "invalid", "refused", "failed", declared with the stored replies
#: Every verdict status, in the order counts are reported.
STATUSES: tuple[Status, ...] = get_args(Status)
#: The statuses scored as a tie and counted apart (what a judge's failure share counts).
FAILURE_STATUSES: tuple[Status, ...] = ("invalid", "refused", "failed")
#: A reply came back but could not be used; ``failed`` has no reply to show.
UNUSABLE_REPLY_STATUSES: tuple[Status, ...] = ("invalid", "refused")

#: A judge's identity: an open JSON object, since a judge a user plugs in names its own keys (see
#: :class:`Judge`). It is hashed into reply keys and calibration settings, so it stays plain JSON.
JudgeIdentity: TypeAlias = dict[str, Any]
#: A JSON object as sent to or read from a server or a JSON Lines file.
JSONObject: TypeAlias = dict[str, Any]


@dataclass(frozen=True)
class JudgeItem:
    """One question put to a judge, with the answers in the order they are shown."""

    question: str
    facts: tuple[str, ...]
    first: str
    second: str


@dataclass(frozen=True)
class Verdict:
    """A judge's decision on one item. ``winner`` is ``tie`` whenever ``status`` is not ``ok``."""

    winner: Winner
    status: Status = "ok"
    reason: str | None = None
    extra: JSONObject = field(default_factory=dict, compare=False)


@runtime_checkable
class Judge(Protocol):
    """What probe and calibrate need from a judge.

    ``identity`` names the judge in every record (for example ``{"kind": "fake", "preset": "mixed"}``
    or ``{"provider": "openai", "model": "...", "model_version": "..."}``); it must not contain secrets.
    """

    @property
    def identity(self) -> JudgeIdentity: ...

    def judge_many(self, items: list[JudgeItem], prompt: PromptVersion) -> list[Verdict]:
        """Verdicts for ``items`` in the same order, using ``prompt`` (an ``assay.judge.prompt_version.PromptVersion``)."""
        ...
