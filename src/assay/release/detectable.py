"""Can the holdout tell a blocking metric's threshold from its current value? (:func:`assay.stats.power.threshold_check`)

For every blocking plan metric that is a share of holdout cases (every family but latency; not the
judge-corrected figures, which are not holdout shares), the smallest distance past the threshold at
which the candidate's holdout passes a one-sided exact binomial test at 0.05 with 80% power, and a
warning when the threshold sits closer to the candidate's current value than that: a pass or a
fail there says more about which cases landed in the holdout than about the version. A threshold
check is one-sample (one version's share against a fixed number), so no discordance enters; the
paired framing used before gave changes about 1.36 times too large.
"""

from __future__ import annotations

from assay.artifacts.corrected import GATED
from assay.artifacts.rag import RagMetrics
from assay.data.plan import Plan
from assay.stats.power import ThresholdCheck

POWER, ALPHA = 0.8, 0.05


def threshold_checks(plan: Plan, candidate: RagMetrics | None) -> list[ThresholdCheck]:
    """One :class:`~assay.stats.power.ThresholdCheck` per blocking share metric with a threshold and a holdout value.

    ``[]`` without the candidate's metrics. A metric with no defined value or no holdout case is left out
    (the gate already fails it).
    """
    from assay.stats.power import threshold_check

    if candidate is None:
        return []
    out = []
    for m in plan.metrics:
        if m.gate != "block" or m.family == "latency" or m.name in GATED or m.threshold is None:
            continue
        estimate = getattr(candidate.holdout, m.name)
        if estimate.value is None or estimate.n < 1:
            continue
        out.append(threshold_check(m.name, estimate.n, estimate.value, m.threshold, m.direction, power=POWER, alpha=ALPHA))
    return out


def markdown(checks: list[ThresholdCheck]) -> list[str]:
    """The summary's section: one row per metric, then the warnings."""
    from assay.core.fmt import md_words, num

    out = ["## What the holdout can detect", "",
           "For each blocking metric, how far past its threshold a version must truly be for the holdout to show it "
           f"with {POWER:.0%} power (one-sided exact binomial test at {ALPHA:g}: a threshold check is one-sample), beside "
           "the threshold's distance from the candidate's current value.", ""]
    if not checks:
        return out + ["No blocking share metric has a holdout value yet.", ""]
    out += ["| metric | n | current | threshold | distance | detectable change |", "|---|---:|---:|---:|---:|---:|"]
    out += [f"| {md_words(c.name)} | {c.n} | {num(c.value)} | {num(c.threshold)} | {num(c.margin)} | "
            f"{'none' if c.detectable is None else num(c.detectable)} |" for c in checks]
    out.append("")
    out += [f"- **Warning:** {md_words(c.warning)}" for c in checks if c.warning]
    return out + ([""] if any(c.warning for c in checks) else [])
