"""The study's verdict (step 9): seed 003's pass conditions, the seven thresholds per mode, and the page.

Pass conditions (:data:`CONDITIONS`), all required:

1. ``judgments_and_receipt``: both splits have two complete judgment files and an agreement
   receipt that names them as they are;
2. ``adjudicated``: the arbiter decided every disagreement, each with a reason code;
3. ``hashes_verified``: every split's manifest matches the bytes of corpus, queries, raw judgments
   and frozen qrels (``assay relevance validate``);
4. ``holdout_opened``: the development evidence validated and the sealed holdout was opened by an
   explicit recorded decision (``assay relevance open-holdout``);
5. ``same_runtime``: the five modes were evaluated on the sealed holdout with one corpus/runtime manifest;
6. ``all_published``: every one of the seven figures has a value for every mode (undefined
   figures cannot be checked against a threshold);
7. ``human_evidence``: the judgments come from people, not from the synthetic demo generator.

A mode passes when every condition holds and it meets all seven thresholds on the sealed
holdout; the study passes when its candidate mode does. The page publishes every figure with its
interval and lists every unmet threshold, per mode, whatever the outcome; development figures are
shown for tuning only.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.core.fmt import md_words
from assay.core.fmt import num
from assay.relevance.params import MODES
from assay.relevance.thresholds import Threshold
from assay.study.evidence import SEALED

CONDITIONS: dict[str, str] = {
    "judgments_and_receipt": "two independent judgment files and an agreement receipt, both splits",
    "adjudicated": "a third person (the arbiter) decided every disagreement, with a reason",
    "hashes_verified": "corpus, queries, raw judgments and frozen qrels match their manifests' SHA-256",
    "holdout_opened": "development evidence validated; sealed holdout opened by an explicit recorded decision",
    "same_runtime": "lexical, semantic, hybrid, reranked and graph evaluated on one corpus/runtime manifest",
    "all_published": "all seven figures defined for every mode, published with intervals",
    "human_evidence": "judgments by people, not the synthetic demo generator",
}


@dataclass(frozen=True)
class Condition:
    """One pass condition: whether it holds and why."""

    key: str
    ok: bool
    detail: str


def mode_figures(metrics: dict) -> dict:
    """``{"thresholds_met", "thresholds"}`` of one mode's scores (see :func:`assay.relevance.scoring.mode_scores`)."""
    return {"thresholds_met": metrics["thresholds_met"], "thresholds": metrics["thresholds"]}


@dataclass(frozen=True)
class StudyDecision:
    """What :func:`decide` found: every pass condition, each mode's figures on the sealed holdout with
    ``passed`` (0/1), and whether the candidate mode passed."""

    conditions: list[Condition]
    modes: dict[str, dict]
    passed: bool


def decide(conditions: list[Condition], evaluation: dict, candidate: str) -> StudyDecision:
    """Per-mode verdicts on the sealed holdout and the study's outcome.

    Args:
        conditions: the seven pass conditions except ``all_published`` and ``same_runtime``, which
            are derived here from ``evaluation``.
        evaluation: ``{split: {"modes": {mode: metrics}} | {}}``; an empty split was not evaluated.
        candidate: the mode the release would ship.

    Returns:
        A :class:`StudyDecision`; ``modes`` is ``{mode: {"thresholds_met", "thresholds", "passed"}}``.
    """
    sealed = evaluation.get(SEALED, {}).get("modes", {})
    present = sorted(sealed)
    same = Condition("same_runtime", sorted(MODES) == present,
                     "one manifest for all five modes" if sorted(MODES) == present
                     else f"sealed holdout evaluated for {', '.join(present) or 'no mode'}")
    undefined = [f"{m}: {k}" for m, figs in sorted(sealed.items()) for k, t in figs["thresholds"].items()
                 if t["value"] is None or t["value"] != t["value"]]
    published = Condition("all_published", bool(sealed) and not undefined,
                          "every figure defined" if sealed and not undefined
                          else ("sealed holdout not evaluated" if not sealed else "undefined: " + ", ".join(undefined)))
    every = [*conditions, same, published]
    holds = all(c.ok for c in every)
    modes = {m: {**mode_figures(figs), "passed": int(holds and figs["thresholds_met"] == len(figs["thresholds"]))}
             for m, figs in sorted(sealed.items())}
    return StudyDecision(conditions=every, modes=modes, passed=bool(modes.get(candidate, {}).get("passed")))


