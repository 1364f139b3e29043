"""An estimate with its sample size and interval: the shape every reported rate takes."""

from __future__ import annotations

from assay.artifacts.base import Metrics


class Estimate(Metrics):
    """``value`` over ``n`` units with a 95% interval; ``None`` where undefined (n 0, no interval)."""

    value: float | None
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
