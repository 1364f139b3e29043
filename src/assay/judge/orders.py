"""Judging a pair in one or both orders and turning first/second verdicts into a/b labels.

With ``swap`` every pair is asked as (a, b) and as (b, a) in one ``judge_many`` batch, so a real
judge can run them concurrently. A label survives only if both orders agree; when the two ok
verdicts disagree the label is ``tie`` and the pair counts as an order disagreement (the
remedy for position bias: an unstable verdict becomes an honest "not sure", it does not become
right). A verdict whose status is not ``ok`` (invalid, refused, failed) counts as a tie and is
counted by status; it is not an order disagreement.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from assay.core.errors import AssayError
from assay.judge.base import FAILURE_STATUSES, Judge, JudgeItem, Status, Verdict

if TYPE_CHECKING:
    from assay.judge.prompts import PromptVersion



class AnswerPair(Protocol):
    """What the judge is asked about: two answers to one question (a labelled :class:`~assay.data.pairs.Pair`,
    or two versions' answers to one case, :class:`~assay.judge.matchup.Matchup`)."""

    @property
    def id(self) -> str: ...
    @property
    def case_question(self) -> str: ...
    @property
    def facts(self) -> Sequence[str]: ...
    @property
    def a(self) -> str: ...
    @property
    def b(self) -> str: ...


_FORWARD = {"first": "a", "second": "b", "tie": "tie"}  # a shown first
_BACKWARD = {"first": "b", "second": "a", "tie": "tie"}  # b shown first


class JudgeContractError(AssayError):
    """A judge returned a different number of verdicts than it was asked for."""


@dataclass(frozen=True, slots=True)
class PairJudgement:
    """One pair's outcome.

    Attributes:
        label: ``a``, ``b`` or ``tie`` (the final judge label for the pair).
        forward: the verdict with ``a`` shown first.
        backward: the verdict with ``b`` shown first, or ``None`` without swap.
        order_disagreement: both orders gave ok verdicts that name different answers.
    """

    label: str
    forward: Verdict
    backward: Verdict | None
    order_disagreement: bool

    @property
    def forward_label(self) -> str:
        """The forward verdict as ``a``/``b``/``tie`` (a non-ok verdict is a tie)."""
        return _FORWARD[self.forward.winner] if self.forward.status == "ok" else "tie"

    @property
    def backward_label(self) -> str | None:
        """The backward verdict as ``a``/``b``/``tie``; ``None`` without swap."""
        if self.backward is None:
            return None
        return _BACKWARD[self.backward.winner] if self.backward.status == "ok" else "tie"

    @property
    def statuses(self) -> tuple[str, ...]:
        """The status of each verdict asked (one or two)."""
        return (self.forward.status,) if self.backward is None else (self.forward.status, self.backward.status)


def items_for(pairs: Sequence[AnswerPair], swap: bool) -> list[JudgeItem]:
    """The items to ask: every pair as (a, b), then, with ``swap``, every pair as (b, a)."""
    forward = [JudgeItem(p.case_question, tuple(p.facts), p.a, p.b) for p in pairs]
    if not swap:
        return forward
    return forward + [JudgeItem(i.question, i.facts, i.second, i.first) for i in forward]


def distinct(items: Sequence[JudgeItem]) -> tuple[list[JudgeItem], list[int]]:
    """The distinct items in first-seen order, and for each of ``items`` the index of its distinct item.

    Two pairs with the same question, facts and answers under different ids (a copied row in a
    labelling export), or one pair's (b, a) equal to another's (a, b), are the same request: under one
    judge and prompt they have the same reply key (:func:`assay.judge.replies.reply_key`).

    >>> x, y = JudgeItem("q", (), "a", "b"), JudgeItem("q", (), "b", "a")
    >>> distinct([x, y, x])
    ([JudgeItem(question='q', facts=(), first='a', second='b'), JudgeItem(question='q', facts=(), first='b', second='a')], [0, 1, 0])
    """
    index: dict[JudgeItem, int] = {}
    where = [index.setdefault(item, len(index)) for item in items]
    return list(index), where


def ask_items(judge: Judge, pairs: Sequence[AnswerPair], prompt: PromptVersion, swap: bool) -> tuple[list[JudgeItem], list[Verdict]]:
    """The items of :func:`items_for` and the judge's verdicts on them, from one ``judge_many`` call.

    Identical items (:func:`distinct`) are asked once and their verdict is shared: the judge sees
    each distinct request one time, and every pair holding it gets the same verdict.

    Raises:
        JudgeContractError: the judge returned the wrong number of verdicts.
    """
    items = items_for(pairs, swap)
    unique, where = distinct(items)
    verdicts = judge.judge_many(unique, prompt)
    if len(verdicts) != len(unique):
        raise JudgeContractError(f"the judge returned {len(verdicts)} verdicts for {len(unique)} items "
                                 "(fix: judge_many must return one verdict per item, in order)")
    return items, [verdicts[k] for k in where]


def judge_pairs(judge: Judge, pairs: Sequence[AnswerPair], prompt: PromptVersion, swap: bool,
                batch: int | None = None) -> list[PairJudgement]:
    """Judge every pair, in one order or both: one ``judge_many`` call per batch of pairs.

    Args:
        batch: pairs per ``judge_many`` call (both orders of a pair go in the same call); default
            :func:`assay.core.bulk.batch_rows`. Only memory depends on it: the items of one batch
            are built, asked and dropped before the next. A judge that checks its failure share per
            call (``judge.openai.max_failed_share``) checks it per batch.

    Returns one :class:`PairJudgement` per pair, in the order of ``pairs``; an empty list for no pairs.

    Raises:
        JudgeContractError: the judge returned the wrong number of verdicts.
    """
    from assay.core.bulk import batch_rows, batched, bulk

    out: list[PairJudgement] = []
    with bulk():  # small objects per pair, none in a reference cycle: see assay.core.bulk
        for chunk in batched(pairs, batch or batch_rows()):
            _, verdicts = ask_items(judge, chunk, prompt, swap)
            out += _judgements(verdicts, len(chunk), swap)
    return out


def _judgements(verdicts: Sequence[Verdict], n: int, swap: bool) -> list[PairJudgement]:
    """The judgements of ``n`` pairs from the verdicts of :func:`items_for` on them."""
    out = []
    for k in range(n):
        fwd = verdicts[k]
        f_label = _FORWARD[fwd.winner] if fwd.status == "ok" else "tie"
        if not swap:
            out.append(PairJudgement(f_label, fwd, None, False))
            continue
        bwd = verdicts[n + k]
        b_label = _BACKWARD[bwd.winner] if bwd.status == "ok" else "tie"
        both_ok = fwd.status == "ok" and bwd.status == "ok"
        if f_label == b_label:
            out.append(PairJudgement(f_label, fwd, bwd, False))
        else:
            out.append(PairJudgement("tie", fwd, bwd, both_ok))
    return out


def status_counts(results: Sequence[PairJudgement], statuses: Sequence[Status] = FAILURE_STATUSES) -> dict[str, int]:
    """How many verdicts (not pairs: two per pair with swap) had each of ``statuses``.

    The default counts the non-ok ones, ``{"invalid": .., "refused": .., "failed": ..}``; a status
    no verdict had counts 0. Pass :data:`assay.judge.base.STATUSES` to count ``ok`` too.
    """
    counts = Counter(s for r in results for s in r.statuses)
    return {s: counts.get(s, 0) for s in statuses}
