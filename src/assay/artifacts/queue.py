"""Metrics of the review-queue stages: one snapshot's judge-vs-people results, and the training export."""

from __future__ import annotations

from assay.artifacts.base import Metrics, Record


class ScoreGap(Metrics):
    """People's mean minus the judge's mean on one rubric criterion, with a 95% interval clustered by item
    (``items`` of them, ``n`` answers); flag 1 at |gap| >= 1."""

    gap: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    items: int
    flag: int


class ReviewMetrics(Metrics):
    """metrics/review/<name>.json (see :func:`assay.queue.results.review_metrics`).

    Agreement counts only items both the judge and the reviewer decided (ties on either side are
    excluded and counted); ``random_fill`` is 0 for a hard-case queue, whose agreement is biased.
    """

    n: int
    n_items: int
    n_pair_reviews: int
    n_decided: int
    agreed: int
    agreement: float | None
    agreement_ci_low: float | None
    agreement_ci_high: float | None
    kappa: float | None
    excluded_human_tie: int
    excluded_judge_tie: int
    excluded_judge_silent: int
    n_disagreements: int
    n_gaps_flagged: int
    random_fill: int
    synthetic: int
    score_gap: dict[str, ScoreGap]


class TrainingMetrics(Metrics):
    """metrics/training.json: how many SFT and DPO examples the reviews gave, and what was skipped
    (reviews with nothing to train on; synthetic snapshots left out because real ones are listed)."""

    n_sft: int
    n_dpo: int
    n_snapshots_exported: int
    n_synthetic_snapshots_left_out: int
    skipped_scores_only: int
    skipped_tie_without_correction: int


class ReviewIndex(Record):
    """metrics/review/.snapshots.json: how many snapshots params ``review.snapshots`` lists (a number,
    as everything under metrics/ is), written by the training stage whatever the list holds (0 too).

    It keeps the folder ``metrics/review`` (a dependency of the gate, which must run after every
    ``review@NAME`` stage) in existence while the list is still empty, as in a project whose queue part
    was added without example data. A snapshot's name cannot start with a dot, so no ``review@NAME``
    stage can write this file.
    """

    snapshots: int
