"""The evaluation plan as validated data, and the check that says what it leaves unguarded.

``data/plan.yaml`` holds the task, the failures (each with its cost, who is harmed and the metric
that shows it), the metrics (family, gate block/report, threshold, direction, no_regression), the
dataset reference and the release rule in words. :func:`plan_problems` lists what the plan misses:

- a metric name the pipeline does not measure (with the closest known name);
- a metric filed under another family than the one it measures (:data:`METRIC_FAMILIES`);
- a blocking metric without a threshold;
- a failure that names a metric the plan does not define;
- no correctness metric, or no groundedness metric;
- a high-cost failure that no blocking metric guards.

:func:`plan_errors` (run by :func:`load_plan`) refuses what the gate could never decide: a blocking or
no-regression metric no stage computes, a metric of a part the project does not use, a threshold
outside its metric's range.
"""

from __future__ import annotations

import math
from pathlib import Path
from collections.abc import Iterable
from typing import Any, Literal, TypeVar

from pydantic import ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from assay.artifacts.registry import PLAN_METRICS
from assay.core.fmt import md_code, md_paragraphs, md_words
from assay.core.confinement import PlainName, ProjectPath
from assay.core.errors import InputError, Problem
from assay.core.io import read_yaml
from assay.core.records import problems_from
from assay.core.records import InputModel

# The values a metric of each family can take, so a threshold outside them (which every value would
# meet, or none) is refused: every family but latency is a share of cases in [0, 1]; latency is a
# duration (milliseconds in the demo), at least 0 and unbounded above.
FAMILY_RANGES: dict[str, tuple[float, float]] = {
    **dict.fromkeys(("retrieval", "groundedness", "correctness", "format", "tool_use"), (0.0, 1.0)),
    "latency": (0.0, math.inf),
}


#: The family each measured metric belongs to: a plan filing ``tool_permission`` under ``format``
#: (or ``format_ok`` under ``tool_use``) would read the wrong family as guarded. Read from the marks on
#: the fields that hold them (:data:`assay.artifacts.registry.PLAN_METRICS`); a figure of any family
#: (the judge-corrected ones) is not listed.
METRIC_FAMILIES: dict[str, str] = {name: m.mark.family for name, m in PLAN_METRICS.items() if m.mark.family}


