"""Metrics of the RAG stages: one version's run (evaluate) and the paired comparison (compare)."""

from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar, Literal

from pydantic import SerializerFunctionWrapHandler, model_serializer

from assay.artifacts.base import Metrics
from assay.artifacts.estimate import Estimate
from assay.artifacts.gateable import Gateable

#: How a pass rate is read over the runs of a version with ``repeats``: every run passing (pass^k),
#: the mean over runs, at least one run passing (pass@k). The plan's ``across_repeats`` names one.
AcrossRepeats = Literal["all_runs", "mean_runs", "any_run"]
ACROSS_REPEATS: tuple[str, ...] = ("all_runs", "mean_runs", "any_run")


class _OmitWhenNone(Metrics):
    """A metrics model whose fields named in ``omit_when_none`` are left out of the file while ``None``,
    so a version without repeats keeps the bytes it had before they existed."""

    omit_when_none: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None or k not in self.omit_when_none}


class RepeatFigures(Metrics):
    """One pass rate read over the ``k`` runs of each case (:mod:`assay.rag.repeats`).

    ``all_runs`` (pass^k) and ``any_run`` (pass@k) are shares of cases (n cases, the proportion
    interval of ``rag.interval``); ``mean_runs`` is the share of passing runs with the cluster-robust
    interval of :func:`assay.stats.clustered.clustered_share` (n cases: the case is the unit);
    ``within_share`` is the share of the runs' variance that lies between runs of one case
    (:func:`assay.stats.clustered.within_share`; ``None`` where undefined, as when every run agrees).
    On every case ``all_runs <= mean_runs <= any_run``.
    """

    all_runs: Estimate
    mean_runs: Estimate
    any_run: Estimate
    within_share: float | None


class RepeatMetrics(Metrics):
    """The figures over repeated runs of one side: ``runs`` (the version's ``repeats``) and, per pass rate
    (``pass_rate`` and every share of cases), its :class:`RepeatFigures`."""

    runs: int
    by_metric: dict[str, RepeatFigures]


class ToolSlices(Metrics):
    """The tool-use rates by task, set and language: ``{metric: {task/set/language: Estimate}}``.

    Every metric and every taxonomy value appears; a slice without a tool case has value ``None``, n 0.
    """

    by_task: dict[str, dict[str, Estimate]]
    by_set: dict[str, dict[str, Estimate]]
    by_lang: dict[str, dict[str, Estimate]]


class SideMetrics(_OmitWhenNone):
    """One side of the split for one version: every gateable metric as an :class:`Estimate`.

    The field names of the estimates are the metric names a plan may gate on
    (:data:`assay.artifacts.registry.METRIC_NAMES`), each marked with its plan family and range
    (:class:`~assay.artifacts.gateable.Gateable`). ``by_task``, ``by_set`` and ``by_lang`` are
    pass rates; ``tools`` slices the three tool-use rates the same ways.

    ``repeats`` is there only for a version run several times per case: each share of cases is then
    read as pass^k (every run of the case passes) and :class:`RepeatMetrics` holds pass^k, the mean
    over runs and pass@k side by side (:mod:`assay.rag.repeats`).
    """

    omit_when_none: ClassVar[frozenset[str]] = frozenset({"repeats"})

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
    repeats: RepeatMetrics | None = None

    def across(self, name: str, reading: AcrossRepeats) -> tuple[Estimate, bool]:
        """Metric ``name`` as the plan reads it over repeated runs: ``(estimate, is_mean)``.

        Without repeats, or for a metric with no :class:`RepeatFigures` (recall, latency, tool
        arguments), the field itself and ``False``; with them, the ``reading``'s estimate and whether
        it is the mean over runs (not a share of cases, so its own interval decides).
        """
        figures = None if self.repeats is None else self.repeats.by_metric.get(name)
        if figures is None:
            return getattr(self, name), False
        return getattr(figures, reading), reading == "mean_runs"


class RagMetrics(Metrics):
    """metrics/rag/<version>.json: the version's figures on ``dev`` (for tuning) and ``holdout`` (decides)."""

    n: int
    dev: SideMetrics
    holdout: SideMetrics


class CompareRepeats(Metrics):
    """How a comparison with repeated runs was read: each version's ``repeats`` and the paired t test
    on the per-case pass shares (``t_statistic``, ``t_p``; ``None`` when every difference is equal)."""

    baseline_runs: int
    candidate_runs: int
    t_statistic: float | None
    t_p: float | None


class CompareMetrics(_OmitWhenNone):
    """metrics/compare.json: baseline vs candidate paired by case id, on the holdout only.

    ``repeats`` is there only when either version ran each case several times: the comparison is then
    on per-case pass shares (see :mod:`assay.rag.compare`).
    """

    omit_when_none: ClassVar[frozenset[str]] = frozenset({"repeats"})

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
    repeats: CompareRepeats | None = None


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
