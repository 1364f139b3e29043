"""The release gate's rules: may the candidate RAG version replace the baseline?

Each rule returns :class:`Check` values:

- every blocking plan metric, measured on the candidate's **holdout** cases, clears its threshold on
  its one-sided confidence bound at the current look's level (:mod:`assay.release.rule`: Clopper-Pearson
  for a share of cases, the metric's own interval otherwise, the point estimate when the plan says
  ``decide: estimate``; compared unrounded); a metric defined on no holdout case fails with that
  reason, and one defined on fewer than the metric's ``min_n`` cases fails as "too few cases";
- for every plan metric marked ``no_regression``: with ``max_regression`` above 0, the one-sided
  upper bound of the regression rate (paired holdout cases that went from pass to fail) at the
  look's level is at most it; at 0, the per-case rule: no holdout case went from pass to fail;
- the judge calibration is usable (when required or present), with the reasons its record gives;
- human agreement (kappa) meets ``gate.min_human_kappa`` (when required or present);
- when the plan has ``review_agreement``: the judge agrees with the reviewers of each named
  random-fill queue at least ``min_agreement`` (on the lower bound of the 95% interval by default);
  a hard-fill queue is never accepted, an absent or stale review metrics file is missing or stale;
- the input hashes recorded in every provenance file match the current inputs (freshness);
- plan problems and a holdout looked at by too many candidates are warnings (they do not block).

Statuses (:data:`STATUSES`): ``pass``; ``warn``; ``fail`` (exit 1); ``missing`` (a file or value is
absent or broken) and ``stale`` (an input changed): exit 2. A missing file is never a pass, and a
gate with nothing to check is not a pass either (exit 2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import ConfigDict, Field

from assay.artifacts.corrected import GATED, CorrectedMetrics
from assay.artifacts.judge import AgreementMetrics, CalibrationMetrics
from assay.artifacts.rag import CompareMetrics, RagMetrics
from assay.core.fmt import exact, num
from assay.artifacts.queue import ReviewMetrics
from assay.artifacts.release import GateMetrics
from assay.artifacts.registry import (AGREEMENT, CALIBRATION, CALIBRATION_PAGE, COMPARE, CORRECTED, GATE, PROVENANCE, RAG,
                                      REVIEW)
from assay.data.plan import Metric, Plan, ReviewAgreement
from assay.core.records import InputModel
from assay.judge.usability import UsabilityRule

if TYPE_CHECKING:
    from assay.release.rule import MetricDecision

Status = Literal["pass", "warn", "fail", "missing", "stale"]
STATUSES: tuple[str, ...] = ("pass", "warn", "fail", "missing", "stale")

#: how a no-regression check is named (``no regression on NAME``) and the words naming the per-case rule in its detail
REGRESSION, PER_CASE = "no regression on ", "per-case rule"

#: The verdict for each exit code, in the words the table, the summary page and the CLI use.
VERDICTS = {0: "PASS: the candidate may ship",
            1: "FAIL: a pre-registered threshold is unmet",
            2: "NOT DECIDED: params, the plan or a metrics file is missing, broken or stale; fix it and re-run dvc repro"}


class GateParams(InputModel):
    """params.yaml section ``gate``.

    ``max_holdout_looks``: how many distinct candidate configurations may be judged on this holdout
    before the gate warns that the holdout is being tuned on.

    ``alpha``: the error budget of one holdout: the largest chance the gate may pass a candidate that
    misses a blocking threshold (or regresses beyond ``max_regression``), over every candidate ever
    judged on it. The ``k``-th distinct candidate is decided at ``alpha / 2 ** k``
    (:func:`assay.stats.decision.look_alpha`); a new holdout (a changed dataset hash) starts again at ``k = 1``.
    """

    model_config = ConfigDict(extra="forbid")
    min_human_kappa: float = Field(0.6, ge=-1, le=1)
    require_judge: bool = True
    require_agreement: bool = True
    max_holdout_looks: int = Field(5, ge=1)
    alpha: float = Field(0.05, gt=0, lt=0.5)


@dataclass(frozen=True)
class Check:
    """One gate rule's outcome. ``value`` and ``threshold`` are for display; ``detail`` says why."""

    name: str
    status: Status
    detail: str
    value: float | None = None
    threshold: float | None = None


