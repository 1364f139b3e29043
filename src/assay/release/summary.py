"""reports/summary.md: the one page a person reads after `dvc repro`.

Built from the metrics and provenance files only (so it says exactly what they say): the verdict
with every reason and warning, the release rule (:func:`rule_section`: one-sided bounds at the look's
level, the intersection-union argument, ``gate.alpha`` and the looks spent, the checks outside the stated
rate, and per blocking metric the exact chance of passing short of, at and clear of its threshold),
dataset and coverage, split, leakage, human agreement, the judge, both RAG versions on the holdout
(which decides) and on dev (for tuning), the paired comparison and
how many candidates this holdout has judged, and the judge's agreement with the reviewers of the
review queues the plan names. Each figure carries its n and, where one exists, its
95% interval. Sections whose metrics file is absent say so instead of disappearing.
"""

from __future__ import annotations

from assay.core.fmt import md_words
from assay.artifacts.estimate import Estimate
from assay.artifacts.rag import CompareMetrics, RagMetrics
from assay.artifacts.registry import (AGREEMENT, BIAS, BIAS_PAGE, CALIBRATION, CALIBRATION_PAGE, COMPARE,
                                      COMPARE_REPORT, CORRECTED, COVERAGE_PAGE, DATASET, DISAGREEMENTS, LEAKAGE,
                                      LEAKAGE_REPORT, METRIC_NAMES, RAG, REVIEW_PAGE, SPLIT)
from assay.core.fmt import ci, num
from assay.release.checks import PER_CASE, REGRESSION, VERDICTS, Check, exit_code
from assay.release.detectable import markdown as detectable_markdown
from assay.release.gather import Evidence
from assay.release.rule import INTERVAL_LEVEL, pass_chances


def _missing(name: str) -> list[str]:
    return [f"_Not available: {name} is missing; run `dvc repro`._", ""]


def _est(e: Estimate) -> str:
    return f"{ci(e.value, e.ci_low, e.ci_high)}, n {e.n}"


def _repeats_section(runs: dict[str, RagMetrics | None]) -> list[str]:
    """The holdout's pass rates read over repeated runs, per version run more than once (nothing otherwise)."""
    out: list[str] = []
    for name, run in runs.items():
        rep = None if run is None else run.holdout.repeats
        if rep is None:
            continue
        out += [f"## Repeated runs of {name} on the holdout ({rep.runs} runs per case)", "",
                "The case is the unit. pass^k: every run of the case passes (what the shares above and the gate "
                "read, unless the plan says `across_repeats`); mean over runs: the share of passing runs "
                "(cluster-robust interval); pass@k: at least one run passes. Within-case share: how much of the "
                "variance lies between runs of one case rather than between cases.", "",
                "| metric | pass^k | mean over runs | pass@k | within-case share |", "|---|---:|---:|---:|---:|"]
        out += [f"| {metric} | {_est(f.all_runs)} | {_est(f.mean_runs)} | {_est(f.any_run)} | {num(f.within_share)} |"
                for metric, f in rep.by_metric.items()]
        out.append("")
    return out


def _paired_words(p: CompareMetrics, base: str, cand: str) -> str:
    """The paired comparison in one paragraph: on 0/1 outcomes, or on per-case pass shares with repeated runs."""
    if p.repeats is not None:
        r = p.repeats
        return (f"On the same {p.n} holdout cases, per-case pass shares over {r.baseline_runs} ({base}) and "
                f"{r.candidate_runs} ({cand}) run(s): {p.better} better, {p.worse} worse, {p.unchanged} unchanged "
                f"({p.still_failing} failing every run in both). Mean difference {cand} - {base}: "
                f"{ci(p.diff, p.diff_ci_low, p.diff_ci_high)} (paired t interval on the case means; t test p = "
                f"{num(r.t_p)}). Exact sign test p = {num(p.p_sign)}. Ids in {COMPARE_REPORT.relpath()}.")
    return (f"On the same {p.n} holdout cases: {p.better} better, {p.worse} worse, {p.unchanged} unchanged "
            f"({p.still_failing} failing in both). Pass-rate difference {cand} - {base}: "
            f"{ci(p.diff, p.diff_ci_low, p.diff_ci_high)} (Tango's paired score interval). "
            f"Exact sign test p = {num(p.p_sign)}; McNemar exact p = {num(p.mcnemar_p)}. Ids in {COMPARE_REPORT.relpath()}.")


