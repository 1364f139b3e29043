"""Metrics of the human relevance study's verdict (see :mod:`assay.study.verdict`)."""

from __future__ import annotations

from assay.artifacts.base import Metrics

Numbers = dict[str, float | int | None]


class Bounds(Metrics):
    """An agreement figure with its bootstrap interval (None where undefined)."""

    value: float | None
    low: float | None
    high: float | None


class SplitAgreement(Metrics):
    """One split's agreement receipt: pairs, disagreements, ordinal alpha and weighted kappa."""

    pairs: int
    disagreements: int
    alpha: Bounds
    kappa: Bounds


class ModeFigures(Metrics):
    """One mode on one split: each threshold's ``value``, ``low``, ``high``, ``threshold``, ``pass`` (1/0)."""

    thresholds_met: int
    thresholds: dict[str, Numbers]


class ModeVerdict(ModeFigures):
    """One mode on the sealed holdout: ``passed`` is 1 only when every condition and every threshold holds."""

    passed: int


class VerdictMetrics(Metrics):
    """metrics/relevance/verdict.json: the study's verdict, numbers only.

    ``passed`` is 1 when every pass condition of the protocol (docs/relevance-study.md) holds and the candidate mode meets all
    seven thresholds on the sealed holdout; ``conditions`` maps each condition to 1/0;
    ``sealed_holdout`` is empty while the holdout is sealed. ``waiting`` is 1 while judgments are
    not handed in yet (:mod:`assay.study.waiting`): then nothing else is measured and ``passed`` is 0.
    """

    passed: int
    waiting: int = 0
    synthetic: int
    holdout_opened: int
    conditions_met: int
    conditions: dict[str, int]
    modes_passed: int
    agreement: dict[str, SplitAgreement]
    development: dict[str, ModeFigures]
    sealed_holdout: dict[str, ModeVerdict]