def verdict_metrics(outcome: StudyDecision, evaluation: dict, receipts: dict, synthetic: bool, opened: bool) -> dict:
    """The numbers-only content of ``metrics/relevance/verdict.json`` (see :class:`assay.artifacts.study.VerdictMetrics`)."""
    def bounds(m: dict) -> dict:
        return {"value": m["value"], "low": m["interval"]["low"], "high": m["interval"]["high"]}

    agreement = {split: {"pairs": r["pairs"], "disagreements": r["disagreements"],
                         "alpha": bounds(r["measures"][0]), "kappa": bounds(r["measures"][1])}
                 for split, r in sorted(receipts.items())}
    return {"passed": int(outcome.passed), "synthetic": int(synthetic), "holdout_opened": int(opened),
            "conditions": {c.key: int(c.ok) for c in outcome.conditions},
            "conditions_met": sum(c.ok for c in outcome.conditions),
            "modes_passed": sum(m["passed"] for m in outcome.modes.values()),
            "agreement": agreement,
            "development": {m: mode_figures(f) for m, f in sorted(evaluation.get("development", {}).get("modes", {}).items())},
            "sealed_holdout": outcome.modes}


def _cell(t: dict, threshold: Threshold) -> str:
    digits = 0 if threshold.key == "p95_latency_ms" else 3
    mark = "met" if t["pass"] else "**UNMET**"
    return f"{num(t['value'], digits)} [{num(t['low'], digits)}, {num(t['high'], digits)}] {mark}"


def _table(modes: dict, thresholds: dict[str, Threshold]) -> list[str]:
    lines = ["| mode | " + " | ".join(thresholds) + " | met |", "|" + "---|" * (len(thresholds) + 2)]
    for m, figs in sorted(modes.items()):
        cells = [_cell(figs["thresholds"][k], t) for k, t in thresholds.items()]
        lines.append(f"| {m} | " + " | ".join(cells) + f" | {figs['thresholds_met']}/{len(thresholds)} |")
    return lines


def _unmet(modes: dict, thresholds: dict[str, Threshold]) -> list[str]:
    lines = []
    for m, figs in sorted(modes.items()):
        misses = [f"{k} = {num(figs['thresholds'][k]['value'], 4)} (needs {t.direction} {t.value:g})"
                  for k, t in thresholds.items() if not figs["thresholds"][k]["pass"]]
        lines.append(f"- {m}: " + ("; ".join(misses) if misses else "every threshold met"))
    return lines


#: The answer figures of :mod:`assay.study.labels`, in the page's column order, with their column titles.
ANSWER_COLUMNS = {"citation_provenance_accuracy": "acceptable citations / answers",
                  "stale_answer_rate": "stale citations / answers",
                  "abstention_quality": "right answer-or-abstain / queries",
                  "unjudged_citation_rate": "unjudged citations / answers"}
ANSWER_SOURCE = ("The answer figures are scored against the people's final labels (A and B where they agree, the "
                 "arbiter where they do not), not against query or corpus metadata. A mode's answer is the first "
                 "non-heuristic document it ranks, or an abstention when that document holds too little of the "
                 "query. Citation/provenance accuracy: answers whose cited document the people accept as a "
                 "citation for that query. Stale-answer rate: answers citing a document the people classified "
                 "historical and graded -1. Abstention quality: queries where the mode answered exactly when the "
                 "people say answering is right (abstaining is correct only when every judged candidate says so). "
                 "A cited document outside the judged pool counts as neither acceptable nor stale.")