def summary_markdown(ev: Evidence, checks: list[Check], holdout_looks: int | None = None) -> str:
    """The summary page for the gate's ``checks`` and the evidence they read."""
    base, cand = ev.versions.baseline, ev.versions.candidate
    out = [f"# Evaluation summary: {cand} vs {base}", "", f"**Verdict: {VERDICTS[exit_code(checks)]}.**", "",
           "The decision is taken on the holdout cases; dev figures are for tuning.", ""]
    out += ["| check | status | detail |", "|---|---|---|"]
    out += [f"| {md_words(c.name)} | {c.status} | {md_words(c.detail)} |" for c in checks]
    out.append("")
    out += rule_section(ev, checks, holdout_looks)

    out += ["## Dataset", ""]
    d, prov = ev.metric(DATASET), ev.provenance.get(DATASET.relpath())
    if d is not None:
        langs = ", ".join(f"{md_words(k)} {v}" for k, v in d.by_lang.items())
        digest = str((prov.details if prov else {}).get("dataset_hash", ""))[:12]
        out += [f"{d.cases} cases ({langs}) over {d.documents} documents, dataset hash `{digest}`. "
                f"{d.gaps} task x set cell(s) hold fewer than two cases, {d.empty_cells} are empty "
                f"({COVERAGE_PAGE.relpath()}).", ""]
    else:
        out += _missing(DATASET.relpath())
    if (s := ev.metric(SPLIT)) is not None:
        out += [f"Split by salted id hash: {s.dev} dev, {s.holdout} holdout.", ""]
    if (k := ev.metric(LEAKAGE)) is not None:
        threshold = (ev.provenance[LEAKAGE.relpath()].settings.get("threshold") if LEAKAGE.relpath() in ev.provenance else None)
        out += [f"Leakage (word-set Jaccard >= {num(threshold, 2)}): {k.dev_holdout} near-duplicate(s) across the split, "
                f"{k.sources} match(es) with other sources ({LEAKAGE_REPORT.relpath()}). Word overlap does not catch paraphrases.", ""]

    out += ["## Human agreement", ""]
    if (a := ev.metric(AGREEMENT)) is not None:
        out += [f"Two annotators on {a.n} pairs: observed {num(a.observed)}, chance {num(a.expected)}, "
                f"Cohen's kappa {ci(a.kappa, a.kappa_ci_low, a.kappa_ci_high)}; {a.disagreements} disagreement(s) "
                f"routed to adjudication ({DISAGREEMENTS.relpath()}).", ""]
    else:
        out += _missing(AGREEMENT.relpath())

    out += ["## Judge", ""]
    if (c := ev.metric(CALIBRATION)) is not None:
        out += [f"Judge vs the final human label on {c.n} pairs: agreement {ci(c.agreement, c.agreement_ci_low, c.agreement_ci_high)}, "
                f"kappa {num(c.kappa)}; {c.order_disagreements} order disagreement(s), {c.invalid} invalid repl(ies). "
                f"Usable: {'yes' if c.usable == 1 else 'no'} (reasons in {CALIBRATION_PAGE.relpath()}).", ""]
        out += ["| slice | agreement | n |", "|---|---:|---:|"]
        for group in (c.by_kind, c.by_lang):
            out += [f"| {md_words(name)} | {num(v.agreement)} | {v.n} |" for name, v in sorted(group.items())]
        out.append("")
    else:
        out += _missing(CALIBRATION.relpath())
    if (b := ev.metric(BIAS)) is not None:
        out += [f"Bias probes: first_pick {num(b.first_pick)}, order_flip {num(b.order_flip)}, "
                f"longer_wins {num(b.longer_wins)}, self_wins {num(b.self_wins)} ({BIAS_PAGE.relpath()}).", ""]

    out += _review_section(ev)

    runs = {v: ev.metric(RAG, version=v) for v in (base, cand)}
    for side, title in (("holdout", "RAG versions on the holdout (decides)"), ("dev", "RAG versions on dev (for tuning)")):
        out += [f"## {title}", "", f"| metric | {base} | {cand} |", "|---|---:|---:|"]
        for metric in METRIC_NAMES:
            cells = [_est(getattr(getattr(r, side), metric)) if r else "missing" for r in runs.values()]
            out.append(f"| {metric} | " + " | ".join(cells) + " |")
        out.append("")
    out += _repeats_section(runs)

    out += ["## Paired comparison on the holdout", ""]
    if (p := ev.metric(COMPARE)) is not None:
        out += [_paired_words(p, base, cand), ""]
        out += [f"| task | {base} | {cand} |", "|---|---:|---:|"]
        out += [f"| {md_words(task)} | {_est(p.baseline_by_task[task])} | {_est(e)} |" for task, e in p.candidate_by_task.items()]
        out.append("")
    else:
        out += _missing(COMPARE.relpath())
    out += ["Small samples give wide intervals: read a difference whose interval spans zero as no evidence of a change.", ""]
    out += _corrected_section(ev)
    out += detectable_markdown(ev.thresholds) if ev.thresholds is not None else []
    return "\n".join(out)