def exit_code(checks: list[Check]) -> int:
    """0 when every check passes (warnings allowed), 2 when anything is missing or stale or there
    is nothing to check, otherwise 1.

    >>> exit_code([])
    2
    """
    if not checks or any(c.status in ("missing", "stale") for c in checks):
        return 2
    return 1 if any(c.status == "fail" for c in checks) else 0


def corrected_check(m: Metric, corrected: CorrectedMetrics | None, candidate_name: str) -> Check:
    """A blocking judge-corrected metric (``ppi_win_rate``, ``ppi_score``): the PPI interval's lower bound
    overall (its upper bound for ``direction: lower``) against the threshold, never the judge-only estimate.

    Fails when the figure is undefined, when the labelled sample is under the ppi stage's ``min_labelled``
    ("too few") or under the metric's ``min_n``; missing when metrics/ppi.json is.
    """
    bound_name = "lower" if m.direction == "higher" else "upper"
    name = f"{m.name} ({candidate_name} vs baseline, PPI {bound_name} bound)"
    if corrected is None:
        return Check(name, "missing", f"{CORRECTED.relpath()} not found: run dvc repro ppi", None, m.threshold)
    figure = getattr(corrected, GATED[m.name])
    if figure is None:
        return Check(name, "fail", "no review scored the candidate's answers", None, m.threshold)
    row = figure.overall
    bound = row.ppi.ci_low if m.direction == "higher" else row.ppi.ci_high
    if m.threshold is None:
        return Check(name, "fail", "blocking metric without a threshold in the plan", bound)
    if row.too_few or row.n_labelled < m.min_n or bound is None:
        least = max(m.min_n, corrected.min_labelled)
        return Check(name, "fail", f"too few labelled cases ({row.n_labelled} < {least})", None, m.threshold)
    ok = m.meets(bound)
    sign = ">=" if m.direction == "higher" else "<="
    return Check(name, "pass" if ok else "fail",
                 f"PPI {bound_name} bound {exact(bound)} (one-sided level 0.025, from its 95% interval) "
                 f"{'meets' if ok else 'misses'} {sign} {exact(m.threshold)} "
                 f"(estimate {exact(row.ppi.value)}, n labelled {row.n_labelled}, N judged {row.n_judged})", bound, m.threshold)


def metric_checks(plan: Plan, candidate: RagMetrics | None, compare: CompareMetrics | None,
                  candidate_name: str, corrected: CorrectedMetrics | None = None,
                  level: float = 0.025, decisions: list[MetricDecision] | None = None) -> list[Check]:
    """Blocking-threshold checks on the candidate's holdout figures (:func:`assay.release.rule.decide` at one-sided
    ``level``, the current look's), the judge-corrected figures (:func:`corrected_check`), and no-regression checks
    (:func:`regression_check`). ``level``'s default is the first look's under ``alpha`` 0.05. Each holdout
    metric decided on its figures is appended to ``decisions`` when given (the summary tabulates them)."""
    from assay.release.rule import decide, decision_words

    checks = []
    for m in plan.metrics:
        if m.gate != "block":
            continue
        if m.name in GATED:
            checks.append(corrected_check(m, corrected, candidate_name))
            continue
        name = f"{m.name} ({candidate_name}, holdout)"
        if candidate is None:
            checks.append(Check(name, "missing", f"{RAG.relpath(version=candidate_name)} not found: run dvc repro", None, m.threshold))
            continue
        estimate, mean_runs = candidate.holdout.across(m.name, m.across_repeats)
        if m.threshold is None:
            checks.append(Check(name, "fail", "blocking metric without a threshold in the plan", estimate.value))
        elif estimate.value is None:
            checks.append(Check(name, "fail", "not defined on any holdout case", None, m.threshold))
        elif estimate.n < m.min_n:
            checks.append(Check(name, "fail", f"too few cases ({estimate.n} < min_n {m.min_n})", estimate.value, m.threshold))
        else:
            d = decide(m, estimate, level, share=False if mean_runs else None)
            if decisions is not None:
                decisions.append(d)
            checks.append(Check(name, "pass" if d.passed else "fail", decision_words(d), d.value, m.threshold))
    for m in plan.metrics:
        if m.no_regression:
            checks.append(regression_check(m, compare, level))
    return checks


