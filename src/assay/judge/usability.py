"""The usability rule: when may a judge's verdicts stand in for people's labels?

A calibration record (:mod:`assay.judge.calibration`) is judged against a :class:`UsabilityRule`.
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
from typing import Literal

from pydantic import ConfigDict, Field

from assay.stats.proportion import IntervalMethod
from assay.core.records import InputModel

# (slice dimension as named in reasons, record key)
SLICE_GROUPS = (("kind", "by_kind"), ("lang", "by_lang"))
NO_PAIRS = "no pairs to calibrate on"
TOO_FEW = "too few pairs"
KAPPA_UNDEFINED = "kappa undefined (one label everywhere on both sides)"


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


def _bad(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _invalid_reason(record: dict, rule: UsabilityRule) -> str:
    causes = [f"{record['invalid']} repl{'y' if record['invalid'] == 1 else 'ies'} could not be parsed",
              f"{record['refused']} refused", f"{record['failed']} failed"]
    named = "; ".join(c for c in causes if not c.startswith("0 ")) or "no verdict"
    return (f"replies gave no verdict on {record['invalid_pairs']} of {record['n']} pairs "
            f"({record['invalid_share']:.3f} > max_invalid_share {rule.max_invalid_share:g}): {named}; "
            "fix the prompt or the reply parser before reading agreement")


def _kappa_reason(record: dict, rule: UsabilityRule) -> str | None:
    kappa = record["kappa"]
    if _bad(kappa):
        return KAPPA_UNDEFINED
    if rule.usability == "point":
        return f"kappa {kappa:.3f} < {rule.min_kappa:g}" if kappa < rule.min_kappa else None
    low, high = record["kappa_ci_low"], record["kappa_ci_high"]
    if low < rule.min_kappa:
        return (f"kappa lower bound {low:.3f} < {rule.min_kappa:g} "
                f"(kappa {kappa:.3f}, 95% interval {low:.3f} to {high:.3f})")
    return None


def usability(record: dict, rule: UsabilityRule) -> list[str]:
    """Reasons to reject the judge, in the order of the module docstring; empty when usable.

    ``record`` needs ``n``, ``invalid_pairs``, ``invalid_share``, ``invalid``/``refused``/``failed``,
    ``order_disagreements``, ``flip_share``, ``kappa``, ``kappa_ci_low``/``high`` and the slices
    ``by_kind``/``by_lang`` (``{name: {"correct", "n", "agreement"}}``). No pairs, or an undefined
    kappa, are reasons too.

    >>> rec = {"n": 40, "invalid_pairs": 0, "invalid_share": 0.0, "invalid": 0, "refused": 0, "failed": 0,
    ...        "order_disagreements": 0, "flip_share": 0.0, "kappa": 0.7, "kappa_ci_low": 0.41,
    ...        "kappa_ci_high": 0.99, "by_kind": {"x": {"correct": 2, "n": 4, "agreement": 0.5}}, "by_lang": {}}
    >>> usability(rec, UsabilityRule())
    ['kappa lower bound 0.410 < 0.6 (kappa 0.700, 95% interval 0.410 to 0.990)']
    >>> usability(rec, UsabilityRule(usability="point", min_slice_n=4))
    ['slice kind x 2/4 < 0.6']
    >>> usability({**rec, "n": 4, "kappa": 1.0}, UsabilityRule(usability="point"))
    ['too few pairs: 4 < min_pairs 30; label at least 26 more before the judge can be called usable']
    """
    if record["n"] == 0:
        return [NO_PAIRS]
    reasons = []
    if record["n"] < rule.min_pairs:
        reasons.append(f"{TOO_FEW}: {record['n']} < min_pairs {rule.min_pairs}; label at least "
                       f"{rule.min_pairs - record['n']} more before the judge can be called usable")
    if record["invalid_share"] > rule.max_invalid_share:
        reasons.append(_invalid_reason(record, rule))
    if record["flip_share"] > rule.max_flip_share:
        reasons.append(f"order flips on {record['order_disagreements']} of {record['n']} pairs "
                       f"({record['flip_share']:.3f} > max_flip_share {rule.max_flip_share:g}): the verdict "
                       "changed when the answers swapped places")
    if (why := _kappa_reason(record, rule)) is not None:
        reasons.append(why)
    for dimension, key in SLICE_GROUPS:
        for name, s in record[key].items():
            if s["n"] >= rule.min_slice_n and s["agreement"] < rule.min_slice_agreement:
                reasons.append(f"slice {dimension} {name} {s['correct']}/{s['n']} < {rule.min_slice_agreement:g}")
    return reasons


def small_slices(record: dict, rule: UsabilityRule) -> list[str]:
    """Slices with fewer than ``min_slice_n`` pairs, as ``"kind self (3 pairs)"``: too small to judge.

    They are not reasons to reject the judge; they say where to label more.
    """
    return [f"{dimension} {name} ({s['n']} pair{'' if s['n'] == 1 else 's'})"
            for dimension, key in SLICE_GROUPS for name, s in record[key].items() if s["n"] < rule.min_slice_n]
