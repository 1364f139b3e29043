"""Metrics of the RAG stages: one version's run (evaluate) and the paired comparison (compare)."""

from __future__ import annotations

import math
from typing import Annotated

from assay.artifacts.base import Metrics
from assay.artifacts.estimate import Estimate
from assay.artifacts.gateable import Gateable


class ToolSlices(Metrics):
    """The tool-use rates by task, set and language: ``{metric: {task/set/language: Estimate}}``.

    Every metric and every taxonomy value appears; a slice without a tool case has value ``None``, n 0.
    """

    by_task: dict[str, dict[str, Estimate]]
    by_set: dict[str, dict[str, Estimate]]
    by_lang: dict[str, dict[str, Estimate]]


class SideMetrics(Metrics):
    """One side of the split for one version: every gateable metric as an :class:`Estimate`.

    The field names of the estimates are the metric names a plan may gate on
    (:data:`assay.artifacts.registry.METRIC_NAMES`), each marked with its plan family and range
    (:class:`~assay.artifacts.gateable.Gateable`). ``by_task``, ``by_set`` and ``by_lang`` are
    pass rates; ``tools`` slices the three tool-use rates the same ways.
    """

    n: int
    pass_rate: Annotated[Estimate, Gateable("correctness")]
    recall_at_k: Annotated[Estimate, Gateable("retrieval")]
    citation_support: Annotated[Estimate, Gateable("groundedness")]
    answer_correct: Annotated[Estimate, Gateable("correctness")]
    abstain_correct: Annotated[Estimate, Gateable("correctness")]
    format_ok: Annotated[Estimate, Gateable("format")]
    latency_p95_ms: Annotated[Estimate, Gateable("latency", 0.0, math.inf)]  # milliseconds
    tool_selection: Annotated[Estimate, Gateable("tool_use")]
    tool_arguments: Annotated[Estimate, Gateable("tool_use")]
    tool_permission: Annotated[Estimate, Gateable("tool_use")]
    by_task: dict[str, Estimate]
    by_set: dict[str, Estimate]
    by_lang: dict[str, Estimate]
    tools: ToolSlices


class RagMetrics(Metrics):
    """metrics/rag/<version>.json: the version's figures on ``dev`` (for tuning) and ``holdout`` (decides)."""

    n: int
    dev: SideMetrics
    holdout: SideMetrics


class CompareMetrics(Metrics):
    """metrics/compare.json: baseline vs candidate paired by case id, on the holdout only."""

    n: int
    baseline_pass_rate: Estimate
    candidate_pass_rate: Estimate
    diff: float | None
    diff_ci_low: float | None
    diff_ci_high: float | None
    better: int
    worse: int
    unchanged: int
    still_failing: int
    p_sign: float | None
    mcnemar_statistic: float | None
    mcnemar_p: float | None
    baseline_by_task: dict[str, Estimate]
    candidate_by_task: dict[str, Estimate]
    regressions: dict[str, int]
    regressions_n_paired: dict[str, int]


class HeadlineMetrics(Metrics):
    """metrics/headline.json: the comparison in five numbers, written by ``compare`` beside metrics/compare.json.

    The one metrics file narrow enough for ``dvc metrics show --md`` and ``dvc exp show --md`` in 80
    columns (``make metrics``, ``make exp``); every other figure stays in its own file, where
    ``dvc metrics diff`` shows it. Holdout only: ``before`` and ``after`` are the baseline's and the
    candidate's pass rates (``None`` with no holdout case), ``change`` is after minus before on the
    paired cases, ``gained`` and ``lost`` count the cases that went from fail to pass and from pass
    to fail. The names are short because DVC makes every column at least its name plus two wide.
    """

    before: float | None
    after: float | None
    change: float | None
    gained: int
    lost: int

    @classmethod
    def of(cls, compare: CompareMetrics) -> HeadlineMetrics:
        """The headline of a comparison (the same numbers as metrics/compare.json, under short names)."""
        return cls(before=compare.baseline_pass_rate.value, after=compare.candidate_pass_rate.value,
                   change=compare.diff, gained=compare.better, lost=compare.worse)
