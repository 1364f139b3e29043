"""The release rule in numbers: how each blocking metric is decided, at which level, and how often it errs.

A blocking metric is decided by one of three readings (:class:`MetricDecision`):

- ``bound``: a share of holdout cases (``k`` of ``n``: the 0/1 families, ``tool_selection``,
  ``tool_permission``, ``pass_rate``) passes when its one-sided Clopper-Pearson bound at the look's
  level clears the threshold (:func:`assay.stats.decision.one_sided_bound`), so a candidate whose true
  rate misses the threshold passes with chance at most that level.
- ``interval``: a metric that is not a share of cases (``recall_at_k``, a mean; ``latency_p95_ms``, a
  quantile; ``tool_arguments``, a share of arguments clustered in cases) passes when the matching end
  of its own 95% interval (equal-tailed: a one-sided bound at 0.025) clears it. The gate holds only
  that interval, so it cannot move it to the look's level: when the look's level is below 0.025 the
  decision says it is outside the stated error rate.
- ``estimate``: the plan asked for the point estimate (``decide: estimate``); its false-pass rate at
  the threshold is printed beside it.

Since a release needs every blocking check, testing each at level ``a`` keeps the chance of passing a
candidate that misses any threshold at or below ``a`` (an intersection-union test: to pass wrongly,
the one metric that misses must pass its own test). :func:`pass_chances` gives, per ``bound`` or
``estimate`` metric, the exact binomial chance of passing at the threshold and 0.05 either side of it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from assay.artifacts.estimate import Estimate
from assay.data.plan import Metric
from assay.stats.decision import least_n, look_alpha, one_sided_bound, pass_probability

Reading = Literal["bound", "interval", "estimate"]

#: the one-sided level of a stored equal-tailed 95% interval's end
INTERVAL_LEVEL = 0.025
#: how far either side of the threshold the pass-chance table looks
STEP = 0.05


def counted(name: str) -> bool:
    """Whether the metric ``name`` is a share of holdout *cases* (``k`` of ``n`` recoverable from value and n)."""
    from assay.rag.metrics import BINARY_FAMILIES

    return name in (*BINARY_FAMILIES, "pass_rate", "tool_selection", "tool_permission")


class Look(BaseModel):
    """Where the current candidate stands on this holdout's error budget.

    ``index``: this candidate's look (1 for the first distinct candidate on the dataset); ``alpha``:
    ``gate.alpha``, the budget; ``level``: what this look runs at, ``alpha / 2 ** index``;
    ``spent``: what the looks so far spent, this one included.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    index: int
    alpha: float
    level: float
    spent: float

    @classmethod
    def at(cls, alpha: float, index: int) -> Look:
        """The ``index``-th look under budget ``alpha``.

        >>> Look.at(0.05, 2).level
        0.0125
        """
        from assay.stats.decision import alpha_spent

        return cls(index=index, alpha=alpha, level=look_alpha(alpha, index), spent=alpha_spent(alpha, index))


