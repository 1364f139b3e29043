"""Every file the pipeline writes, declared once: its path, the pydantic model of its content and
the stage that writes it (:mod:`assay.artifacts.registry`, the one import point; metrics and
provenance there, reports, plot data, derived tables and folders in :mod:`assay.artifacts.outputs`,
the kinds of declaration in :mod:`assay.artifacts.files`).

Metrics files hold numbers only (DVC diffs numbers; booleans are 0/1); hashes, names, settings,
statuses and reasons go to the stage's provenance file under ``reports/provenance/``. Nobody
spells a metrics key as a string outside this package: writers build the models, readers get typed
fields.
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.artifacts.registry": ["provenance_stage", "write_record"],
    "assay.artifacts.data": ["LeakageMetrics", "PlanMetrics", "SplitMetrics"],
    "assay.artifacts.judge": ["AgreementMetrics", "BiasMetrics", "JudgeClientMetrics", "JudgeRunMetrics"],
    "assay.artifacts.rag": ["HeadlineMetrics"],
    "assay.artifacts.queue": ["ReviewMetrics", "TrainingMetrics"],
    "assay.artifacts.relevance": ["ModeComparison", "ModeMetrics"],
    "assay.artifacts.release": ["GateMetrics"],
    "assay.artifacts.study": ["VerdictMetrics"],
})