def rule_section(ev: Evidence, checks: list[Check], holdout_looks: int | None = None) -> list[str]:
    """The decision rule, its error budget and the looks spent, and per blocking metric how often the rule passes.

    ``holdout_looks``: the distinct candidates the ledger holds for this holdout after this verdict (``None``:
    not counted). Without a look (params or plan unreadable) only the looks line is written.
    """
    out = ["## The release rule and its error rates", ""]
    look = ev.look
    if look is None:
        return out + ["_Not available: params or the plan could not be read._", ""]
    a, level = f"{look.alpha:g}", f"{look.level:g}"
    out += [f"Each blocking metric passes when its one-sided confidence bound clears the threshold (the lower bound "
            "where higher is better, the upper bound where lower is better; Clopper-Pearson's exact bound for a share of "
            "cases), and a no-regression check with a margin when the upper bound of its regression rate is within it. "
            f"Each check runs at this look's level {level}, so a candidate whose true rate misses a threshold "
            f"passes that check with chance at most {level}. Since a release needs every blocking check, "
            "testing each at that level keeps the chance of passing a candidate that misses any threshold at or below it "
            "(an intersection-union test: to pass wrongly, the check that should fail must pass).", ""]
    if holdout_looks is not None:
        out += [f"This holdout has judged {holdout_looks} distinct candidate configuration(s) (data/holdout_ledger.jsonl; "
                f"warning above {ev.params.max_holdout_looks})."
                + (" **It is being tuned on: its figures overstate how a new candidate will do.**"
                   if holdout_looks > ev.params.max_holdout_looks else ""), ""]
    out += [f"Error budget: gate.alpha {a} per holdout (dataset hash `{(ev.dataset_hash or 'unknown')[:12]}`). The k-th "
            f"distinct candidate judged on a holdout runs at {a} / 2^k, so all of them together spend at most {a}; this "
            f"candidate is look {look.index}, so it runs at {level}, and the looks so far have spent {look.spent:g} of {a}. "
            "A new holdout (a changed dataset hash) starts again at look 1.", ""]
    outside = [f"{md_words(d.name)} is decided on its point estimate (plan decide: estimate): outside that guarantee"
               for d in ev.decisions if d.reading == "estimate"]
    outside += [f"{md_words(d.name)} reads the end of its own 95% interval (one-sided level {INTERVAL_LEVEL}), above "
                f"this look's {level}: outside that guarantee"
                for d in ev.decisions if d.reading == "interval" and look.level < INTERVAL_LEVEL]
    compare = ev.metric(COMPARE)
    for c in checks:
        if c.name.startswith(REGRESSION) and PER_CASE in c.detail:
            paired = compare.regressions_n_paired.get(c.name[len(REGRESSION):]) if compare is not None else None
            chance = f": {0.99 ** paired:.3f} at its {paired} paired cases" if paired else ""
            outside.append(f"{md_words(c.name)} uses the {PER_CASE}, which has no stated error rate (it passes a candidate "
                           f"that regresses 1% of cases with chance 0.99^n{chance})")
    if outside:
        out += ["Not covered by the stated rate:", "", *[f"- {w}." for w in outside], ""]
    rows = [r for r in (pass_chances(d, look.level) for d in ev.decisions) if r is not None]
    if rows:
        out += ["Chance the rule passes a candidate whose true rate is 0.05 short of the threshold, at it, and 0.05 "
                "clear of it, at the metric's holdout n (exact binomial). For a point-estimate check the chance at "
                "the threshold is its false-pass rate.", "",
                "| metric | n | rule | level | 0.05 short | at threshold | 0.05 clear |", "|---|---:|---|---:|---:|---:|---:|"]
        out += [f"| {md_words(r.name)} | {r.n} | {'point estimate' if r.reading == 'estimate' else 'one-sided bound'} | "
                f"{f'{r.level:g}' if r.level is not None else '—'} | {num(r.short, 3) if r.short is not None else '—'} | "
                f"{num(r.at, 3)} | {num(r.clear, 3) if r.clear is not None else '—'} |" for r in rows]
        out.append("")
    return out


