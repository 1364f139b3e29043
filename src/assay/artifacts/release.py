"""Metrics of the gate stage."""

from __future__ import annotations

from assay.artifacts.base import Metrics


class GateMetrics(Metrics):
    """metrics/gate.json: 1 when the candidate may ship; counts by status; 1/0 per check (1 = pass)."""

    passed: int
    failed: int
    missing: int
    stale: int
    warnings: int
    holdout_candidates: int
    checks: dict[str, int]
