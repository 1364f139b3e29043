"""Models of the JSON reports the pipeline writes (see :mod:`assay.artifacts.outputs`)."""

from __future__ import annotations

from assay.artifacts.files import Row


class GateCheck(Row):
    """One check of the gate, as :class:`assay.release.checks.Check` holds it (value and threshold for display)."""

    name: str
    status: str
    detail: str
    value: int | float | None
    threshold: int | float | None


class GateReport(Row):
    """reports/gate.json: every check the gate made, in the order it made them."""

    checks: list[GateCheck]


class CompareReport(Row):
    """reports/compare.json: the holdout case ids behind metrics/compare.json's counts, each list sorted
    (see :func:`assay.rag.compare.compare_runs`)."""

    better: list[str]
    worse: list[str]
    unchanged: list[str]
    still_failing: list[str]
    #: per metric, the cases that passed in the baseline and fail in the candidate
    regressed: dict[str, list[str]]
