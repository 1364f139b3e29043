"""A version run several times per case (``repeats: k``): its runs read case by case.

The run table of such a version holds one row per case and run (column ``repeat``). Every figure
treats the **case** as the unit, never the run:

* :func:`case_rows` folds the runs of each case into one row, so the version's usual figures
  (:func:`assay.rag.metrics.side_metrics`) read each share of cases as **pass^k**: a flag
  (``passed``, the 0/1 families, ``tool_selection``, ``tool_permission``, ``tool_arguments``) is true
  when it is true on every run where it is defined, false when it is false on one, ``None`` when no
  run defines it. ``recall_at_k`` and ``latency_ms`` are the mean over the runs that define them;
  ``tool_args_right``/``tool_args_total`` are summed over the runs (so ``tool_arguments`` pools the
  arguments of every run, and its interval, which already treats arguments as independent, is
  narrower still). The other columns are the first run's.
* :func:`repeat_metrics` gives, per pass rate (:data:`REPEATED`), pass^k (``all_runs``), the mean
  over runs (``mean_runs``, cluster-robust interval, :func:`assay.stats.clustered.clustered_share`)
  and pass@k (``any_run``: a case passes when one run does), with the within-case share of the
  variance (:func:`assay.stats.clustered.within_share`: how much of it is the runs, not the cases).

pass^k is the conservative reading and the one the release gate uses unless the plan's metric
says ``across_repeats: mean_runs`` (or ``any_run``; see docs/plug-in.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from assay.artifacts.base import finite
from assay.artifacts.estimate import Estimate
from assay.artifacts.rag import RepeatFigures, RepeatMetrics
from assay.rag.metrics import BINARY_FAMILIES, rate
from assay.stats.clustered import clustered_share, within_share
from assay.stats.proportion import IntervalMethod

#: The pass rates read over runs: metric name -> run-table column.
REPEATED: dict[str, str] = {"pass_rate": "passed", **{f: f for f in BINARY_FAMILIES},
                            "tool_selection": "tool_selection", "tool_permission": "tool_permission"}
#: Flag columns folded as "true on every run that defines it".
FLAGS = ("passed", "correct", *BINARY_FAMILIES, "tool_selection", "tool_arguments", "tool_permission")
MEANS = ("recall_at_k", "latency_ms")
SUMS = ("tool_args_right", "tool_args_total")


def repeated(rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether run-table rows hold several runs per case (they carry ``repeat``); ``False`` for no row."""
    return bool(rows) and "repeat" in rows[0]


def by_case(rows: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """The rows grouped by case id, cases sorted by id, each case's runs in ``repeat`` order."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for row in sorted(rows, key=lambda r: (r["id"], r.get("repeat", 0))):
        groups.setdefault(row["id"], []).append(row)
    return list(groups.values())


def _all_defined(values: list[Any]) -> bool | None:
    defined = [bool(v) for v in values if v is not None]
    return None if not defined else all(defined)


def _mean_defined(values: list[Any]) -> float | None:
    defined = [float(v) for v in values if v is not None]
    return None if not defined else float(np.mean(defined))


def case_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per case from one row per case and run (see the module docstring), sorted by id.

    >>> runs = [{"id": "a", "repeat": r, "passed": p, "recall_at_k": None} for r, p in enumerate([True, False])]
    >>> [(row["passed"], row["recall_at_k"], "repeat" in row) for row in case_rows(runs)]
    [(False, None, False)]
    """
    out = []
    for runs in by_case(rows):
        row = {key: value for key, value in runs[0].items() if key != "repeat"}
        for key in FLAGS:
            if key in row:
                row[key] = _all_defined([r[key] for r in runs])
        for key in MEANS:
            if key in row:
                row[key] = _mean_defined([r[key] for r in runs])
        if all(key in row for key in SUMS):
            counted = [r for r in runs if r["tool_args_total"] is not None]
            for key in SUMS:
                row[key] = sum(int(r[key]) for r in counted) if counted else None
        out.append(row)
    return out


def counts(rows: Sequence[Mapping[str, Any]], column: str) -> tuple[np.ndarray, np.ndarray]:
    """Per case (sorted by id): how many runs have ``column`` true, and how many define it.

    >>> counts([{"id": "a", "repeat": 0, "x": True}, {"id": "a", "repeat": 1, "x": None}, {"id": "b", "repeat": 0, "x": False}], "x")
    (array([1, 0]), array([1, 1]))
    """
    groups = by_case(rows)
    successes = np.array([sum(bool(r[column]) for r in runs if r[column] is not None) for runs in groups], dtype=int)
    trials = np.array([sum(r[column] is not None for r in runs) for runs in groups], dtype=int)
    return successes, trials


def runs_estimate(successes: np.ndarray, trials: np.ndarray) -> Estimate:
    """The mean over runs from per-case counts as an :class:`Estimate` (n: the cases with a defined run),
    with the cluster-robust interval of :func:`assay.stats.clustered.clustered_share`; value ``None`` at n 0.

    >>> runs_estimate(np.array([3, 0]), np.array([3, 3])).value
    0.5
    """
    kept = trials > 0
    if not kept.any():
        return Estimate(value=None, n=0)
    share = clustered_share(successes[kept], trials[kept])
    return Estimate(value=finite(share.value), n=share.cases, ci_low=finite(share.low), ci_high=finite(share.high))


def figures(successes: np.ndarray, trials: np.ndarray, method: IntervalMethod) -> RepeatFigures:
    """pass^k, the mean over runs and pass@k of one pass rate from its per-case counts (cases with no
    defined run left out), and the within-case share of the variance."""
    kept = trials > 0
    s, m = successes[kept], trials[kept]
    if not s.size:
        empty = Estimate(value=None, n=0)
        return RepeatFigures(all_runs=empty, mean_runs=empty, any_run=empty, within_share=None)
    return RepeatFigures(all_runs=rate(s == m, method), mean_runs=runs_estimate(s, m), any_run=rate(s > 0, method),
                         within_share=finite(within_share(s, m)))


def repeat_metrics(rows: Sequence[Mapping[str, Any]], method: IntervalMethod, runs: int) -> RepeatMetrics:
    """:class:`RepeatMetrics` of one side's rows (one per case and run); ``runs`` is the version's ``repeats``."""
    return RepeatMetrics(runs=runs, by_metric={name: figures(*counts(rows, column), method)
                                               for name, column in REPEATED.items()})