def _corrected_section(ev: Evidence) -> list[str]:
    """The three estimates of the candidate against the baseline side by side (metrics/ppi.json), when the ppi stage ran."""
    from assay.queue.corrected_report import FIGURES, METHODS, cell, estimates, judge_claim, labels_note

    if not {"judge", "queue"} <= set(ev.parts):
        return []
    out = ["## Judge-corrected estimates (candidate vs baseline, every compared case)", ""]
    m = ev.metric(CORRECTED)
    if m is None:
        return out + _missing(CORRECTED.relpath())
    out += [f"The judge compared both versions' answers on {m.cases} cases; reviewers labelled {m.labelled} of them, a "
            "random sample. Judge only: the mean of the judge's verdicts on every judged case, biased by its errors. "
            "Human only: the reviewers' mean on the labelled cases. PPI: the judge's mean corrected by its average "
            "error on the labelled cases (reports/ppi.md has every slice).", "",
            *([labels_note(m), ""] if m.synthetic_labels else []),
            "| figure | n labelled | N judged | " + " | ".join(METHODS) + " |", "|---|---:|---:|---|---|---|"]
    for key, title in FIGURES.items():
        fig = getattr(m, key)
        if fig is None:
            continue
        r = fig.overall
        cells = [("too few" if r.too_few and name != METHODS[0] else cell(e)) for name, e in estimates(r).items()]
        out.append(f"| {md_words(title.split(' (')[0])} | {r.n_labelled} | {r.n_judged} | " + " | ".join(cells) + " |")
    claim = judge_claim(m.win_rate.overall, "the candidate's win rate was")
    return out + ["", *([md_words(claim), ""] if claim else [])]


def _review_section(ev: Evidence) -> list[str]:
    """The judge against the reviewers of each review queue the plan's ``review_agreement`` names."""
    out = ["## Judge vs reviewers (review queues)", ""]
    if not ev.review_queues:
        return out + ["The plan does not ask for the judge's agreement with reviewers (no `review_agreement`).", ""]
    bound = "the lower end of its 95% interval" if ev.review_use == "lower_bound" else "its point estimate"
    out += [f"Required: agreement over items both decided of at least {num(ev.review_minimum)} on {bound}, "
            "from random-fill queues only (a hard fill is chosen for likely judge errors and is biased).", "",
            "| queue | fill | agreement | decided | kappa | reviews |", "|---|---|---|---:|---:|---:|"]
    for name in ev.review_queues:
        r = ev.reviews.get(name)
        if r is None:
            out.append(f"| {md_words(name)} | missing | | | | |")
            continue
        fill = ("random" if r.random_fill else "hard (biased)") + (", synthetic" if r.synthetic else "")
        out.append(f"| {md_words(name)} | {fill} | {ci(r.agreement, r.agreement_ci_low, r.agreement_ci_high)} | {r.n_decided} | "
                   f"{num(r.kappa)} | {r.n} |")
    pages = ", ".join(REVIEW_PAGE.relpath(name=name) for name in ev.review_queues)
    return out + ["", f"Every disagreement, with both rationales: {pages}.", ""]
