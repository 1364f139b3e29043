"""Row models of the JSONL files the pipeline writes (see :mod:`assay.artifacts.outputs`)."""

from __future__ import annotations

from assay.artifacts.files import Row


class DisagreementRow(Row):
    """reports/disagreements.jsonl: one pair the two annotators labelled differently (sorted by id)."""

    id: str
    ann1: str
    ann2: str
    kind: str
    lang: str


class DimensionRow(Row):
    """reports/judge_dimensions.jsonl: per pair, the final human label, the judge's label and the
    rule-based verdict on each dimension (see :mod:`assay.judge.dimensions`)."""

    id: str
    kind: str
    lang: str
    final: str
    judge: str | None
    correctness: str
    evidence: str
    concision: str


class LedgerRow(Row):
    """data/holdout_ledger.jsonl: one look at the holdout (see :mod:`assay.release.ledger`)."""

    candidate: str
    dataset: str
    verdict: str

