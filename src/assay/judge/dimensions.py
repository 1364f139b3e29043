"""Per-dimension verdicts for a pair: correctness, evidence and concision kept apart.

One pick squeezes correctness, evidence and style into one opaque choice. These deterministic
rules (no judge, no bias) say which answer is better on each dimension, for comparison with the
human label and the judge:

- correctness: the answer holding the larger share of the listed facts wins; equal shares tie.
- evidence: the answer that cites a source id wins when the other does not; both or neither tie.
  This is independent of correctness: a cited wrong answer still wins evidence (whether the source
  holds the claim is the citation-support metric's job, not this rule's).
- concision: word counts without citation markers; the shorter wins when the longer has at least
  ``CONCISION_RATIO`` times its words, otherwise tie (a few words of difference are not padding).

A release rule can then say "correctness must not regress" while "concision may".
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from assay.judge.fake import CITATION, cited, fact_share
from assay.data.pairs import Pair

Pick = Literal["a", "b", "tie"]

CONCISION_RATIO = 1.5


def _words_without_citations(text: str) -> int:
    return len(CITATION.sub(" ", text).split())


class DimensionVerdicts(BaseModel):
    """Which answer of a pair is better on each dimension: ``a``, ``b`` or ``tie``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    correctness: Pick
    evidence: Pick
    concision: Pick


def _pick(a: float, b: float, higher_wins: bool = True) -> Pick:
    if a == b:
        return "tie"
    return "a" if (a > b) == higher_wins else "b"


def dimensions(pair: Pair) -> DimensionVerdicts:
    """The verdict on ``correctness``, ``evidence`` and ``concision``, each ``a``, ``b`` or ``tie``.

    A pair without facts is a correctness tie.

    >>> from assay.data.pairs import Pair
    >>> p = Pair(id="x", case_question="q", facts=["30 days"], a="30 days. [source: kb-1]", b="30 days.",
    ...          kind="cite", lang="en", ann1="a", ann2="a", final="a")
    >>> dimensions(p)
    DimensionVerdicts(correctness='tie', evidence='a', concision='tie')
    """
    correctness = _pick(fact_share(pair.a, pair.facts), fact_share(pair.b, pair.facts))
    evidence = _pick(float(cited(pair.a)), float(cited(pair.b)))
    wa, wb = _words_without_citations(pair.a), _words_without_citations(pair.b)
    concision = _pick(wa, wb, higher_wins=False) if max(wa, wb) >= CONCISION_RATIO * min(wa, wb) and wa != wb else "tie"
    return DimensionVerdicts(correctness=correctness, evidence=evidence, concision=concision)