def regression_check(m: Metric, compare: CompareMetrics | None, level: float) -> Check:
    """``no regression on NAME``: the per-case rule (no paired holdout case went from pass to fail) at
    ``max_regression`` 0, else the one-sided Clopper-Pearson upper bound of the regression rate at ``level``
    against ``max_regression``. ``value`` is the count (per case) or the bound. Missing without a count;
    with no paired case the bound rule fails (nothing shows the rate is small) and the per-case rule passes
    (no case got worse)."""
    from assay.stats.decision import least_n, one_sided_bound

    name = f"{REGRESSION}{m.name}"
    worse = None if compare is None else compare.regressions.get(m.name)
    paired = None if compare is None else compare.regressions_n_paired.get(m.name)
    if worse is None or paired is None:
        return Check(name, "missing", f"{COMPARE.relpath()} has no regression count for it: run dvc repro")
    if m.regression_test == "per_case":
        return Check(name, "pass" if worse == 0 else "fail",
                     (f"{worse} holdout case(s) went from pass to fail" if worse else "no holdout case got worse")
                     + f" ({PER_CASE}, plan max_regression 0)", worse, 0)
    if paired == 0:
        return Check(name, "fail", "no paired holdout case to bound the regression rate with", None, m.max_regression)
    bound = one_sided_bound(worse, paired, level, "lower")
    ok = bound <= m.max_regression
    least = least_n(m.max_regression, level, "lower")
    never = ("" if ok or (least is not None and least <= paired) else
             f"; even no regressed case could not pass: it needs at least {least} paired cases")
    return Check(name, "pass" if ok else "fail",
                 f"regression rate {worse} of {paired}: upper bound {exact(bound)} (one-sided Clopper-Pearson at level "
                 f"{level:g}) {'meets' if ok else 'misses'} <= max_regression {exact(m.max_regression)}{never}",
                 bound, m.max_regression)


def judge_checks(params: GateParams, agreement: AgreementMetrics | None, calibration: CalibrationMetrics | None,
                 reasons: list[str] | None = None) -> list[Check]:
    """Human agreement floor and judge usability; ``reasons`` are the calibration record's own."""
    checks = []
    if agreement is not None or params.require_agreement:
        if agreement is None:
            checks.append(Check("human agreement", "missing", f"{AGREEMENT.relpath()} not found: run dvc repro"))
        else:
            k = agreement.kappa
            ok = k is not None and k >= params.min_human_kappa
            checks.append(Check("human agreement", "pass" if ok else "fail",
                                f"kappa {num(k, 4)} {'>=' if ok else '<'} {num(params.min_human_kappa)}", k,
                                params.min_human_kappa))
    if calibration is not None or params.require_judge:
        if calibration is None:
            checks.append(Check("judge calibration", "missing", f"{CALIBRATION.relpath()} not found: run dvc repro"))
        else:
            usable = calibration.usable == 1
            why = "; ".join(reasons or []) or f"see {CALIBRATION_PAGE.relpath()}"
            checks.append(Check("judge calibration", "pass" if usable else "fail",
                                "usable" if usable else f"not usable: {why}", calibration.usable, 1))
    return checks


def calibration_consistency(calibration: CalibrationMetrics | None, reasons: list[str] | None,
                            rule: UsabilityRule | None) -> list[Check]:
    """The calibration's usability flag checked against what it states (a hand edit is not a verdict).

    Two ``stale`` checks (exit 2), each naming the file: the flag in metrics/calibration.json
    disagrees with the reasons in reports/provenance/calibrate.json (usable with reasons, or not
    usable with none), or with the usability rule of params ``judge`` applied again to the
    numbers of metrics/calibration.json itself. ``[]`` when they agree, or when a file is absent
    (other checks report that).
    """
    if calibration is None:
        return []
    usable = calibration.usable == 1
    fix = "(fix: run `dvc repro -f calibrate`; an edited metrics or provenance file is not a verdict)"
    out = []
    if reasons is not None and usable == bool(reasons):
        said = (f"lists {len(reasons)} reason(s) the judge is not usable" if reasons else "lists no reason")
        out.append(Check("calibration consistency", "stale",
                         f"{CALIBRATION.relpath()} says usable {calibration.usable} but {PROVENANCE.relpath(stage=CALIBRATION.stage)} "
                         f"{said} {fix}"))
    if rule is not None:
        from assay.judge.usability import usability as usability_reasons

        again = usability_reasons(calibration, rule)
        if usable == bool(again):
            out.append(Check("calibration consistency", "stale",
                             f"{CALIBRATION.relpath()} says usable {calibration.usable} but its own numbers under params "
                             f"judge's rule say {'not usable: ' + '; '.join(again) if again else 'usable'} {fix}"))
    return out


