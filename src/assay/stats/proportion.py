"""Confidence intervals for a proportion with known coverage (Wilson score, Clopper-Pearson).

n == 0 gives ``(nan, nan)``.
"""

from __future__ import annotations

import math
from typing import Literal

IntervalMethod = Literal["wilson", "clopper-pearson"]
_STATSMODELS = {"wilson": "wilson", "clopper-pearson": "beta"}


def proportion_ci(successes: int, n: int, method: IntervalMethod = "wilson", level: float = 0.95) -> tuple[float, float]:
    """Interval for ``successes / n`` by statsmodels' ``proportion_confint``.

    >>> [round(x, 3) for x in proportion_ci(20, 20)]
    [0.839, 1.0]
    """
    if n == 0:
        return (math.nan, math.nan)
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(successes, n, alpha=1 - level, method=_STATSMODELS[method])
    return float(low), float(high)
