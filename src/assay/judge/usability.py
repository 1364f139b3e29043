"""The usability rule: when may a judge's verdicts stand in for people's labels?

A calibration result (:class:`assay.judge.calibration_record.CalibrationResult`) is judged against a :class:`UsabilityRule`.
The judge is rejected, with every reason named, in this order:

0. fewer than ``min_pairs`` pairs with a human decision (default 30, the calibration size of the
   evaluation-design notes): the reason starts "too few pairs" and comes first, since no interval
   from a handful of pairs is evidence, however well they agree (2 of 2 in agreement give a Wilson
   interval of 0.34 to 1);
1. replies that gave no verdict (unparseable, refused or failed) on more than ``max_invalid_share``
   of the pairs: the cause is named first, since nothing else can be read until it is fixed;
2. answers that changed verdict when shown in the other order on more than ``max_flip_share`` of the
   pairs (a flip is scored as a tie, which hides position bias behind "not sure");
3. kappa below ``min_kappa``: with ``usability: conservative`` (the default) the *lower bound* of
   kappa's 95% interval must reach ``min_kappa``, so a small label set cannot pass on a lucky point
   estimate; with ``point`` the estimate itself is compared;
4. any kind slice or language slice whose agreement is below ``min_slice_agreement``. A slice
   with fewer than ``min_slice_n`` pairs is too small to judge: it is listed as such, not a veto.

Passing says only that the judge agrees with these labels on these kinds of pairs and languages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal, Protocol

from pydantic import ConfigDict, Field

from assay.stats.proportion import IntervalMethod
from assay.core.records import InputModel

NO_PAIRS = "no pairs to calibrate on"
TOO_FEW = "too few pairs"
KAPPA_UNDEFINED = "kappa undefined (one label everywhere on both sides)"


class SliceNumbers(Protocol):
    """What the rule reads of one slice: ``correct`` of ``n`` pairs agreed."""

    @property
    def correct(self) -> int: ...

    @property
    def n(self) -> int: ...


class UsabilityNumbers(Protocol):
    """What the rule reads of a calibration: a :class:`~assay.judge.calibration_record.CalibrationResult`,
    or the :class:`~assay.artifacts.judge.CalibrationMetrics` read back from metrics/calibration.json
    (where an undefined number is None rather than nan)."""

    @property
    def n(self) -> int: ...

    @property
    def invalid_pairs(self) -> int: ...

    @property
    def invalid_share(self) -> float | None: ...

    @property
    def invalid(self) -> int: ...

    @property
    def refused(self) -> int: ...

    @property
    def failed(self) -> int: ...

    @property
    def order_disagreements(self) -> int: ...

    @property
    def flip_share(self) -> float | None: ...

    @property
    def kappa(self) -> float | None: ...

    @property
    def kappa_ci_low(self) -> float | None: ...

    @property
    def kappa_ci_high(self) -> float | None: ...

    @property
    def by_kind(self) -> Mapping[str, SliceNumbers]: ...

    @property
    def by_lang(self) -> Mapping[str, SliceNumbers]: ...


def _slice_groups(result: UsabilityNumbers) -> tuple[tuple[str, Mapping[str, SliceNumbers]], ...]:
    return (("kind", result.by_kind), ("lang", result.by_lang))

class UsabilityRule(InputModel):
    """Thresholds a calibration must meet; the fields are keys of the ``judge`` params section.

    ``interval`` names the method of every agreement interval in the record
    (:func:`assay.stats.proportion.proportion_ci`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    min_pairs: int = Field(default=30, ge=1)
    min_kappa: float = Field(default=0.6, ge=-1, le=1)
    min_slice_agreement: float = Field(default=0.6, ge=0, le=1)
    min_slice_n: int = Field(default=5, ge=1)
    max_invalid_share: float = Field(default=0.05, ge=0, le=1)
    max_flip_share: float = Field(default=0.2, ge=0, le=1)
    usability: Literal["conservative", "point"] = "conservative"
    interval: IntervalMethod = "wilson"


def _invalid_reason(result: UsabilityNumbers, share: float, rule: UsabilityRule) -> str:
    causes = [f"{result.invalid} repl{'y' if result.invalid == 1 else 'ies'} could not be parsed",
              f"{result.refused} refused", f"{result.failed} failed"]
    named = "; ".join(c for c in causes if not c.startswith("0 ")) or "no verdict"
    return (f"replies gave no verdict on {result.invalid_pairs} of {result.n} pairs "
            f"({share:.3f} > max_invalid_share {rule.max_invalid_share:g}): {named}; "
            "fix the prompt or the reply parser before reading agreement")


def _kappa_reason(result: UsabilityNumbers, rule: UsabilityRule) -> str | None:
    kappa = result.kappa
    if kappa is None or math.isnan(kappa):
        return KAPPA_UNDEFINED
    if rule.usability == "point":
        return f"kappa {kappa:.3f} < {rule.min_kappa:g}" if kappa < rule.min_kappa else None
    low, high = result.kappa_ci_low, result.kappa_ci_high
    if low is None or high is None or math.isnan(low):
        return f"kappa {kappa:.3f} has no interval; calibrate again"
    if low < rule.min_kappa:
        return (f"kappa lower bound {low:.3f} < {rule.min_kappa:g} "
                f"(kappa {kappa:.3f}, 95% interval {low:.3f} to {high:.3f})")
    return None


def usability(result: UsabilityNumbers, rule: UsabilityRule) -> list[str]:
    """Reasons to reject the judge, in the order of the module docstring; empty when usable.

    No pairs, or an undefined kappa, are reasons too. A slice's agreement is ``correct / n``. With
    pairs but an undefined ``invalid_share`` or ``flip_share`` (a hand-edited metrics file), the one
    reason says so. Examples are in tests/test_calibration.py (``test_usability_*``).
    """
    if result.n == 0:
        return [NO_PAIRS]
    invalid_share, flip_share = result.invalid_share, result.flip_share
    if invalid_share is None or flip_share is None or math.isnan(invalid_share) or math.isnan(flip_share):
        return [f"invalid_share {invalid_share} or flip_share {flip_share} undefined for {result.n} pairs; calibrate again"]
    reasons = []
    if result.n < rule.min_pairs:
        reasons.append(f"{TOO_FEW}: {result.n} < min_pairs {rule.min_pairs}; label at least "
                       f"{rule.min_pairs - result.n} more before the judge can be called usable")
    if invalid_share > rule.max_invalid_share:
        reasons.append(_invalid_reason(result, invalid_share, rule))
    if flip_share > rule.max_flip_share:
        reasons.append(f"order flips on {result.order_disagreements} of {result.n} pairs "
                       f"({flip_share:.3f} > max_flip_share {rule.max_flip_share:g}): the verdict "
                       "changed when the answers swapped places")
    if (why := _kappa_reason(result, rule)) is not None:
        reasons.append(why)
    for dimension, slices in _slice_groups(result):
        for name, s in slices.items():
            if s.n >= rule.min_slice_n and s.correct / s.n < rule.min_slice_agreement:
                reasons.append(f"slice {dimension} {name} {s.correct}/{s.n} < {rule.min_slice_agreement:g}")
    return reasons


def small_slices(result: UsabilityNumbers, rule: UsabilityRule) -> list[str]:
    """Slices with fewer than ``min_slice_n`` pairs, as ``"kind self (3 pairs)"``: too small to judge.

    They are not reasons to reject the judge; they say where to label more.
    """
    return [f"{dimension} {name} ({s.n} pair{'' if s.n == 1 else 's'})"
            for dimension, slices in _slice_groups(result) for name, s in slices.items() if s.n < rule.min_slice_n]
