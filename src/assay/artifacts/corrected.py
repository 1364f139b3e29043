"""Metrics of the ``ppi`` stage: the candidate against the baseline, judge-only, human-only and judge-corrected."""

from __future__ import annotations

from typing import Annotated

from assay.artifacts.base import Metrics
from assay.artifacts.estimate import Estimate
from assay.artifacts.gateable import Gateable

#: Plan metric names that gate on a corrected figure, by the figure's field in :class:`CorrectedMetrics`: the
#: gate compares the PPI interval's lower bound (upper bound for ``direction: lower``) overall with the threshold.
GATED: dict[str, str] = {"ppi_win_rate": "win_rate", "ppi_score": "score"}
#: Names of the judge-only figures: a plan that gates on one is refused (the judge's own estimate is biased
#: by its errors, and its interval does not know it).
JUDGE_ONLY: tuple[str, ...] = ("judge_win_rate", "judge_score", "judge_only_win_rate", "judge_only_score")


class CorrectedRow(Metrics):
    """One figure on one slice: three estimates of the same mean, each with its 95% (``level``) interval.

    ``judge``: the mean of the judge's values over every judged case of the slice (``n`` = N judged;
    ``value`` None when the judge gives no value for this figure). ``human``: the mean of the
    reviewers' values on the labelled cases (``n`` labelled; the interval of
    :func:`assay.stats.ppi.ppi_mean_ci` with ``lam`` 0, see :mod:`assay.queue.corrected`). ``ppi``: the PPI++ estimate
    (:func:`assay.stats.ppi.ppi_mean_ci`), ``n`` labelled. ``too_few`` is 1 when the slice has fewer
    labelled cases than ``min_labelled``: then ``human`` and ``ppi`` have no value. ``width_ratio``
    is the PPI interval's width over the human-only one's (below 1: the judge narrowed it).
    """

    n_labelled: int
    n_judged: int
    too_few: int
    judge: Estimate
    human: Estimate
    ppi: Estimate
    lam: float | None
    width_ratio: float | None


class CorrectedFigure(Metrics):
    """One figure overall and by task, set and language (slice names are the cases' values)."""

    overall: CorrectedRow
    by_task: dict[str, CorrectedRow]
    by_set: dict[str, CorrectedRow]
    by_lang: dict[str, CorrectedRow]


class CorrectedMetrics(Metrics):
    """metrics/ppi.json: the candidate's win rate against the baseline (candidate 1, baseline 0, tie 0.5)
    and its rubric score rescaled to [0, 1] (``None`` when no review scored it).

    ``cases``: cases both versions answered; ``judge_failed``: of those, cases with a reply that was not
    ok in either order (dropped, never a tie); ``labelled``: cases with a human value in the review
    snapshots; ``labelled_unjudged``: labelled cases dropped for a failed judge reply; ``labelled_unmatched``:
    reviews of other versions' answers and reviewed cases whose answers are no longer the runs' (left out);
    ``labelled_changed``: of those, the reviewed cases whose answers changed since (or that are no longer
    compared): their absence can leave the remaining labels a non-uniform sample, and the report says so;
    ``synthetic_labels``: 1 when a review snapshot read is marked ``synthetic`` (written by a script, not by
    people, like the demo's), so every page that shows these figures says so.
    """

    level: float
    min_labelled: int
    cases: int
    judge_failed: int
    labelled: int
    labelled_unjudged: int
    labelled_unmatched: int
    labelled_changed: int = 0
    synthetic_labels: int = 0
    win_rate: Annotated[CorrectedFigure, Gateable(None)]
    score: Annotated[CorrectedFigure | None, Gateable(None)]