def recorded_verdict_checks(recorded: GateMetrics | None, checks: list[Check]) -> list[Check]:
    """The gate stage's own record (metrics/gate.json) against the checks computed now from the same files.

    ``assay gate`` reads the committed metrics; the ``gate`` stage read them too when it wrote
    metrics/gate.json. When the two disagree (the record says ``passed: 0`` and the checks pass,
    or a check's 1/0 differs), something was edited after the stage ran: one ``stale`` check
    (exit 2) naming the file and the first differences. ``[]`` without a record, or when they agree.
    Checks that are stale or missing now are left out (they already stop the gate, and say why).
    """
    if recorded is None:
        return []
    decided = [c for c in checks if c.status in ("pass", "fail", "warn")]
    passed_now = int(exit_code(checks) == 0)
    differ = ([f"passed {recorded.passed} (now {passed_now})"]
              if recorded.passed != passed_now and len(decided) == len(checks) else [])
    now = {c.name: int(c.status == "pass") for c in decided}
    differ += [f"{name} {recorded.checks[name]} (now {now[name]})" for name in sorted(now.keys() & recorded.checks.keys())
               if recorded.checks[name] != now[name]]
    if not differ:
        return []
    shown = "; ".join(differ[:4]) + (f"; and {len(differ) - 4} more" if len(differ) > 4 else "")
    return [Check("gate record", "stale", f"{GATE.relpath()}, written by the gate stage, records {shown}: the files it "
                  "read were changed after it ran (fix: run `dvc repro` and commit; a verdict is not edited by hand)")]


@dataclass(frozen=True)
class ConfiguredJudge:
    """The judge params ``judge`` configures, as the gate compares it with a snapshot's verdicts.

    ``name`` is what a verdict's identity text must contain to count as this judge's: ``fake`` for
    the fake judge, the model name for an OpenAI-compatible one (``openai`` when no model is set).
    Snapshots name their judge in free text (``judge.identity`` of each item), so this is a text
    match: it tells the fake judge from a served model, and one model from another, but not one
    fake preset from another (no snapshot records the preset).
    """

    name: str
    label: str

    @classmethod
    def from_params(cls, kind: str, preset: str, openai: dict | None) -> ConfiguredJudge:
        """``kind``/``preset``/``openai`` of params ``judge``."""
        if kind == "fake":
            return cls("fake", f"fake judge, preset {preset}")
        model = str((openai or {}).get("model") or "openai")
        return cls(model, f"openai-compatible judge, model {model}")

    def made(self, identities: list[str]) -> bool:
        """True when every identity names this judge (case-insensitive text match)."""
        return all(self.name.lower() in text.lower() for text in identities)


def _judge_row(name: str, identities: list[str] | None, judge: ConfiguredJudge | None) -> tuple[str, bool]:
    """The words naming the judge of a queue's verdicts, and whether that judge is not the configured one."""
    if identities is None:
        return f"; the judge of the verdicts in {name} is not recorded (run dvc repro review@{name})", False
    if not identities:
        return "; the snapshot does not name the judge that made its verdicts", False
    words = "; verdicts by " + " and ".join(repr(i) for i in identities)
    if judge is None or judge.made(identities):
        return words, False
    return words + f", not the configured judge ({judge.label}; params judge)", True


