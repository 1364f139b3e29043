"""What a metric a plan may gate on declares about itself, next to the field that holds it.

A metrics model marks each gateable field with :class:`Gateable` (``Annotated[Estimate,
Gateable("correctness")]``): the plan family it belongs to and the values it can take. The registry
(:data:`assay.artifacts.registry.PLAN_METRICS`) collects the marks together with the artifact, and so
the stage, that writes each field; the plan's checks (:mod:`assay.data.plan`) read nothing else, so
"which metrics exist, in which range, computed by which stage" has one home.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pydantic import BaseModel


@dataclass(frozen=True)
class Gateable:
    """Field metadata: the metric's plan ``family`` (``None``: any family, for figures that measure
    the whole answer, such as the judge-corrected win rate) and its range [``low``, ``high``] (a share
    by default; ``high`` may be ``inf``)."""

    family: str | None
    low: float = 0.0
    high: float = 1.0

    def span(self) -> str:
        """The range in words: ``[0, 1]`` or ``at least 0``.

        >>> Gateable("latency", 0.0, math.inf).span(), Gateable("format").span()
        ('at least 0', '[0, 1]')
        """
        return f"[{self.low:g}, {self.high:g}]" if math.isfinite(self.high) else f"at least {self.low:g}"

    def holds(self, value: float) -> bool:
        """Whether ``value`` lies in the range (``nan`` never does).

        >>> Gateable("format").holds(1.2), Gateable("format").holds(float("nan")), Gateable("format").holds(1)
        (False, False, True)
        """
        return self.low <= value <= self.high


def gateable_fields(model: type[BaseModel]) -> dict[str, Gateable]:
    """``{field name: its Gateable mark}`` for the fields of ``model`` that carry one, in field order."""
    return {name: mark for name, field in model.model_fields.items()
            for mark in field.metadata if isinstance(mark, Gateable)}