class Failure(InputModel):
    """A way the assistant can fail, what it costs and the metric that shows it."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    cost: Literal["high", "medium", "low"]
    harmed: str = Field(min_length=1)
    metric: str = Field(min_length=1)


class Metric(InputModel):
    """A metric the plan tracks. ``threshold`` is the pass line in ``direction``; ``None`` only for report metrics.

    The threshold must lie in the family's range (:data:`FAMILY_RANGES`): a share in [0, 1], a latency >= 0.

    ``decide``: how a blocking check reads the holdout. ``bound`` (the default): the one-sided
    Clopper-Pearson bound at the gate's level (lower bound for ``direction: higher``, upper for
    ``lower``) must clear the threshold, so a candidate short of it passes with chance at most that
    level; metrics that are not a share of cases read the one-sided end of their own 95% interval.
    ``estimate``: the point estimate must meet it (the old rule; the summary prints its false-pass rate).

    ``no_regression`` asks that the candidate does not lose cases on this metric against the baseline
    (paired holdout cases). ``max_regression`` (a share of paired cases, default 0) is how much it may
    lose: above 0 the check passes when the one-sided upper bound of the regression rate (cases pass
    -> fail over paired cases) is at most it (``regression_rule: bound``); at 0 no bound can show a
    zero rate, so the check is the **per-case rule**, no case went from pass to fail
    (``regression_rule: per_case``, the default there). ``regression_rule`` may name the rule, and must
    agree with ``max_regression``.

    ``min_n``: a blocking check on fewer cases than this fails as "too few cases".

    ``across_repeats``: how a share of cases is read when the candidate ran each case several times
    (``repeats`` in its version): ``all_runs`` (the default, pass^k: a case counts only when every
    run passes; the conservative reading for a release), ``mean_runs`` (the share of passing runs,
    decided on its cluster-robust interval) or ``any_run`` (pass@k: one passing run is enough;
    optimistic, for reports more than for a gate). Without repeats every reading is the same.
    """

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    family: Literal["retrieval", "groundedness", "correctness", "format", "tool_use", "latency"]
    gate: Literal["block", "report"]
    threshold: float | None = None
    direction: Literal["higher", "lower"] = "higher"
    no_regression: bool = False
    min_n: int = Field(default=10, ge=1)
    decide: Literal["bound", "estimate"] = "bound"
    max_regression: float = Field(default=0.0, ge=0, lt=1)
    regression_rule: Literal["bound", "per_case"] | None = None
    across_repeats: Literal["all_runs", "mean_runs", "any_run"] = "all_runs"
    description: str = ""

    @model_validator(mode="after")
    def _regression_rule_fits(self) -> Metric:
        rule, margin = self.regression_rule, self.max_regression
        if rule == "bound" and margin == 0:
            raise PydanticCustomError(
                "regression_rule", "regression_rule bound with max_regression 0 can never pass: an upper confidence bound "
                "of the regression rate is above 0 at every n", {"fix": "give max_regression a share above 0 (for "
                                                                        "example 0.02), or use regression_rule: per_case"})
        if rule == "per_case" and margin > 0:
            raise PydanticCustomError(
                "regression_rule", "regression_rule per_case allows no regressed case, so max_regression {margin} means "
                "nothing", {"margin": margin, "fix": "drop max_regression, or use regression_rule: bound"})
        if (margin > 0 or rule is not None) and not self.no_regression:
            raise PydanticCustomError(
                "regression_rule", "max_regression and regression_rule apply only to a no_regression metric",
                {"fix": "add no_regression: true to the metric, or drop max_regression and regression_rule"})
        return self

    @property
    def regression_test(self) -> Literal["bound", "per_case"]:
        """The no-regression rule in force: ``regression_rule`` when given, else ``per_case`` at
        ``max_regression`` 0 and ``bound`` above it."""
        return self.regression_rule or ("bound" if self.max_regression > 0 else "per_case")

    @field_validator("name")
    @classmethod
    def _not_judge_only(cls, value: str) -> str:
        from assay.artifacts.corrected import GATED, JUDGE_ONLY

        if value in JUDGE_ONLY:
            raise PydanticCustomError(
                "judge_only", "{value} is the judge's own estimate, biased by exactly the errors calibration measures "
                "(its interval does not know them), so the plan may not use it",
                {"value": value, "fix": f"use the judge-corrected figure ({', '.join(GATED)}: the lower bound of its "
                                        "PPI interval) from metrics/ppi.json"})
        return value

    @field_validator("threshold")
    @classmethod
    def _in_range(cls, value: float | None, info: ValidationInfo) -> float | None:
        family = info.data.get("family")
        if value is None or family not in FAMILY_RANGES:
            return value
        low, high = FAMILY_RANGES[family]
        if not low <= value <= high:  # nan fails both comparisons, so it is refused too
            span = f"[{low:g}, {high:g}]" if math.isfinite(high) else f"at least {low:g}"
            raise PydanticCustomError(
                "threshold_range", "threshold {value} is outside the range of a {family} metric, {span}",
                {"value": value, "family": family, "span": span,
                 "fix": f"give a threshold in {span}: one outside it is met by every value, or by none"})
        return value

    def meets(self, value: float | None) -> bool | None:
        """Whether ``value`` meets the threshold in the metric's direction; ``None`` when either is undefined."""
        if self.threshold is None or value is None or value != value:
            return None
        return value >= self.threshold if self.direction == "higher" else value <= self.threshold


class DatasetRef(InputModel):
    """Which case file the plan is evaluated on."""

    model_config = ConfigDict(extra="forbid")
    path: ProjectPath
    description: str = ""


class ReviewAgreement(InputModel):
    """The plan's optional ``review_agreement``: how often the judge must agree with people, per queue.

    ``queues`` names review snapshots (``data/reviews/NAME.jsonl``, listed in ``review.snapshots``);
    each must be a **random** fill, because only a uniform sample estimates the judge's overall
    agreement. ``min_agreement`` is the least agreement (over items both decided) the gate accepts.
    ``use``: ``lower_bound`` (the default, conservative, like the judge's usability rule) compares
    the lower end of the 95% Wilson interval, so 9 of 11 (0.818, lower bound 0.523) does not yet
    show 0.6; ``estimate`` compares the point estimate.
    """

    model_config = ConfigDict(extra="forbid")
    queues: list[PlainName] = Field(min_length=1)
    min_agreement: float = Field(ge=0, le=1)
    use: Literal["lower_bound", "estimate"] = "lower_bound"


class Plan(InputModel):
    """The whole evaluation plan (``data/plan.yaml``).

    ``review_agreement`` (optional): the judge-versus-people agreement the release requires from
    random-fill review queues (:class:`ReviewAgreement`); absent, the gate does not ask for it.
    The human relevance study is not part of the release rule: it has its own verdict
    (``assay study verdict``), so a plan that still says ``relevance_verdict`` is refused with that fix.
    """

    model_config = ConfigDict(extra="forbid")
    task: str = Field(min_length=1)
    dataset: DatasetRef
    failures: list[Failure] = Field(min_length=1)
    metrics: list[Metric] = Field(min_length=1)
    release_rule: str = Field(min_length=1)
    review_agreement: ReviewAgreement | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_study_in_the_gate(cls, data: Any) -> Any:
        if isinstance(data, dict) and "relevance_verdict" in data:
            raise ValueError("relevance_verdict: the release gate no longer reads the relevance study, which has its own "
                             "verdict and exit code (`assay study verdict`); delete relevance_verdict from the plan")
        return data

    def metric(self, name: str) -> Metric | None:
        """The metric called ``name``, or ``None``."""
        return next((m for m in self.metrics if m.name == name), None)


