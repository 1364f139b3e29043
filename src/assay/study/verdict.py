"""The study's verdict: the pass conditions, the seven thresholds per mode, and the page
(docs/relevance-study.md, "Evaluate and publish the verdict").

Pass conditions (:data:`~assay.study.conditions.CONDITIONS`), all required:

1. ``judgments_and_receipt``: both splits have two complete judgment files and an agreement
   receipt that names them as they are;
2. ``adjudicated``: the arbiter decided every disagreement, each with a reason code;
3. ``hashes_verified``: every split's manifest matches the bytes of corpus, queries, raw judgments
   and frozen qrels (``assay study validate``);
4. ``holdout_opened``: the development evidence validated and the sealed holdout was opened by an
   explicit recorded decision (``assay study open-holdout``);
5. ``same_runtime``: the five modes were evaluated on the sealed holdout with one corpus/runtime manifest;
6. ``all_published``: every one of the seven figures has a value for every mode (undefined
   figures cannot be checked against a threshold);
7. ``human_evidence``: the judgments come from people, not from the synthetic demo generator.

A mode passes when every condition holds and it meets all seven thresholds on the sealed
holdout; the study passes when its candidate mode does. The page publishes every figure with its
interval and lists every unmet threshold, per mode, whatever the outcome; development figures are
shown for tuning only. :func:`verdict_step` is stage ``study_verdict``'s work: it refuses when the
thresholds changed after the opening, re-checks the evidence conditions and returns the verdict's
metrics, page and details.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.core.fmt import md_words, num
from assay.relevance.params import MODES
from assay.relevance.scoring import headings, latency_words
from assay.relevance.thresholds import Threshold, load_thresholds
from assay.study.conditions import CONDITIONS, Condition
from assay.study.evidence import SEALED, EvidenceRoot, redacting
from assay.study.opening import check_preregistration, read_opening
from assay.study.params import StudyParams
from assay.study.protocol import Study


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


def _latency(evaluation: dict, split: str) -> dict | None:
    """The p95 latency figures of the first mode of ``split`` (every mode's latency is of one kind), None when not evaluated."""
    modes = evaluation.get(split, {}).get("modes", {})
    return next(iter(modes.values())).get("latency_ms") if modes else None


def _table(modes: dict, thresholds: dict[str, Threshold], latency: dict | None) -> list[str]:
    lines = ["| mode | " + " | ".join(headings(thresholds, latency)) + " | met |", "|" + "---|" * (len(thresholds) + 2)]
    for m, figs in sorted(modes.items()):
        cells = [_cell(figs["thresholds"][k], t) for k, t in thresholds.items()]
        lines.append(f"| {m} | " + " | ".join(cells) + f" | {figs['thresholds_met']}/{len(thresholds)} |")
    return lines


def _unmet(modes: dict, thresholds: dict[str, Threshold], latency: dict | None) -> list[str]:
    lines = []
    names = dict(zip(thresholds, headings(thresholds, latency), strict=True))
    for m, figs in sorted(modes.items()):
        misses = [f"{names[k]} = {num(figs['thresholds'][k]['value'], 4)} (needs {t.direction} {t.value:g})"
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
        latency = _latency(evaluation, SEALED)
        lines += [f"Value [{level:.0%} interval] and whether it meets the threshold. Means of per-query measures use "
                  "a t interval over queries, rates a Wilson interval, p95 latency the order-statistic interval "
                  "(n/a where the sample is too small to give a bound)." + (f" {latency_words(latency)}" if latency else ""),
                  "", *_table(sealed, thresholds, latency),
                  "", "Unmet thresholds:", "", *_unmet(sealed, thresholds, latency),
                  "", "### Answer figures from the people's labels", "", ANSWER_SOURCE, "",
                  *_answers(evaluation.get(SEALED, {}).get("modes", {}))]
    else:
        lines += ["Not evaluated: the sealed holdout has not been opened (`assay study open-holdout`)."]
    dev = evaluation.get("development", {}).get("modes", {})
    lines += ["", "## Development split (for tuning; not the verdict)", ""]
    if dev:
        latency = _latency(evaluation, "development")
        lines += [*([latency_words(latency), ""] if latency else []), *_table(dev, thresholds, latency),
                  "", "Unmet thresholds:", "", *_unmet(dev, thresholds, latency)]
    else:
        lines += ["Not evaluated."]
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


def verdict_step(study: Study, root: EvidenceRoot, params: StudyParams, evaluation: dict, receipts: dict,
                 level: float, hashes: dict[str, str]) -> dict:
    """``{"metrics", "page", "conditions", "note"}`` of the verdict, computed in the repository at the current directory.

    ``note`` is ``""``, or says that git history could not be read, so the opening was checked
    against the opening record only (:func:`assay.study.registration.require_registered_opening`).

    Raises:
        HoldoutRefused: the thresholds file changed after the holdout was opened, or the lock's
            opening hash differs from the one its first opening commit registered (exit 2).
    """
    from assay.study.conditions import evidence_conditions
    from assay.study.registration import require_registered_opening

    note = require_registered_opening(".")
    with redacting(root):
        check_preregistration(root, study.thresholds)
        thresholds = load_thresholds(study.thresholds)
        opened = read_opening(root) is not None
        conditions = evidence_conditions(root, opened, study.synthetic)
    splits = evaluation["splits"]
    outcome = decide(conditions, splits, params.candidate)
    metrics = verdict_metrics(outcome, splits, receipts, study.synthetic, opened)
    page = verdict_markdown(outcome, splits, receipts, thresholds, params.candidate, study.synthetic, hashes, level)
    return {"metrics": metrics, "page": page, "note": note,
            "conditions": {c.key: {"holds": c.ok, "detail": c.detail} for c in outcome.conditions}}
