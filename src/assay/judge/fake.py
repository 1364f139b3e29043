"""A deterministic fake pairwise judge whose biases are switches, so each one can be shown and measured.

Score of an answer (the FakeJudge of the evaluation-design notes)::

    base  = share of the listed facts it contains (NFKC, case-folded) + 0.15 if it cites a source id
    score = base + verbosity * min(words / 60, 1)      # length bonus, capped at 60 words
                 + self_pref * (starts with SELF_MARK)  # the judge's own house style
                 + position * (shown first)

The answer with the higher score wins when the gap is larger than ``margin``; otherwise tie. With
``bangla_blind`` the judge cannot read Bangla: for an answer in Bangla the base is replaced by
``min(words / 60, 1)``, so it judges Bangla answers by length only.

The fake does not read the prompt: ``judge_many`` ignores the prompt text, so it cannot show
wording sensitivity (a real judge can flip its verdict when the rubric's words change; measure
that with two prompt versions on a real judge).

The text features (:func:`n_words`, :func:`cited`, :func:`is_bangla`, :func:`own_style`,
:func:`fact_share`) are public because calibration's error shape and the dimension rules use the
same definitions.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

import numpy as np

from assay.core.errors import InputError, Problem
from assay.data.tokens import UNSPACED, fold, tokens
from assay.judge.base import JudgeIdentity, JudgeItem, Verdict

SELF_MARK = "Certainly! Here is a clear answer:"
CITE_BONUS = 0.15
WORDS_CAP = 60

#: A citation marker, ``[source: <id>]`` with an id of letters, digits, ``_``, ``.`` and ``-``; the
#: fake judge's cite bonus and the evidence and concision rules of :mod:`assay.judge.dimensions` use it.
CITATION = re.compile(r"\[source:\s*[A-Za-z0-9][A-Za-z0-9_.-]*\]")
_BANGLA = re.compile(r"[\u0980-\u09FF]")


def n_words(text: str) -> int:
    """Words: whitespace-separated pieces (a citation marker counts as its words), where a piece holding
    Chinese, Japanese or Thai counts as its tokens (:func:`assay.data.tokens.tokens`: one per character
    bigram, so a 10-character Chinese sentence is 9 words, near its count of characters; at least 1).

    >>> n_words("one two  three"), n_words("退货期限是多少天"), n_words("返品は 30 日以内")
    (3, 7, 5)
    """
    pieces = text.split()
    if UNSPACED.search(text) is None:
        return len(pieces)
    return sum(max(len(tokens(p)), 1) if UNSPACED.search(p) else 1 for p in pieces)


def cited(text: str) -> bool:
    """True when the text holds a source id like ``[source: kb-refunds-v2]``."""
    return CITATION.search(text) is not None


def is_bangla(text: str) -> bool:
    """True when the text holds any Bengali-script letter (U+0980 to U+09FF)."""
    return _BANGLA.search(text) is not None


def own_style(text: str) -> bool:
    """True when the answer is written in the judge's house style (starts with :data:`SELF_MARK`)."""
    return text.startswith(SELF_MARK)


def fact_share(text: str, facts: tuple[str, ...] | list[str]) -> float:
    """Share of ``facts`` found in ``text``, both in :func:`assay.data.tokens.fold` form (NFKC, case-folded,
    blanks as one space: the rule every fact match uses); 0.0 when ``facts`` is empty.

    >>> fact_share("Devolución en ３０ DÍAS", ["30 días", "gratis"])
    0.5
    """
    if not facts:
        return 0.0
    folded = fold(text)
    return sum(fold(f) in folded for f in facts) / len(facts)


_VERDICTS = {1: Verdict("first"), -1: Verdict("second"), 0: Verdict("tie")}  # shared, treat as immutable


_Key = tuple[str, tuple[str, ...]]  # (answer text, facts)
_Features = tuple[float, float, bool]  # (base score, length share, own style)


@dataclass(frozen=True)
class FakeJudge:
    """The fake judge; see the module docstring for the score.

    Attributes:
        preset: the preset name, or ``custom`` for hand-set values (part of the identity).
        position: bonus for the answer shown first.
        verbosity: bonus for length, times ``min(words / 60, 1)``.
        self_pref: bonus for an answer starting with :data:`SELF_MARK`.
        bangla_blind: judge Bangla answers by length only.
        margin: score gaps at or below this are a tie.
    """

    preset: str = "custom"
    position: float = 0.0
    verbosity: float = 0.0
    self_pref: float = 0.0
    bangla_blind: bool = False
    margin: float = 0.1

    @classmethod
    def from_preset(cls, name: str) -> FakeJudge:
        """A preset judge (see :data:`PRESETS`); an unknown name raises InputError listing the presets."""
        if name not in PRESETS:
            raise InputError([Problem("params.yaml", None, "judge.preset", f"{name!r} is not one of {', '.join(PRESETS)}",
                                      f"use one of {', '.join(PRESETS)}")])
        return PRESETS[name]

    @property
    def identity(self) -> JudgeIdentity:
        """``{"kind": "fake", "preset": ..., and every setting}``."""
        return {"kind": "fake", **asdict(self)}

    def _features(self, text: str, facts: tuple[str, ...], cache: dict[_Key, _Features]) -> _Features:
        key = (text, facts)
        hit = cache.get(key)
        if hit is None:
            words = n_words(text)
            length = min(words / WORDS_CAP, 1.0)
            base = length if self.bangla_blind and is_bangla(text) else fact_share(text, facts) + CITE_BONUS * cited(text)
            hit = cache[key] = (base, length, own_style(text))
        return hit

    def scores(self, items: list[JudgeItem]) -> tuple[np.ndarray, np.ndarray]:
        """Scores of the first and second answers of every item, as two arrays (position included)."""
        cache: dict[_Key, _Features] = {}
        first = np.array([self._features(i.first, i.facts, cache) for i in items], dtype=float).reshape(-1, 3)
        second = np.array([self._features(i.second, i.facts, cache) for i in items], dtype=float).reshape(-1, 3)
        weights = np.array([1.0, self.verbosity, self.self_pref])
        return first @ weights + self.position, second @ weights

    def judge_many(self, items: list[JudgeItem], prompt: object = None) -> list[Verdict]:
        """Verdicts for ``items`` in order. ``prompt`` is ignored: the fake does not read prompts.

        Every verdict has status ``ok``; the fake never fails, refuses or breaks the format. An empty
        list gives an empty list.
        """
        if not items:
            return []
        s_first, s_second = self.scores(items)
        gap = s_first - s_second
        sign = np.where(gap > self.margin, 1, np.where(gap < -self.margin, -1, 0))
        return [_VERDICTS[s] for s in sign.tolist()]


PRESETS: dict[str, FakeJudge] = {
    "clean": FakeJudge(preset="clean"),
    # 0.3 beats the 0.15 citation bonus plus the 0.1 margin: equal-fact pairs go to whichever is first
    "position": FakeJudge(preset="position", position=0.3),
    # 0.5 per 60 words: a 25-word padding is worth 0.21, above the margin
    "verbosity": FakeJudge(preset="verbosity", verbosity=0.5),
    # 0.4 beats the 0.15 citation bonus by more than the margin
    "self": FakeJudge(preset="self", self_pref=0.4),
    # every bias small, and blind to Bangla: what a real judge tends to look like
    "mixed": FakeJudge(preset="mixed", position=0.15, verbosity=0.2, self_pref=0.2, bangla_blind=True),
}
