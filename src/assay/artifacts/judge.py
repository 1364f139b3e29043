"""Metrics of the agreement and judge stages: human agreement, bias probes, calibration, sensitivity."""

from __future__ import annotations

from assay.artifacts.base import Metrics


class AgreementMetrics(Metrics):
    """metrics/agreement.json: two annotators' agreement (see :func:`assay.stats.agreement.agreement_report`)."""

    n: int
    observed: float | None
    expected: float | None
    kappa: float | None
    kappa_se: float | None
    kappa_ci_low: float | None
    kappa_ci_high: float | None
    level: float
    disagreements: int
    confusion: dict[str, dict[str, int]]
    labels: dict[str, dict[str, int]]


class JudgeRunMetrics(Metrics):
    """metrics/judge.json: what the ``judge`` stage asked and how it went (see :func:`assay.judge.replies.run_counts`).

    ``items``: verdicts stored (every pair, order and prompt version asked); ``requests``: distinct
    requests the client built; ``failures``: requests with no usable completion after the retries
    (both 0 for the fake judge, which asks no server). Then one count per verdict status over the
    stored items (``ok``, ``invalid``, ``refused``, ``failed``). The file is committed, so it holds
    only what the inputs and the replies determine: the same bytes whether the replies came from
    the server or from the response cache. Cache hits and HTTP attempts are in
    :class:`JudgeClientMetrics`, which is not committed.
    """

    items: int
    requests: int
    failures: int
    ok: int
    invalid: int
    refused: int
    failed: int


class JudgeClientMetrics(Metrics):
    """.assay/judge_client.json (git-ignored, not a DVC output): how the last ``judge`` run got its replies.

    ``requests``: distinct requests; ``cache_hits`` of them answered by the response cache;
    ``http_attempts`` sent over HTTP, retries included; ``failures``: requests with no usable
    completion. These depend on whose cache ran the stage, so they stay out of committed files.
    """

    requests: int
    cache_hits: int
    http_attempts: int
    failures: int


class BiasMetrics(Metrics):
    """metrics/bias.json: the four probe shares and the counts behind them (see :mod:`assay.judge.probe`)."""

    first_pick: float | None
    order_flip: float | None
    longer_wins: float | None
    self_wins: float | None
    n_pairs: int
    n_decisive: int
    n_verbose_tie: int
    n_self: int


class SliceAgreement(Metrics):
    """Judge agreement on one slice (kind or language)."""

    agreement: float | None
    agreement_ci_low: float | None
    agreement_ci_high: float | None
    correct: int
    n: int


class CalibrationMetrics(Metrics):
    """metrics/calibration.json: the judge against the final human labels (see :mod:`assay.judge.calibration`).

    A pair whose verdict was invalid, refused or failed is a disagreement (``invalid_pairs``); an
    order flip is a judge tie and is counted in ``flip_share``; ``flip_pattern`` says which answer each
    order's verdict picked on the flipped pairs (see :func:`assay.judge.calibration.flip_pattern`).
    """

    n: int
    agreement: float | None
    agreement_ci_low: float | None
    agreement_ci_high: float | None
    level: float
    kappa: float | None
    kappa_ci_low: float | None
    kappa_ci_high: float | None
    confusion: dict[str, dict[str, int]]
    by_kind: dict[str, SliceAgreement]
    by_lang: dict[str, SliceAgreement]
    errors: dict[str, int]
    order_disagreements: int
    flip_pattern: dict[str, int]
    flip_share: float | None
    invalid_pairs: int
    invalid_share: float | None
    invalid: int
    refused: int
    failed: int
    usable: int


class SensitivityMetrics(Metrics):
    """metrics/sensitivity.json: one judge's labels under two prompt wordings (see :mod:`assay.judge.sensitivity`)."""

    n: int
    n_valid: int
    agreement: float | None
    kappa: float | None
    confusion: dict[str, dict[str, int]]
    statuses: dict[str, dict[str, int]]
    order_disagreements: dict[str, int]
    tie_agreements: int
