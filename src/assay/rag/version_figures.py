"""A version's :class:`~assay.artifacts.rag.RagMetrics` from its run table, each case on its side of
the split: one row per case (:mod:`assay.rag.metrics`), or several runs per case read case by case
(:mod:`assay.rag.repeats`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.artifacts.rag import RagMetrics
from assay.data.split import SIDES
from assay.rag.metrics import row_langs, side_metrics
from assay.rag.repeats import case_rows, repeat_metrics, repeated
from assay.stats.proportion import IntervalMethod


def version_metrics(rows: Sequence[Mapping], sides: Mapping[str, str], method: IntervalMethod) -> RagMetrics:
    """The version's :class:`RagMetrics`: every case's row goes to its side of the split.

    Rows of a version run several times per case (they carry ``repeat``) are read case by case
    (:mod:`assay.rag.repeats`): each share is pass^k, ``n`` counts cases, and each side's
    ``repeats`` holds pass^k, the mean over runs and pass@k.

    Raises:
        KeyError: a case id absent from ``sides`` (the split and the run were made on different cases).
    """
    by_side = {side: [r for r in rows if sides[r["id"]] == side] for side in SIDES}
    langs = row_langs(rows)  # both sides list every language of the run, even one a side lacks
    if not repeated(rows):
        return RagMetrics(n=len(rows), **{side: side_metrics(by_side[side], method, langs) for side in SIDES})
    runs = 1 + max(int(r["repeat"]) for r in rows)
    out = {side: side_metrics(case_rows(by_side[side]), method, langs).model_copy(
        update={"repeats": repeat_metrics(by_side[side], method, runs)}) for side in SIDES}
    return RagMetrics(n=len({r["id"] for r in rows}), **out)