class PlanParams(InputModel):
    """params.yaml section ``plan``: whether problems fail the stage (the file is ``inputs.plan``)."""

    model_config = ConfigDict(extra="forbid")
    strict: bool = False


def plan_problems(plan: Plan) -> list[str]:
    """What the plan leaves unguarded, in words; an empty list means no problems.

    Order: unknown metric names, metrics filed under the wrong family, blocking metrics without
    threshold, failures naming unknown metrics, missing
    correctness/groundedness families, unguarded high-cost failures. A high-cost failure whose
    metric is unknown is reported once, as unknown.
    """
    from difflib import get_close_matches

    problems = []
    names = {m.name: m for m in plan.metrics}
    for m in plan.metrics:
        if m.name not in PLAN_METRICS:
            close = get_close_matches(m.name, PLAN_METRICS, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            problems.append(f"metric {m.name} is not one the pipeline measures ({hint}known: {', '.join(PLAN_METRICS)})")
    problems += [f"metric {m.name} is a {METRIC_FAMILIES[m.name]} metric, not {m.family} (fix its family in the plan)"
                 for m in plan.metrics if METRIC_FAMILIES.get(m.name, m.family) != m.family]
    for m in plan.metrics:
        if m.gate == "block" and m.threshold is None:
            problems.append(f"blocking metric {m.name} has no threshold")
    for f in plan.failures:
        if f.metric not in names:
            problems.append(f"failure '{f.name}' names unknown metric {f.metric} (known: {', '.join(sorted(names))})")
    families = {m.family for m in plan.metrics}
    for family in ("correctness", "groundedness"):
        if family not in families:
            problems.append(f"no {family} metric")
    for f in plan.failures:
        guard = names.get(f.metric)
        if f.cost == "high" and guard is not None and not (guard.gate == "block" and guard.threshold is not None):
            problems.append(f"high-cost failure '{f.name}' is not guarded by a blocking metric ({guard.name} is {guard.gate})")
    return problems


def plan_errors(plan: Plan, path: str | Path, parts: Iterable[str] | None = None) -> list[Problem]:
    """What makes a valid plan one the gate could never decide on, checked whole before anything runs.

    For each metric (:data:`assay.artifacts.registry.PLAN_METRICS` says which exist, their range and
    the stage that computes them):

    - one the gate reads (``gate: block`` or ``no_regression``) that no stage computes;
    - one computed by a stage the project's ``parts`` do not have (``ppi_win_rate`` without the
      ``queue`` part): the fix names the parts it needs;
    - a threshold outside the metric's own range (a rate above 1, a negative latency), whatever
      family the plan files it under.

    A report-only metric no stage computes stays a :func:`plan_problems` warning. ``parts``: the
    project's (params ``parts``); ``None`` checks against every part. Each problem names ``path``,
    the line of its field and the fix.
    """
    from difflib import get_close_matches

    from assay.pipeline.generate import parts_for_stage, pipeline_stages
    from assay.pipeline.parts import PARTS

    chosen = tuple(PARTS if parts is None else parts)
    stages = set(pipeline_stages(chosen))
    problems = []
    for i, m in enumerate(plan.metrics):
        known = PLAN_METRICS.get(m.name)
        if known is None:
            if m.gate == "block" or m.no_regression:
                close = get_close_matches(m.name, PLAN_METRICS, n=1)
                rule = "blocking" if m.gate == "block" else "no_regression"
                problems.append(Problem(str(path), None, f"metrics.{i}.name",
                                        f"{rule} metric {m.name!r} is computed by no stage, so the gate could never decide it"
                                        + (f" (did you mean {close[0]}?)" if close else ""),
                                        f"name one of {', '.join(PLAN_METRICS)}, or make it gate: report"))
            continue
        if known.stage not in stages:
            needed = parts_for_stage(known.stage) or ()
            adds = " ".join(f"`assay add {p}`" for p in needed if p not in chosen)
            problems.append(Problem(str(path), None, f"metrics.{i}.name",
                                    f"metric {m.name} is computed by the {known.stage} stage, which the project's parts "
                                    f"({', '.join(chosen)}) do not run",
                                    f"add the parts it needs ({', '.join(needed)}: {adds}), or remove the metric from "
                                    "the plan"))
        if m.threshold is not None and not known.mark.holds(m.threshold):
            span = known.mark.span()
            problems.append(Problem(str(path), None, f"metrics.{i}.threshold",
                                    f"threshold {m.threshold:g} is outside the range of {m.name}, {span}",
                                    f"give a threshold in {span}: one outside it is met by every value, or by none"))
    return [locate(p, Path(path)) for p in problems]


def load_plan(path: str | Path, parts: Iterable[str] | None = None) -> Plan:
    """Read and validate a plan YAML file, whole: its fields, then :func:`plan_errors` against ``parts``.

    ``parts``: the project's parts (params ``parts``); ``None`` checks against every part.

    Raises:
        InputError: YAML syntax errors, unknown keys, wrong types or values, a metric the gate reads
            that no stage (or no stage of ``parts``) computes, a threshold outside its metric's range;
            each naming the file, the line of the offending key where it can be found, the dotted
            field path and the fix.
    """
    plan = load_yaml_model(path, Plan, "expected a mapping with task, dataset, failures, metrics, release_rule",
                           "see data/plan.yaml in the README")
    if problems := plan_errors(plan, path, parts):
        raise InputError(problems)
    return plan


M = TypeVar("M", bound=InputModel)


def load_yaml_model(path: str | Path, model: type[M], expected: str, fix: str) -> M:
    """Read a YAML file holding one mapping and validate it into ``model``.

    Raises:
        InputError: YAML syntax; not a mapping (``expected`` and ``fix`` are that Problem's message
            and fix); every validation error, located to the line of its key (:func:`locate`).
    """
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError([Problem(str(path), None, None, expected, fix)])
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problems = problems_from(error, str(path), None, model)
        raise InputError([locate(p, Path(path)) for p in problems]) from None


def locate(problem: Problem, path: Path) -> Problem:
    """Add the YAML line of a dotted field path like ``metrics.2.gate`` (its closest existing parent)."""
    import yaml

    if not problem.field:
        return problem
    node = yaml.compose(path.read_text(encoding="utf-8"))
    line = None
    for part in problem.field.split("."):
        if isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if k.value == part), None)
            if found is None:
                break
            key, match = found
            line, node = key.start_mark.line + 1, match
        elif isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
            node = node.value[int(part)]
            line = node.start_mark.line + 1
        else:
            break
    return Problem(problem.path, line, problem.field, problem.message, problem.fix)


