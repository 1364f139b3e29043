"""The seven pre-registered thresholds of the relevance study, read from their one file.

``data/relevance/thresholds.yaml`` maps exactly the seed's seven keys to ``{direction, value}``:
``recall_at_10``, ``ndcg_at_10``, ``mrr_at_10``, ``citation_provenance_accuracy`` and
``abstention_quality`` (``>=``), ``stale_answer_rate_max`` and ``p95_latency_ms`` (``<=``). Each key
is measured by one figure of a mode's scores (:data:`FIGURES`). A missing or extra key, a direction
other than the key's own, or a value outside the figure's range is refused with the fix: the
seed requires exactly these keys, and a threshold any value meets guards nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from assay.core.errors import InputError, Problem
from assay.core.io import read_yaml

DEFAULT_PATH = "data/relevance/thresholds.yaml"

#: threshold key -> (the score figure that measures it, the only direction the seed allows)
FIGURES: dict[str, tuple[str, str]] = {
    "recall_at_10": ("R@10", ">="),
    "ndcg_at_10": ("nDCG@10", ">="),
    "mrr_at_10": ("RR@10", ">="),
    "citation_provenance_accuracy": ("citation_provenance_accuracy", ">="),
    "stale_answer_rate_max": ("stale_answer_rate", "<="),
    "abstention_quality": ("abstention_quality", ">="),
    "p95_latency_ms": ("p95_latency_ms", "<="),
}


@dataclass(frozen=True)
class Threshold:
    """One pre-registered threshold: ``figure`` must be ``direction`` ``value``."""

    key: str
    figure: str
    direction: str
    value: float

    def met(self, x: float | None) -> bool:
        """Whether ``x`` meets the threshold; an undefined ``x`` (None or nan) never does."""
        if x is None or x != x:
            return False
        return x >= self.value if self.direction == ">=" else x <= self.value

    def __str__(self) -> str:
        return f"{self.key} {self.direction} {self.value:g}"


def load_thresholds(path: str | Path = DEFAULT_PATH) -> dict[str, Threshold]:
    """The seven thresholds of ``path`` in the seed's order.

    Raises:
        InputError: the file is missing or not a mapping; a key is missing or unknown; a direction is
            not the key's; a value is not a finite number in range (a rate in [0, 1], latency >= 0).
    """
    name = str(path)
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError([Problem(name, None, None, "expected a mapping of the seven threshold keys",
                                  f"write {', '.join(FIGURES)}, each as {{direction, value}}")])
    problems = [Problem(name, None, key, "unknown threshold key", f"use exactly {', '.join(FIGURES)}")
                for key in data if key not in FIGURES]
    out = {}
    for key, (figure, direction) in FIGURES.items():
        entry = data.get(key)
        if not isinstance(entry, dict) or set(entry) != {"direction", "value"}:
            problems.append(Problem(name, None, key, "missing, or not {direction, value}",
                                    f"write {key}: {{direction: \"{direction}\", value: ...}}"))
            continue
        value = entry["value"]
        if entry["direction"] != direction:
            problems.append(Problem(name, None, f"{key}.direction", f"{entry['direction']!r} is not {direction!r}",
                                    f"the seed fixes {key} as a result {direction} the threshold"))
        high = math.inf if key == "p95_latency_ms" else 1.0
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= high:
            problems.append(Problem(name, None, f"{key}.value", f"{value!r} is not a number in [0, {high:g}]",
                                    "give the pre-registered threshold as a number"))
            continue
        out[key] = Threshold(key, figure, direction, float(value))
    if problems:
        raise InputError(problems)
    return out
