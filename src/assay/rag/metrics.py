"""A version's figures from its run table: every metric as an estimate with n and a 95% interval,
on the dev side (for tuning) and the holdout side (which decides), by task, set and language.

Intervals: pass rate, the 0/1 families and every slice rate use the proportion interval named in
params (``rag.interval``: Wilson by default); ``recall_at_k`` (a per-case share that can be 0.5)
uses a t interval clipped to [0, 1]; ``latency_p95_ms`` uses the distribution-free order-statistic
interval of :mod:`assay.stats.quantile`. A metric defined on no case has value ``None`` and n 0.

Tool use (:mod:`assay.rag.tool_calls`), over the tool cases only: ``tool_selection`` and
``tool_permission`` are shares of cases; ``tool_arguments`` is the share of expected *arguments*
met, over the cases whose expected tool was called (n counts arguments, not cases). Its interval
treats each argument as a trial; arguments of one case are not independent, so with many arguments
per case it is narrower than it should be.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, SupportsFloat

import numpy as np

from assay.artifacts.base import finite
from assay.artifacts.estimate import Estimate
from assay.artifacts.rag import SideMetrics, ToolSlices
from assay.data.cases import SETS, TASKS
from assay.stats.mean import mean_ci
from assay.stats.proportion import IntervalMethod, proportion_ci
from assay.stats.quantile import quantile_ci

BINARY_FAMILIES = ("citation_support", "answer_correct", "abstain_correct", "format_ok")


def _defined(values: Iterable[SupportsFloat | None]) -> list[float]:
    """The values that are neither ``None`` nor nan, as floats (a boolean counts 1 or 0)."""
    return [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def rate(values: Iterable[SupportsFloat | None] | np.ndarray, method: IntervalMethod) -> Estimate:
    """Share of true values among the defined ones, with its proportion interval.

    A numpy boolean array (every value defined) is counted without a Python loop.

    >>> rate([True, None, False, True], "wilson").n
    3
    """
    if isinstance(values, np.ndarray) and values.dtype == bool:
        k, n = int(np.count_nonzero(values)), int(values.size)
    else:
        x = _defined(values)
        k, n = int(sum(x)), len(x)
    if not n:
        return Estimate(value=None, n=0)
    low, high = proportion_ci(k, n, method)
    return Estimate(value=k / n, n=n, ci_low=finite(low), ci_high=finite(high))


def mean_estimate(values: Iterable[SupportsFloat | None]) -> Estimate:
    """Mean of the defined values in [0, 1] with the betting interval (:func:`assay.stats.mean.mean_ci`)."""
    x = _defined(values)
    if not x:
        return Estimate(value=None, n=0)
    low, high = mean_ci(x, bounds=(0.0, 1.0))
    return Estimate(value=float(np.mean(x)), n=len(x), ci_low=finite(low), ci_high=finite(high))


def p95(values: Iterable[SupportsFloat | None]) -> Estimate:
    """The 95th percentile (numpy's linear interpolation) with the order-statistic interval."""
    x = _defined(values)
    if not x:
        return Estimate(value=None, n=0)
    low, high = quantile_ci(x, 0.95)
    return Estimate(value=float(np.percentile(x, 95)), n=len(x), ci_low=finite(low), ci_high=finite(high))


TOOL_METRICS = ("tool_selection", "tool_arguments", "tool_permission")


def tool_rates(rows: Sequence[Mapping], method: IntervalMethod) -> dict[str, Estimate]:
    """The three tool-use rates over ``rows`` (see the module docstring); keys are :data:`TOOL_METRICS`.

    >>> rows = [{"tool_selection": True, "tool_permission": False, "tool_args_right": 1, "tool_args_total": 2},
    ...         {"tool_selection": None, "tool_permission": None, "tool_args_right": None, "tool_args_total": None}]
    >>> {k: (e.value, e.n) for k, e in tool_rates(rows, "wilson").items()}
    {'tool_selection': (1.0, 1), 'tool_arguments': (0.5, 2), 'tool_permission': (0.0, 1)}
    """
    right = total = 0
    for r in rows:
        if r.get("tool_args_total") is not None:
            right += int(r["tool_args_right"])
            total += int(r["tool_args_total"])
    if total:
        low, high = proportion_ci(right, total, method)
        arguments = Estimate(value=right / total, n=total, ci_low=finite(low), ci_high=finite(high))
    else:
        arguments = Estimate(value=None, n=0)
    return {"tool_selection": rate([r.get("tool_selection") for r in rows], method), "tool_arguments": arguments,
            "tool_permission": rate([r.get("tool_permission") for r in rows], method)}


def tool_slices(rows: Sequence[Mapping], method: IntervalMethod, langs: Sequence[str] | None = None) -> ToolSlices:
    """:func:`tool_rates` by task, set and language (every value listed, even without a tool case).

    ``langs``: the languages to list (default: those of ``rows``, sorted).
    """
    def sliced(key: str, names: Sequence[str]) -> dict[str, dict[str, Estimate]]:
        per = {name: tool_rates([r for r in rows if r[key] == name], method) for name in names}
        return {metric: {name: per[name][metric] for name in names} for metric in TOOL_METRICS}

    return ToolSlices(by_task=sliced("task", TASKS), by_set=sliced("set", SETS),
                      by_lang=sliced("lang", row_langs(rows) if langs is None else langs))


def row_langs(rows: Iterable[Mapping]) -> list[str]:
    """The distinct ``lang`` values of ``rows``, sorted: the language slices a dataset has.

    >>> row_langs([{"lang": "es"}, {"lang": "de"}, {"lang": "es"}])
    ['de', 'es']
    """
    return sorted({r["lang"] for r in rows})


def side_metrics(rows: Sequence[Mapping], method: IntervalMethod, langs: Sequence[str] | None = None) -> SideMetrics:
    """Every estimate over ``rows`` (run-table rows as dicts); slices list every task and set, and every
    language of ``langs`` (default: the languages of ``rows``), even at n = 0."""
    langs = row_langs(rows) if langs is None else langs

    def col(name: str) -> list[Any]:
        return [r[name] for r in rows]

    def sliced(key: str, names: Iterable[str]) -> dict[str, Estimate]:
        return {name: rate([r["passed"] for r in rows if r[key] == name], method) for name in names}

    return SideMetrics(
        n=len(rows), pass_rate=rate(col("passed"), method), recall_at_k=mean_estimate(col("recall_at_k")),
        **{family: rate(col(family), method) for family in BINARY_FAMILIES},
        latency_p95_ms=p95(col("latency_ms")), **tool_rates(rows, method),
        by_task=sliced("task", TASKS), by_set=sliced("set", SETS), by_lang=sliced("lang", langs),
        tools=tool_slices(rows, method, langs))