def _decided_on(m: Metric) -> str:
    """How a blocking metric's check reads the holdout, in the plan page's words."""
    if m.gate != "block":
        return "—"
    return "point estimate" if m.decide == "estimate" else f"one-sided {'lower' if m.direction == 'higher' else 'upper'} bound"


def _regression_words(m: Metric) -> str:
    """The no-regression rule, in the plan page's words."""
    if not m.no_regression:
        return "no"
    if m.regression_test == "per_case":
        return "per case (no case from pass to fail)"
    return f"regression rate at most {m.max_regression:g} (upper bound)"


def plan_markdown(plan: Plan, problems: list[str]) -> str:
    """The plan and its problems as a page a person reads."""
    lines = ["# Evaluation plan", "", md_paragraphs(plan.task), "",
             f"Dataset: {md_code(plan.dataset.path)}. {md_paragraphs(plan.dataset.description)}".rstrip(), "",
             "## Failures", "", "| cost | failure | harmed | metric |", "|---|---|---|---|"]
    lines += [f"| {md_words(f.cost)} | {md_words(f.name)} | {md_words(f.harmed)} | {md_words(f.metric)} |" for f in plan.failures]
    lines += ["", "## Metrics", "", "| metric | family | gate | threshold | direction | decided on | no regression |",
              "|---|---|---|---:|---|---|---|"]
    lines += [f"| {md_words(m.name)} | {md_words(m.family)} | {md_words(m.gate)} | "
              f"{'—' if m.threshold is None else m.threshold} | {m.direction} | {_decided_on(m)} | "
              f"{_regression_words(m)} |" for m in plan.metrics]
    lines += ["", "## Release rule", "", md_paragraphs(plan.release_rule), ""]
    if (r := plan.review_agreement) is not None:
        bound = "the lower end of its 95% interval" if r.use == "lower_bound" else "its point estimate"
        lines += ["## Judge agreement with reviewers", "",
                  f"The judge must agree with the reviewers on at least {r.min_agreement:g} of the items both decided, "
                  f"read on {bound}, in each random-fill review queue: {', '.join(md_words(q) for q in r.queues)}. "
                  "A hard-fill queue is never accepted as this evidence.", ""]
    lines += ["## Problems", ""]
    lines += [f"- {md_words(p)}" for p in problems] or [
        "None: every failure names a known metric and every high-cost failure is guarded by a blocking metric."]
    return "\n".join(lines) + "\n"
