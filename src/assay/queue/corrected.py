"""Judge-corrected estimates of the candidate against the baseline: judge-only, human-only and PPI, by slice.

For each figure (the candidate's win rate, and its rubric score where the reviews hold one) and
each slice (overall, every task, set and language of the cases), three estimates of the same mean:

- **judge only**: the mean of the judge's values over every judged case of the slice, with the
  Student t interval. Biased by exactly the errors calibration measured; its interval does not
  know that, so the plan may never gate on it (:data:`assay.artifacts.corrected.JUDGE_ONLY`).
- **human only**: the mean of the reviewers' values on the labelled cases. Unbiased, but wide on
  few labels.
- **PPI**: :func:`assay.stats.ppi.ppi_mean_ci`'s estimate (PPI++ with the power-tuned ``lam``; equal
  to ppi-python's): the judge's mean over the cases nobody reviewed, corrected by its average error
  on the reviewed ones. Unbiased when the reviewed cases are a uniform random sample (a random-fill
  queue; :mod:`assay.queue.labelled` refuses a hard fill), and narrower than the human-only
  interval when the judge tracks the reviewers.

The human-only and PPI intervals are both ``ppi_mean_ci``'s default (``interval="bounded"``, with
``lam = 0`` and the tuned ``lam``): the Student t interval centred on the estimate, its rectifier
variance taken over the labels plus six pseudo-labels (three human 0s and three human 1s, each
predicted by the judge's labelled mean), clipped to [0, 1]. The pseudo-labels keep a width near the
bounds (a candidate that wins 98% of cases, 40 labels that all say it won: the plain t interval is
the point 1, and covers about half the time); they do not move the centre, so a good judge's
interval is not pulled towards 1/2 (the former "add two and two" interval did, and covered 0.908
for judges agreeing 0.9 or better). Coverage and the worst cells: :mod:`assay.stats.ppi`.

The rubric score has no judge value (a pairwise judge gives no score): its judge-only estimate has
no value, and its PPI estimate uses the judge's win value as the prediction (any prediction keeps
PPI unbiased; ``lam`` is tuned to how well it tracks the score, near 0 when not at all).

A slice with fewer labelled cases than ``min_labelled`` is "too few": its human-only and PPI
estimates have no value. A slice whose every judged case was labelled has no unlabelled case to
correct, so its PPI estimate is the human-only one. A case whose judge reply failed is dropped from
every estimate and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import ConfigDict, Field

from assay.artifacts.corrected import CorrectedFigure, CorrectedMetrics, CorrectedRow
from assay.artifacts.estimate import Estimate
from assay.core.confinement import PlainName
from assay.core.records import InputModel
from assay.judge.matchup import Matchup
from assay.queue.labelled import LabelledCase


class CorrectedParams(InputModel):
    """params.yaml section ``ppi``: the review snapshots whose random sample of compared cases labels
    the judge (``data/reviews/NAME.jsonl``, each a random fill of ``--from compare``), the least
    labelled cases a slice needs before its estimates are shown, and the interval level."""

    model_config = ConfigDict(extra="forbid")
    reviews: list[PlainName] = []
    min_labelled: int = Field(10, ge=2)
    level: float = Field(0.95, gt=0, lt=1)


@dataclass(frozen=True)
class Case:
    """One compared case's values: the judge's win (None when its reply failed), the human ones (None unlabelled)."""

    id: str
    slices: dict[str, str]
    judge: float | None
    human_win: float | None
    human_score: float | None


def join(items: Sequence[Matchup], judged: Sequence[float | None], labelled: Sequence[LabelledCase]) -> tuple[list[Case], int]:
    """The judge's and the reviewers' values per compared case, and how many labelled cases were left out.

    A labelled case counts only when its two answers are the runs' answers now: a review of an answer
    that has since changed (or of a case no longer compared) labels nothing, and is counted.
    """
    human = {(c.id, c.a, c.b): c for c in labelled}
    out = []
    used = 0
    for m, j in zip(items, judged, strict=True):
        h = human.get((m.id, m.a, m.b))
        used += h is not None
        out.append(Case(m.id, {"task": m.task, "set": m.set, "lang": m.lang}, j,
                        h.win if h else None, h.score if h else None))
    return out, len(labelled) - used


def _estimate(value: float | None, n: int, low: float | None = None, high: float | None = None) -> Estimate:
    from assay.artifacts.base import finite

    return Estimate(value=finite(value), n=n, ci_low=finite(low), ci_high=finite(high))


def row(cases: Sequence[Case], human: Callable[[Case], float | None], judge_gives_value: bool, min_labelled: int,
        level: float) -> CorrectedRow:
    """The three estimates of one figure on ``cases`` (one slice); see the module docstring."""
    from assay.stats.mean import mean_ci
    from assay.stats.ppi import ppi_mean_ci

    values: list[float] = []  # the judge's value on every judged case
    y: list[float] = []  # the human value on the labelled ones ...
    yhat: list[float] = []  # ... the judge's on the same cases
    unl: list[float] = []  # the judge's on the judged cases nobody labelled
    for c in cases:
        if c.judge is None:
            continue
        values.append(c.judge)
        h = human(c)
        if h is None:
            unl.append(c.judge)
        else:
            y.append(h)
            yhat.append(c.judge)
    judge = _estimate(None, len(values))
    if judge_gives_value and values:
        low, high = mean_ci(values, level=level)
        judge = _estimate(sum(values) / len(values), len(values), low, high)
    none = _estimate(None, len(y))
    if len(y) < min_labelled:
        return CorrectedRow(n_labelled=len(y), n_judged=len(values), too_few=1, judge=judge, human=none, ppi=none,
                            lam=None, width_ratio=None)
    only = ppi_mean_ci(y, yhat, unl or [0.0], level=level, lam=0.0)  # lam 0: the judge's values do not enter
    human_est = _estimate(only.estimate, len(y), only.low, only.high)
    if not unl:
        return CorrectedRow(n_labelled=len(y), n_judged=len(values), too_few=0, judge=judge, human=human_est,
                            ppi=human_est, lam=0.0, width_ratio=1.0)
    p = ppi_mean_ci(y, yhat, unl, level=level)
    ratio = p.width / only.width if only.width > 0 else None
    return CorrectedRow(n_labelled=len(y), n_judged=len(values), too_few=0, judge=judge, human=human_est,
                        ppi=_estimate(p.estimate, len(y), p.low, p.high), lam=p.lam, width_ratio=ratio)


def figure(cases: Sequence[Case], human: Callable[[Case], float | None], judge_gives_value: bool,
           min_labelled: int, level: float) -> CorrectedFigure:
    """One figure overall and by every task, set and language present in ``cases`` (sorted)."""
    def by(key: str) -> dict[str, CorrectedRow]:
        names = sorted({c.slices[key] for c in cases})
        return {name: row([c for c in cases if c.slices[key] == name], human, judge_gives_value, min_labelled, level)
                for name in names}

    return CorrectedFigure(overall=row(cases, human, judge_gives_value, min_labelled, level),
                           by_task=by("task"), by_set=by("set"), by_lang=by("lang"))


def corrected_metrics(cases: Sequence[Case], params: CorrectedParams, left_out: int = 0,
                      synthetic: bool = False, changed: int = 0) -> CorrectedMetrics:
    """metrics/ppi.json for the joined cases (:func:`join`); the score figure only when some review scored.
    ``left_out``: reviews or reviewed cases that label nothing here (other versions, changed answers);
    ``changed``: of those, the reviewed cases whose answers changed since (:func:`join`'s count);
    ``synthetic``: some review snapshot read is marked synthetic (scripted, not people's labels)."""
    has_score = any(c.human_score is not None for c in cases)
    labelled = [c for c in cases if c.human_win is not None or c.human_score is not None]
    return CorrectedMetrics(
        level=params.level, min_labelled=params.min_labelled, cases=len(cases),
        judge_failed=sum(c.judge is None for c in cases), labelled=len(labelled),
        labelled_unjudged=sum(c.judge is None for c in labelled), labelled_unmatched=left_out,
        labelled_changed=changed, synthetic_labels=int(synthetic),
        win_rate=figure(cases, lambda c: c.human_win, True, params.min_labelled, params.level),
        score=figure(cases, lambda c: c.human_score, False, params.min_labelled, params.level) if has_score else None)