class MetricDecision(BaseModel):
    """One blocking metric's reading: ``value`` (the bound, interval end or estimate) against ``threshold``.

    ``k`` is set for counted shares only; ``level`` is the one-sided level of ``value`` (``None`` for the
    estimate); ``least_n`` the fewest cases at which the bound rule could pass at all (``None`` when none can).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    reading: Reading
    direction: Literal["higher", "lower"]
    threshold: float
    n: int
    k: int | None
    estimate: float
    value: float | None
    level: float | None
    passed: bool
    least_n: int | None = None


def decide(m: Metric, estimate: Estimate, level: float, share: bool | None = None) -> MetricDecision:
    """Decide a blocking metric (with a threshold, a defined value and n > 0) at one-sided ``level``.

    A counted share reads its Clopper-Pearson bound (or its estimate with ``decide: estimate``); any other
    metric its interval's end, or its estimate. An interval end that is ``None`` fails (no interval).
    ``share``: whether ``estimate`` is a share of cases (``None``: as :func:`counted` says for the name;
    ``False`` for a mean over repeated runs, which its own interval decides).
    """
    if m.threshold is None or estimate.value is None:
        raise ValueError(f"decide: {m.name} needs a threshold and a defined value (the gate checks both first)")
    higher = m.direction == "higher"
    k = round(estimate.value * estimate.n) if (counted(m.name) if share is None else share) else None
    if m.decide == "estimate":
        reading: Reading = "estimate"
        value: float | None = estimate.value
        at: float | None = None
    elif k is not None:
        reading, value, at = "bound", one_sided_bound(k, estimate.n, level, m.direction), level
    else:
        reading, value, at = "interval", estimate.ci_low if higher else estimate.ci_high, INTERVAL_LEVEL
    passed = value is not None and (value >= m.threshold if higher else value <= m.threshold)
    least = least_n(m.threshold, level, m.direction) if reading == "bound" else None
    return MetricDecision(name=m.name, reading=reading, direction=m.direction, threshold=m.threshold, n=estimate.n, k=k,
                          estimate=estimate.value, value=value, level=at, passed=passed, least_n=least)


def decision_words(d: MetricDecision) -> str:
    """The check's detail: what was compared, at which level, and why it cannot pass when it never could."""
    from assay.core.fmt import exact

    sign = ">=" if d.direction == "higher" else "<="
    verb = "meets" if d.passed else "misses"
    side = "lower" if d.direction == "higher" else "upper"
    count = f"{d.k} of {d.n}" if d.k is not None else f"n {d.n}"
    if d.reading == "estimate":
        return f"estimate {exact(d.estimate)} {verb} {sign} {exact(d.threshold)} ({count}; point-estimate rule, plan decide: estimate)"
    if d.value is None:
        return f"no 95% interval to read its {side} end from ({count}): run dvc repro"
    if d.reading == "interval":
        return (f"{side} end {exact(d.value)} of its 95% interval (one-sided level {INTERVAL_LEVEL}) {verb} {sign} "
                f"{exact(d.threshold)} (estimate {exact(d.estimate)}, {count})")
    words = (f"{side} bound {exact(d.value)} (one-sided Clopper-Pearson at level {d.level:g}) {verb} {sign} "
             f"{exact(d.threshold)} (estimate {exact(d.estimate)}, {count})")
    if not d.passed and (d.least_n is None or d.least_n > d.n):
        need = "no holdout size can show it" if d.least_n is None else f"it needs at least {d.least_n} cases"
        words += f"; even {'every case passing' if d.direction == 'higher' else 'no case failing'} could not pass: {need}"
    return words


class PassChances(BaseModel):
    """The exact chance the rule in force passes a candidate whose true rate is 0.05 short of the threshold
    (``short``: below it where higher is better), at it, and 0.05 clear of it (``clear``), at the metric's
    n and level (``None`` where that rate is outside [0, 1]).

    For the estimate rule, ``at`` is its false-pass rate: the limit of its pass chance as the true rate
    rises to the threshold from the failing side.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    reading: Reading
    n: int
    level: float | None
    short: float | None
    at: float
    clear: float | None


def pass_chances(d: MetricDecision, level: float) -> PassChances | None:
    """:class:`PassChances` for a counted share decided by ``bound`` or ``estimate`` at ``level``; ``None``
    for a metric read from its interval (the chance would need the distribution behind it)."""
    if d.k is None or d.reading == "interval":
        return None
    rule: Literal["bound", "estimate"] = "estimate" if d.reading == "estimate" else "bound"
    worse, better = (-STEP, STEP) if d.direction == "higher" else (STEP, -STEP)

    def chance(shift: float) -> float | None:
        p = round(d.threshold + shift, 12)
        return pass_probability(d.n, p, d.threshold, level, d.direction, rule) if 0 <= p <= 1 else None

    at = pass_probability(d.n, d.threshold, d.threshold, level, d.direction, rule)
    return PassChances(name=d.name, reading=d.reading, n=d.n, level=level if rule == "bound" else None,
                       short=chance(worse), at=at, clear=chance(better))