def _answers(modes: dict) -> list[str]:
    """The counts behind each mode's answer figures, ``hits/n`` (``0/0`` for an empty denominator, n/a when absent)."""
    def cell(fig: dict | None) -> str:
        if fig is None:
            return "n/a"
        return f"{round(fig['value'] * fig['n']) if fig['n'] else 0}/{fig['n']}"

    lines = ["| mode | " + " | ".join(ANSWER_COLUMNS.values()) + " |", "|" + "---|" * (len(ANSWER_COLUMNS) + 1)]
    for m, figs in sorted(modes.items()):
        lines.append(f"| {m} | " + " | ".join(cell(figs.get("answers", {}).get(k)) for k in ANSWER_COLUMNS) + " |")
    return lines


def verdict_markdown(outcome: StudyDecision, evaluation: dict, receipts: dict, thresholds: dict[str, Threshold],
                     candidate: str, synthetic: bool, hashes: dict[str, str], level: float) -> str:
    """The page a search-quality lead can publish: outcome, conditions, every figure with its interval, every unmet threshold."""
    sealed = outcome.modes
    head = "PASSED" if outcome.passed else "NOT PASSED"
    lines = ["# Human relevance study: verdict", ""]
    if synthetic:
        lines += ["**Synthetic evidence.** The judgments and decisions were made by the demo generator, not by "
                  "people: nothing on this page is evidence of retrieval quality.", ""]
    lines += [f"**Verdict: {head}** for the candidate mode `{candidate}` "
              f"({sum(m['passed'] for m in sealed.values())} of {len(MODES)} modes pass). A mode passes only when "
              "every pass condition below holds and it meets all seven pre-registered thresholds on the sealed holdout.",
              "", "## Pass conditions", "", "| condition | holds | detail |", "|---|---|---|"]
    lines += [f"| {CONDITIONS[c.key]} | {'yes' if c.ok else '**no**'} | {md_words(c.detail)} |" for c in outcome.conditions]
    lines += ["", "## Sealed holdout, per mode", ""]
    if sealed:
        lines += [f"Value [{level:.0%} interval] and whether it meets the threshold. Means of per-query measures use "
                  "a t interval over queries, rates a Wilson interval, p95 latency the order-statistic interval "
                  "(n/a where the sample is too small to give a bound).", "", *_table(sealed, thresholds),
                  "", "Unmet thresholds:", "", *_unmet(sealed, thresholds),
                  "", "### Answer figures from the people's labels", "", ANSWER_SOURCE, "",
                  *_answers(evaluation.get(SEALED, {}).get("modes", {}))]
    else:
        lines += ["Not evaluated: the sealed holdout has not been opened (`assay relevance open-holdout`)."]
    dev = evaluation.get("development", {}).get("modes", {})
    lines += ["", "## Development split (for tuning; not the verdict)", ""]
    lines += [*_table(dev, thresholds), "", "Unmet thresholds:", "", *_unmet(dev, thresholds)] if dev else ["Not evaluated."]
    lines += ["", "## Agreement receipts (before any discussion)", "",
              "| split | pairs | disagreements | measure | value | interval |", "|---|---|---|---|---|---|"]
    for split, r in sorted(receipts.items()):
        for m in r["measures"]:
            lines.append(f"| {split} | {r['pairs']} | {r['disagreements']} | {m['name']} | {num(m['value'])} | "
                         f"[{num(m['interval']['low'])}, {num(m['interval']['high'])}] ({m['interval']['method']}) |")
    lines += ["", "## Pre-registered thresholds", ""]
    lines += [f"- {md_words(t)}" for t in thresholds.values()]
    lines += ["", "## Hashes", ""] + [f"- {name}: `{value}`" for name, value in sorted(hashes.items())]
    return "\n".join(lines) + "\n"
