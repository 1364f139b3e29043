"""Every file the pipeline writes, by the stage that writes it: path template and content model.

The one import point: the metrics and provenance files are declared here, every other output
(reports, plot data, derived tables, folders) in :mod:`assay.artifacts.outputs` and re-exported.
Readers and writers use these objects, never a path or a metrics key spelled as a string:
``CALIBRATION.read(root).usable``, ``RAG.write(record, version="candidate")``,
``CALIBRATION_PAGE.write(text)``. The gate's list of metrics files is :data:`METRICS`; the plan's
metric names are validated against :data:`PLAN_METRIC_NAMES`; :data:`DECLARED` lists every
declaration, and tests/test_artifact_homes.py checks it against dvc.yaml both ways and refuses a
path under ``metrics/``, ``reports/`` or ``data/derived/`` spelled outside the registry's modules.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.artifacts.base import M, Artifact
from assay.artifacts import outputs
from assay.artifacts.outputs import (  # noqa: F401 (re-exported: the registry is the one import point)
    BIAS_PAGE, CALIBRATION_PAGE, CASES_TABLE, CORRECTED_PAGE, CORRECTED_PLOT, COMPARE_REPORT, CONFUSION_ANNOTATORS,
    CONFUSION_JUDGE, COVERAGE_PAGE,
    DISAGREEMENTS, GATE_REPORT, HOLDOUT_LEDGER, JUDGE_DIMENSIONS, JUDGE_COMPARE_IDENTITY, JUDGE_COMPARE_REPLIES,
    JUDGE_COMPARE_REPLY_FILE, JUDGE_IDENTITY, JUDGE_PAGE, JUDGE_REPLIES,
    JUDGE_REPLY_FILE, LEAKAGE_REPORT, PASS_BY_TASK, PLAN_PAGE, RETRIEVAL_PER_QUERY, RETRIEVAL_PLOT, RETRIEVAL_PLOTS,
    RETRIEVAL_PROVENANCE, RETRIEVAL_RUN, RETRIEVAL_RUNS, RETRIEVAL_RUNTIME, RETRIEVAL_SUMMARY, REVIEW_PAGE,
    RUN_TABLE, RUN_TABLES, SENSITIVITY_PAGE, SYSTEM_REPLIES, SPLIT_TABLE, STUDY_EVALUATION, STUDY_RECORD, STUDY_RECORDS, SUMMARY_PAGE,
    TRAINING_PREFERENCES, TRAINING_ROWS,
    VERDICT_PAGE,
)
from assay.artifacts.corrected import GATED, CorrectedMetrics
from assay.artifacts.data import DatasetMetrics, LeakageMetrics, PlanMetrics, SplitMetrics
from assay.artifacts.estimate import Estimate
from assay.artifacts.files import FILE_KINDS
from assay.artifacts.gateable import Gateable, gateable_fields
from assay.artifacts.judge import (AgreementMetrics, BiasMetrics, CalibrationMetrics, JudgeClientMetrics, JudgeRunMetrics,
                                   SensitivityMetrics)
from assay.artifacts.provenance import Provenance
from assay.artifacts.queue import ReviewIndex, ReviewMetrics, TrainingMetrics
from assay.artifacts.relevance import ModeComparison, ModeMetrics
from assay.artifacts.rag import CompareMetrics, HeadlineMetrics, RagMetrics, SideMetrics
from assay.artifacts.release import GateMetrics
from assay.artifacts.study import VerdictMetrics

PLAN = Artifact("metrics/plan.json", PlanMetrics, "plan")
DATASET = Artifact("metrics/dataset.json", DatasetMetrics, "validate")
SPLIT = Artifact("metrics/split.json", SplitMetrics, "split")
LEAKAGE = Artifact("metrics/leakage.json", LeakageMetrics, "leakage")
AGREEMENT = Artifact("metrics/agreement.json", AgreementMetrics, "agreement")
JUDGE = Artifact("metrics/judge.json", JudgeRunMetrics, "judge")
#: Not committed and not a DVC output (.assay/ is git-ignored): cache hits and HTTP attempts differ
#: between a run that asked the server and one the response cache answered.
JUDGE_CLIENT = Artifact(".assay/judge_client.json", JudgeClientMetrics, "judge", dvc=False)
#: The judge's comparison of the baseline's and the candidate's answers (same counts as metrics/judge.json).
JUDGE_COMPARE = Artifact("metrics/judge_compare.json", JudgeRunMetrics, "judge_compare")
#: Judge-only, human-only and judge-corrected (PPI) estimates of the candidate against the baseline.
CORRECTED = Artifact("metrics/ppi.json", CorrectedMetrics, "ppi")
BIAS = Artifact("metrics/bias.json", BiasMetrics, "probe")
CALIBRATION = Artifact("metrics/calibration.json", CalibrationMetrics, "calibrate")
SENSITIVITY = Artifact("metrics/sensitivity.json", SensitivityMetrics, "sensitivity")
RAG = Artifact("metrics/rag/{version}.json", RagMetrics, "evaluate@{version}")
COMPARE = Artifact("metrics/compare.json", CompareMetrics, "compare")
HEADLINE = Artifact("metrics/headline.json", HeadlineMetrics, "compare")
GATE = Artifact("metrics/gate.json", GateMetrics, "gate")
REVIEW = Artifact("metrics/review/{name}.json", ReviewMetrics, "review@{name}")
TRAINING = Artifact("metrics/training.json", TrainingMetrics, "training")
#: Keeps metrics/review (a dependency of the gate) present while review.snapshots is empty.
REVIEW_INDEX = Artifact("metrics/review/.snapshots.json", ReviewIndex, "training")
RETRIEVAL_MODE = Artifact("metrics/relevance/{mode}.json", ModeMetrics, "score_retrieval")
MODE_COMPARISON = Artifact("metrics/relevance/comparison.json", ModeComparison, "score_retrieval")
#: The human relevance study's verdict; the gate reads it only when the plan asks for it.
RELEVANCE_VERDICT = Artifact("metrics/relevance/verdict.json", VerdictMetrics, "study_verdict")

#: Every metrics file except the gate's own, in pipeline order (the gate reads these).
METRICS: tuple[Artifact, ...] = (PLAN, DATASET, SPLIT, LEAKAGE, AGREEMENT, BIAS, CALIBRATION, SENSITIVITY, RAG, COMPARE,
                                 CORRECTED)

#: The per-stage provenance files; ``{stage}`` is the stage name (``evaluate_<version>`` for a version).
PROVENANCE = Artifact("reports/provenance/{stage}.json", Provenance, "{stage}")

#: Every declaration: the metrics and provenance files above and every output of :mod:`assay.artifacts.outputs`.
DECLARED: tuple = (*(value for value in globals().values() if isinstance(value, Artifact)),
                   *(value for name, value in vars(outputs).items() if name.isupper() and isinstance(value, FILE_KINDS)))

#: The estimates of one side of a version's run (what the summary tabulates per version).
METRIC_NAMES: tuple[str, ...] = tuple(name for name, field in SideMetrics.model_fields.items()
                                      if field.annotation is Estimate)


@dataclass(frozen=True)
class PlanMetric:
    """A metric a plan may name: its :class:`~assay.artifacts.gateable.Gateable` mark (family, range) and
    the metrics file that holds it, whose ``stage`` computes it (``evaluate`` for a version's figures)."""

    name: str
    mark: Gateable
    artifact: Artifact

    @property
    def stage(self) -> str:
        """The stage that computes it, without a ``foreach`` key (``evaluate@{version}`` -> ``evaluate``)."""
        return self.artifact.stage.split("@")[0]


#: Every metric a plan may name, from the marks on the fields that hold them: a version's estimates
#: (:class:`SideMetrics`, metrics/rag/<version>.json) and the judge-corrected figures of metrics/ppi.json
#: (:data:`assay.artifacts.corrected.GATED`, plan name -> field).
PLAN_METRICS: dict[str, PlanMetric] = {
    **{name: PlanMetric(name, mark, RAG) for name, mark in gateable_fields(SideMetrics).items()},
    **{name: PlanMetric(name, gateable_fields(CorrectedMetrics)[field], CORRECTED) for name, field in GATED.items()},
}
#: Metric names a plan may gate on: :data:`METRIC_NAMES` and the judge-corrected figures of metrics/ppi.json.
PLAN_METRIC_NAMES: tuple[str, ...] = tuple(PLAN_METRICS)


def provenance_stage(artifact: Artifact, **fields: str) -> str:
    """The provenance file's ``stage`` field for a metrics artifact (``evaluate@baseline`` -> ``evaluate_baseline``)."""
    return artifact.stage.format(**fields).replace("@", "_")


def write_record(artifact: Artifact[M], metrics: M, prov: Provenance, root: str = ".", **fields: str) -> None:
    """Write a stage's metrics and its provenance file (``reports/provenance/<stage>.json``)."""
    artifact.write(metrics, root, **fields)
    PROVENANCE.write(prov, root, stage=provenance_stage(artifact, **fields))
