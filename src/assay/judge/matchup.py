"""The judge's comparison of two RAG versions: the baseline's and the candidate's answer on every case.

The ``judge_compare`` stage builds one :class:`Matchup` per case both run tables hold (answer ``a``
the baseline's reply, ``b`` the candidate's: the letters of the ``compare`` review-queue source,
:func:`assay.queue.sources.from_compare`), asks the configured judge about each in both orders
(:func:`assay.judge.replies.ask`, the same request keys as every other judge call) and stores the
replies under :data:`REPLIES_DIR`, committed like the ``judge`` stage's. The ``ppi`` stage and the
queue's ``compare`` source replay them (:class:`~assay.judge.replay.ReplayJudge`), so they need no
server; a reply missing for a case (a run or the prompt changed) is an error naming the case.

A case's judge value (:func:`judge_values`) is the candidate's win: 1 when both orders prefer the
candidate, 0 when both prefer the baseline, 0.5 for a tie or when the orders disagree (the swap
rule of :mod:`assay.judge.orders`). A case with an invalid, refused or failed reply in either order
has no judge value (``None``): it is dropped from every estimate and counted, never read as a tie.
A case where both versions gave the same reply is not asked (:func:`asked`): it is a tie, 0.5, by
definition (and its two orders would be one request).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from assay.artifacts.registry import JUDGE_COMPARE_REPLIES, RUN_TABLES
from assay.core.errors import InputError, Problem
from assay.judge.orders import PairJudgement, judge_pairs

if TYPE_CHECKING:
    from assay.data.cases import CaseRecord
    from assay.judge.base import Judge
    from assay.judge.prompts import PromptVersion

STAGE = "judge_compare"
REPLIES_DIR = JUDGE_COMPARE_REPLIES.relpath()
#: The name provenance files record the stored replies' tree hash under (:mod:`assay.release.input_hashes`).
JUDGE_COMPARE_INPUT = "judge_compare:replies"
#: What a missing stored reply's message says to do.
FIX = f"run `dvc repro {STAGE}` to ask the judge, then commit {REPLIES_DIR}/"
#: The candidate's win value of a judge label (a baseline, b candidate).
WIN = {"b": 1.0, "a": 0.0, "tie": 0.5}


class Matchup(BaseModel):
    """One case's two answers: ``a`` the baseline's reply, ``b`` the candidate's, with the case's slices.

    Satisfies :class:`~assay.judge.orders.AnswerPair` (``id``, ``case_question``, ``facts``, ``a``, ``b``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    case_question: str
    facts: tuple[str, ...]
    a: str
    b: str
    task: str
    set: str
    lang: str


def matchups(cases: Sequence[CaseRecord], baseline: dict[str, str], candidate: dict[str, str],
             where: str = RUN_TABLES.relpath()) -> list[Matchup]:
    """One :class:`Matchup` per case both runs answered, sorted by id.

    Args:
        cases: the case records (question, facts, task, set, language).
        baseline, candidate: each version's reply by case id.
        where: named in the error.

    Raises:
        InputError: a run holds a case id the cases file does not (the runs are older than the cases),
            or no case is in both runs.
    """
    by_id = {c.id: c for c in cases}
    both = sorted(set(baseline) & set(candidate))
    unknown = [i for i in both if i not in by_id]
    if unknown:
        raise InputError([Problem(where, None, "id", f"{len(unknown)} run case(s) not in the cases file, e.g. {unknown[0]!r}",
                                  "re-run the evaluate stages on the current cases")])
    if not both:
        raise InputError([Problem(where, None, None, "no case is in both the baseline and the candidate run",
                                  "run both versions on the same cases (dvc repro evaluate)")])
    return [Matchup(id=i, case_question=by_id[i].question, facts=tuple(by_id[i].facts), a=baseline[i], b=candidate[i],
                    task=by_id[i].task, set=by_id[i].set, lang=by_id[i].lang) for i in both]


def replies_path(prompt: PromptVersion, folder: str | Path = REPLIES_DIR) -> Path:
    """The stored replies of ``prompt`` for the comparison."""
    from assay.judge.replies import replies_file

    return replies_file(folder, prompt)


def asked(items: Sequence[Matchup]) -> list[Matchup]:
    """The items the judge is asked about: those whose two answers differ."""
    return [m for m in items if m.a != m.b]


def judge_values(items: Sequence[Matchup], judge: Judge, prompt: PromptVersion) -> list[float | None]:
    """The candidate's win per item, judged in both orders (see the module docstring); ``None`` for a
    case with a reply that is not ``ok``; 0.5 for identical answers, which are not asked.

    >>> from assay.judge.fake import FakeJudge
    >>> m = Matchup(id="c1", case_question="q", facts=("30 days",), a="no idea", b="30 days.", task="lookup",
    ...             set="golden", lang="en")
    >>> judge_values([m], FakeJudge(), prompt=None)  # the candidate holds the fact: it wins in both orders
    [1.0]
    """
    ask = asked(items)
    judged = dict(zip((m.id for m in ask), (value(j) for j in judge_pairs(judge, ask, prompt, swap=True)), strict=True))
    return [judged[m.id] if m.a != m.b else WIN["tie"] for m in items]


def value(judgement: PairJudgement) -> float | None:
    """The candidate's win for one judged case; ``None`` when either order's reply is not ``ok``."""
    if any(s != "ok" for s in judgement.statuses):
        return None
    return WIN[judgement.label]
