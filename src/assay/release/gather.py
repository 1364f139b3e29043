"""Assembling the gate's inputs from a repository: params, plan, metrics, provenance, current input hashes.

Shared by the ``gate`` stage (which writes metrics/gate.json and reports/summary.md) and the
``assay gate`` command (which prints the table and sets the exit code), so both decide the same way.
The gate reads only the parts the project uses (params ``parts``): without ``judge`` there is no
agreement or calibration row, without ``queue`` no review row. The human relevance study is never a
gate row: it has its own verdict (``assay study verdict``) and exit code, so a study waiting for people
cannot block a release.
A params or plan file that does not validate, and a metrics file that is absent or broken, become
``missing`` checks (exit 2): the inputs are unusable, which is not the same as a threshold unmet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ConfigDict

from assay.artifacts.base import Artifact, BrokenArtifact
from assay.artifacts.provenance import Provenance
from assay.artifacts.queue import ReviewMetrics
from assay.artifacts.registry import (AGREEMENT, BIAS, CALIBRATION, COMPARE, CORRECTED, DATASET, METRICS, PROVENANCE, RAG, REVIEW,
                                      SENSITIVITY, provenance_stage)
from assay.core.errors import AssayError
from assay.queue.snapshot import ReviewParams
from assay.release.detectable import threshold_checks
from assay.release.checks import (Check, GateParams, Status, calibration_consistency, freshness_checks, judge_checks, metric_checks,
                                  ConfiguredJudge, review_agreement_checks)

if TYPE_CHECKING:
    from assay.data.plan import Plan
    from assay.release.rule import Look, MetricDecision
    from assay.judge.usability import UsabilityRule
    from assay.stats.power import ThresholdCheck


M = TypeVar("M", bound=BaseModel)


class Versions(BaseModel):
    """The ``compare`` section: which versions the gate decides between."""

    model_config = ConfigDict(extra="ignore")
    baseline: str = "baseline"
    candidate: str = "candidate"


@dataclass
class Evidence:
    """What the gate read: metrics by file, provenance by file, plan problems, version names.

    ``candidate_source_sha256`` is the hash of the candidate's ``source`` that ``evaluate@<candidate>``
    recorded in its provenance (``inputs.source``), ``None`` when that provenance is absent or older
    than the field. The freshness checks compare it with the file as it is now, so when the gate
    reaches a verdict (nothing stale) it is the hash of the source in use. ``thresholds`` is what
    the holdout can detect per blocking metric (:func:`assay.release.detectable.threshold_checks`),
    ``None`` when the plan could not be read.

    ``dataset_hash`` (the dataset stage's provenance; ``None`` without it) names the holdout and
    ``candidate_id`` (:func:`assay.release.ledger.candidate_hash`) the candidate; ``look`` is where the
    candidate stands on the holdout's error budget (read from the ledger, this candidate included),
    ``None`` when the params or plan could not be read. ``decisions``: how each blocking holdout metric
    was read (:func:`assay.release.rule.decide`), for the summary.
    """

    metrics: dict[str, BaseModel | None] = field(default_factory=dict)
    provenance: dict[str, Provenance] = field(default_factory=dict)
    plan_problems: list[str] = field(default_factory=list)
    versions: Versions = field(default_factory=Versions)
    params: GateParams = field(default_factory=GateParams)
    candidate_settings: dict[str, object] = field(default_factory=dict)
    candidate_source_sha256: str | None = None
    broken: set[str] = field(default_factory=set)
    stages: dict[str, str] = field(default_factory=dict)
    reviews: dict[str, ReviewMetrics | None] = field(default_factory=dict)
    review_queues: list[str] = field(default_factory=list)
    review_use: str = "lower_bound"
    review_minimum: float | None = None
    parts: tuple[str, ...] = ()
    thresholds: list[ThresholdCheck] | None = None
    dataset_hash: str | None = None
    candidate_id: str | None = None
    look: Look | None = None
    decisions: list[MetricDecision] = field(default_factory=list)

    def metric(self, artifact: Artifact[M], **fields: str) -> M | None:
        """The metrics file ``artifact`` (``fields`` fill its path) as its model; ``None`` when it is
        absent, broken or was not read (the gate records those as ``missing`` checks)."""
        value = self.metrics.get(artifact.relpath(**fields))
        return value if isinstance(value, artifact.model) else None


#: metrics files that only the judge part writes
JUDGE_METRICS = (AGREEMENT, BIAS, CALIBRATION, SENSITIVITY)


def _targets(versions: Versions, parts: tuple[str, ...]) -> list[tuple[Artifact, dict]]:
    out: list[tuple[Artifact, dict]] = []
    for artifact in METRICS:
        if artifact in JUDGE_METRICS and "judge" not in parts:
            continue
        if artifact is CORRECTED and not {"judge", "queue"} <= set(parts):  # the ppi stage needs both parts
            continue
        if artifact is RAG:
            out += [(RAG, {"version": versions.baseline}), (RAG, {"version": versions.candidate})]
        else:
            out.append((artifact, {}))
    return out


def gather(root: str | Path = ".") -> tuple[list[Check], Evidence]:
    """All gate checks for the repository at ``root`` and the evidence they read."""
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.data.plan import load_plan, plan_problems
    from assay.pipeline.parts import project_parts
    from assay.rag.runner import RagParams

    from assay.release.params_check import check_params

    base = Path(root)
    params_file = base / "params.yaml"
    ev = Evidence()
    problems = check_params(params_file)
    if problems:  # a typo key is refused even when DVC thinks nothing changed
        return [Check("params", "missing", str(p)) for p in problems], ev
    try:
        ev.parts = project_parts(params_file)
        ev.params = load_section("gate", GateParams, params_file)
        ev.versions = load_section("compare", Versions, params_file)
        plan = load_plan(base / input_paths(params_file).plan, ev.parts)  # checked whole: the gate never meets a metric no stage computes
        rag = load_section("rag", RagParams, params_file)
        if ev.versions.candidate in rag.versions:
            ev.candidate_settings = rag.versions[ev.versions.candidate].identity()
    except AssayError as error:
        return [Check("inputs", "missing", f"params or plan unusable: {error}")], ev
    ev.plan_problems = plan_problems(plan)
    checks: list[Check] = []
    for artifact, fields in _targets(ev.versions, ev.parts):
        name = artifact.relpath(**fields)
        try:
            ev.metrics[name] = artifact.read_optional(base, **fields)
            prov = PROVENANCE.read_optional(base, stage=provenance_stage(artifact, **fields))
        except BrokenArtifact as error:
            checks.append(Check(f"read {name}", "missing", str(error)))
            ev.metrics[name] = None
            ev.broken.add(name)
            continue
        if ev.metrics[name] is not None and prov is None:
            stage = artifact.stage.format(**fields)
            checks.append(Check(f"read {name}", "missing", f"its provenance file is missing: run `dvc repro -f {stage}`"))
        if prov is not None:
            ev.provenance[name] = prov
            ev.stages[name] = provenance_stage(artifact, **fields)
    cand_prov = ev.provenance.get(RAG.relpath(version=ev.versions.candidate))
    ev.candidate_source_sha256 = cand_prov.inputs.get("source") if cand_prov else None
    ev.look = _look(base, ev)
    checks += metric_checks(plan, ev.metric(RAG, version=ev.versions.candidate), ev.metric(COMPARE), ev.versions.candidate,
                            ev.metric(CORRECTED), ev.look.level, ev.decisions)
    if "judge" in ev.parts:
        cal_prov = ev.provenance.get(CALIBRATION.relpath())
        reasons = cal_prov.details.get("reasons") if cal_prov else None
        checks += judge_checks(ev.params, ev.metric(AGREEMENT), ev.metric(CALIBRATION), reasons)
        checks += calibration_consistency(ev.metric(CALIBRATION), reasons, _judge_rule(params_file))
    unusable = _read_reviews(base, plan, ev)
    fresh = _freshness(base, ev)
    for name in ev.review_queues:
        row = next((c for c in fresh if c.name == f"fresh {provenance_stage(REVIEW, name=name)}"), None)
        if row is not None and row.status == "stale" and name not in unusable:
            unusable[name] = ("stale", f"{ReviewParams().path(name)} changed since {REVIEW.relpath(name=name)} was computed: "
                              "run dvc repro")
    listed = _listed_snapshots(params_file) if "queue" in ev.parts else []
    judges = {name: _review_judges(ev, name) for name in ev.review_queues}
    checks += review_agreement_checks(plan.review_agreement, ev.reviews, listed, unusable, judges,
                                      _configured_judge(params_file))
    checks += _version_check(base)
    checks += _missing_files(ev)
    checks += fresh
    checks += [Check("plan", "warn", problem) for problem in ev.plan_problems]
    ev.thresholds = threshold_checks(plan, ev.metric(RAG, version=ev.versions.candidate))
    checks += [Check(f"detectable change in {t.name}", "warn", t.warning, t.detectable, t.margin)
               for t in ev.thresholds if t.warning]
    return checks, ev


def _look(base: Path, ev: Evidence) -> Look:
    """The candidate's look on the holdout (:func:`assay.release.ledger.current_look`); fills ``dataset_hash``
    and ``candidate_id``. Without a dataset hash nothing was recorded on this holdout: look 1."""
    from assay.release.ledger import LEDGER, candidate_hash, current_look, read_ledger
    from assay.release.rule import Look

    prov = ev.provenance.get(DATASET.relpath())
    ev.dataset_hash = str(prov.details["dataset_hash"]) if prov and "dataset_hash" in prov.details else None
    ev.candidate_id = candidate_hash(ev.candidate_settings, ev.candidate_source_sha256)
    index = current_look(read_ledger(base / LEDGER), ev.candidate_id, ev.dataset_hash) if ev.dataset_hash else 1
    return Look.at(ev.params.alpha, index)


def _judge_rule(params_file: Path) -> UsabilityRule | None:
    """The usability rule of params ``judge`` (None when the section does not load: check_params reported it)."""
    from assay.core.params import load_section
    from assay.judge.params import JudgeParams

    try:
        return load_section("judge", JudgeParams, params_file).rule
    except AssayError:
        return None


def _configured_judge(params_file: Path) -> ConfiguredJudge | None:
    """The judge params ``judge`` configures (None when the section does not load: check_params reported it)."""
    from assay.core.params import load_section
    from assay.judge.params import JudgeParams

    try:
        judge = load_section("judge", JudgeParams, params_file)
    except AssayError:
        return None
    return ConfiguredJudge.from_params(judge.kind, judge.preset, judge.openai)


def _review_judges(ev: Evidence, name: str) -> list[str] | None:
    """The review provenance's ``judges`` for queue ``name``; None when the provenance or the key is absent."""
    prov = ev.provenance.get(REVIEW.relpath(name=name))
    judges = prov.details.get("judges") if prov else None
    return [str(j) for j in judges] if isinstance(judges, list) else None


def _listed_snapshots(params_file: Path) -> list[str]:
    from assay.core.params import load_section

    return load_section("review", ReviewParams, params_file).snapshots


def _signature_problem(path: Path) -> str | None:
    """Why the snapshot at ``path`` is not signed as it is (:mod:`assay.queue.signature`); None when it is or is absent."""
    from assay.queue.signature import SignatureProblem
    from assay.queue.snapshot import read_snapshot

    if not path.is_file():
        return None  # the freshness checks name a missing snapshot
    try:
        read_snapshot(path)
    except SignatureProblem as error:
        return str(error)
    except AssayError:
        return None  # a broken snapshot fails its review stage, which the gate reports as stale or missing
    return None


def _read_reviews(base: Path, plan: Plan, ev: Evidence) -> dict[str, tuple[Status, str]]:
    """Read metrics/review/NAME.json and its provenance for each queue the plan's requirement names.

    Fills ``ev.reviews`` (``None`` when absent or broken), and ``ev.provenance``/``ev.stages`` so the
    freshness check covers the snapshots. Returns the queues whose metrics are unusable, and why.
    """
    unusable: dict[str, tuple[Status, str]] = {}
    if plan.review_agreement is None:
        return unusable
    ev.review_queues = list(plan.review_agreement.queues)
    ev.review_use, ev.review_minimum = plan.review_agreement.use, plan.review_agreement.min_agreement
    for name in ev.review_queues:
        stage = provenance_stage(REVIEW, name=name)
        try:
            ev.reviews[name] = REVIEW.read_optional(base, name=name)
            prov = PROVENANCE.read_optional(base, stage=stage)
        except BrokenArtifact as error:
            ev.reviews[name] = None
            unusable[name] = ("missing", str(error))
            continue
        if ev.reviews[name] is not None and prov is None:
            unusable[name] = ("missing", f"its provenance file is missing: run `dvc repro -f review@{name}`")
        if (unsigned := _signature_problem(base / ReviewParams().path(name))) is not None:
            unusable[name] = ("missing", unsigned)
        if prov is not None:
            key = REVIEW.relpath(name=name)
            ev.provenance[key], ev.stages[key] = prov, stage
    return unusable


def _version_check(base: Path) -> list[Check]:
    """A project that pins another assay version than the installed one: its outputs cannot be trusted (stale)."""
    from assay import __version__
    from assay.core.pin import PIN_FILE, pinned_version

    pinned = pinned_version(base)
    if pinned is None or pinned == __version__:
        return []
    return [Check("assay version", "stale", f"{PIN_FILE} pins {pinned}, assay {__version__} is installed (fix: "
                                            f"`pip install -r {PIN_FILE}`, or change the pin and run dvc repro)")]


def _missing_files(ev: Evidence) -> list[Check]:
    """Every metrics file the pipeline should have written and did not is a missing check."""
    return [Check(f"read {name}", "missing", "not found: run dvc repro") for name, value in sorted(ev.metrics.items())
            if value is None and name not in ev.broken]


def _freshness(base: Path, ev: Evidence) -> list[Check]:
    from assay.release.input_hashes import current_inputs, recorded_first

    recorded = {ev.stages[name]: prov.inputs for name, prov in ev.provenance.items()}
    current = recorded_first(recorded, {key: _guard(fn) for key, fn in current_inputs(base).items()})
    checks = freshness_checks(recorded, current)
    cal = ev.provenance.get(CALIBRATION.relpath())
    if cal is not None:
        checks += calibration_freshness(base, cal, current["labels"])
    return checks


def _guard(fn: Callable[[], str]) -> Callable[[], str]:
    """An input that no longer validates counts as changed rather than crashing the gate."""
    def call() -> str:
        try:
            return fn()
        except (AssayError, OSError) as error:
            return f"invalid: {error}"
    return call


def calibration_freshness(base: Path, record: Provenance, labels: Callable[[], str] | None = None) -> list[Check]:
    """Whether the calibration still matches the prompt, judge settings and labels in use.

    ``labels`` gives the current label set's hash (the freshness checks' own, so the pairs are not
    read twice); ``None`` computes it from the pairs file.
    """
    from assay.release.judge_staleness import current_staleness

    from assay.judge.calibration_record import CalibrationIdentity

    try:
        identity = CalibrationIdentity.parse(record.settings, PROVENANCE.relpath(stage=provenance_stage(CALIBRATION)))
        changed = current_staleness(identity, base, labels=labels)
    except AssayError as error:
        changed = [f"cannot check ({error})"]
    return [Check("fresh judge calibration", "stale" if changed else "pass",
                  "changed since calibration: " + ", ".join(changed) if changed else "prompt, judge and labels unchanged")]
