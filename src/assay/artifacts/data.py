"""Metrics of the data stages: plan, validate (dataset), split and leakage."""

from __future__ import annotations

from assay.artifacts.base import Metrics


class PlanMetrics(Metrics):
    """metrics/plan.json: counts of the plan's parts and of the problems it leaves unguarded."""

    problems: int
    failures: int
    metrics: int
    blocking: int


class DatasetMetrics(Metrics):
    """metrics/dataset.json: case and document counts, coverage gaps, counts by language, set and task, tool cases,
    unpassable facts."""

    cases: int
    documents: int
    gaps: int
    empty_cells: int
    by_lang: dict[str, int]
    by_set: dict[str, int]
    by_task: dict[str, int]
    tool_cases: int = 0
    unpassable_facts: int = 0  # facts in none of their case's documents (assay.data.unpassable)


class SplitMetrics(Metrics):
    """metrics/split.json: cases on each side and the realised holdout share (rounded to 4 places)."""

    dev: int
    holdout: int
    holdout_share: float


class LeakageMetrics(Metrics):
    """metrics/leakage.json: near-duplicate counts across the split and against each source.

    ``paraphrase`` (counts and threshold of the optional second detector) is ``None`` when it is off;
    its pairs are never mixed into the exact counts.
    """

    dev_holdout: int
    sources: int
    by_source: dict[str, int]
    threshold: float
    paraphrase: dict[str, float | int] | None = None