def review_agreement_checks(requirement: ReviewAgreement | None, reviews: dict[str, ReviewMetrics | None],
                            listed: list[str], unusable: dict[str, tuple[Status, str]] | None = None,
                            judges: dict[str, list[str] | None] | None = None,
                            configured: ConfiguredJudge | None = None) -> list[Check]:
    """Judge-versus-reviewers agreement from the review queues the plan names (none without a requirement).

    Args:
        requirement: the plan's ``review_agreement`` (``None``: the gate does not ask).
        reviews: queue name -> its metrics/review/NAME.json, ``None`` when absent.
        listed: ``review.snapshots`` (a queue not listed there has no review stage).
        unusable: queue name -> (status, why) when its metrics cannot be used: ``missing`` for a
            broken file or provenance, ``stale`` when the snapshot changed since.
        judges: queue name -> the identities of the judge that made its verdicts (the review
            provenance's ``judges``; ``None`` when not recorded, ``[]`` when the snapshot names none).
            The row names them; without ``judges`` (``None``) it names none and checks none.
        configured: the judge params configure; a row whose verdicts another judge made is
            ``stale`` (the agreement measured is not this judge's).

    Returns:
        One check per named queue, in the plan's order: ``missing`` (not listed, no metrics, or
        ``unusable``), ``stale`` (``unusable``: the snapshot changed; or the verdicts are another
        judge's than ``configured``), ``fail`` (a hard fill, nothing decided, or below the
        minimum) or ``pass``. ``value`` is the figure compared (the interval's lower bound by
        default), ``threshold`` the minimum.
    """
    from assay.queue.results import AgreementEvidence

    if requirement is None:
        return []
    checks = []
    minimum = requirement.min_agreement
    for name in requirement.queues:
        label = f"judge vs reviewers ({name})"
        metrics = reviews.get(name)
        if name not in listed:
            checks.append(Check(label, "missing", f"queue {name} is not in review.snapshots, so nothing measures it (fix: "
                                f"`assay queue export {name}`, add {name} to review.snapshots, run dvc repro)", None, minimum))
        elif metrics is None:
            checks.append(Check(label, "missing", f"{REVIEW.relpath(name=name)} not found: run dvc repro", None, minimum))
        elif unusable and name in unusable:
            status, why = unusable[name]
            checks.append(Check(label, status, why, None, minimum))
        else:
            evidence = AgreementEvidence.from_metrics(metrics)
            ok, why = evidence.supports(minimum, requirement.use)
            value = evidence.ci_low if requirement.use == "lower_bound" else evidence.agreement
            if metrics.synthetic:
                why += " (synthetic reviews: demo data, not people)"
            named, other = _judge_row(name, judges.get(name), configured) if judges is not None else ("", False)
            verdict: Status = "stale" if other else "pass" if ok else "fail"
            checks.append(Check(label, verdict, why + named, None if value != value else value, minimum))
    return checks


def freshness_checks(recorded: dict[str, dict[str, str]], current: dict[str, Callable[[], str]]) -> list[Check]:
    """Compare the input hashes recorded for each output with the current inputs.

    Args:
        recorded: output name -> its recorded ``{input name: hash}`` (empty maps are skipped).
        current: input name -> a function computing that input's current hash. A key
            ``"<output>:<name>"`` applies to that output only and wins over a plain ``"<name>"``
            (for inputs such as a version's answers file). Names neither form knows are not checked.

    Returns:
        One check per output that records known inputs: ``stale`` naming every changed input, else
        ``pass``. Each current hash is computed at most once.
    """
    cache: dict[str, str] = {}
    checks = []
    for fname, inputs in sorted(recorded.items()):
        known = {k: (f"{fname}:{k}" if f"{fname}:{k}" in current else k, v) for k, v in inputs.items()
                 if f"{fname}:{k}" in current or k in current}
        if not known:
            continue
        changed = []
        for k, (key, v) in sorted(known.items()):
            if key not in cache:
                cache[key] = current[key]()
            if cache[key] != v:
                changed.append(k)
        checks.append(Check(f"fresh {fname}", "stale" if changed else "pass",
                            f"changed since the last run: {', '.join(changed)}" if changed else "inputs unchanged"))
    return checks


def checks_table(checks: list[Check]) -> str:
    """The verdict table as fixed-width text (what ``assay gate`` prints)."""
    width = max([len(c.name) for c in checks] + [5])
    lines = [f"{'check':<{width}}  status   detail"]
    lines += [f"{c.name:<{width}}  {c.status:<7}  {c.detail}" for c in checks]
    return "\n".join(lines) + f"\n\nverdict: {VERDICTS[exit_code(checks)]}\n"


def checks_dict(checks: list[Check]) -> list[dict]:
    """Checks as plain dicts (for the report)."""
    return [asdict(c) for c in checks]
