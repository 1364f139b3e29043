"""Metrics of the retrieval-mode stages: one mode's IR measures and answer rates, and the paired
comparison between modes (see :mod:`assay.relevance`)."""

from __future__ import annotations

from assay.artifacts.base import Metrics

Numbers = dict[str, float | int | None]


class Interval(Metrics):
    """A mean or rate over ``n`` queries with its 95% interval (``low``, ``high``)."""

    value: float | None
    low: float | None
    high: float | None
    n: int


class Latency(Interval):
    """p95 latency in ms over ``n`` values; ``modelled`` is 1 when they come from the deterministic cost model
    (one per query), 0 when they are measured wall times (``queries`` x ``repetitions`` timed searches)."""

    modelled: int
    queries: int
    repetitions: int


class ModeMetrics(Metrics):
    """metrics/relevance/<mode>.json: IR measures, answer rates, p95 latency and the seven thresholds.

    ``thresholds`` maps each pre-registered threshold to ``value``, ``low``, ``high``,
    ``threshold`` and ``pass`` (1/0).
    """

    answers: dict[str, Interval]
    latency_ms: Latency
    level: float
    measures: dict[str, Interval]
    queries: dict[str, int]
    synthetic_qrels: int
    thresholds: dict[str, Numbers]
    thresholds_met: int


class ModeComparison(Metrics):
    """metrics/relevance/comparison.json: per measure and mode pair, the paired mean difference, n,
    p, Holm-adjusted p and reject (1/0)."""

    by_measure: dict[str, dict[str, Numbers]]
