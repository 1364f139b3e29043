"""Every file the pipeline writes that is not a metrics or provenance file: reports (JSON, JSONL,
CSV, Markdown), plot data, derived tables and folders, by the stage that writes them.

Import them from :mod:`assay.artifacts.registry` (the one import point). A declaration with
``dvc=False`` is not itself a DVC output: it lives inside a declared output folder, or is not
committed. Content models: pydantic models with ``extra="forbid"`` (:mod:`assay.artifacts.reports`,
:mod:`assay.artifacts.rows`); a field whose shape is genuinely open (a user's judge identity, a study
step's counts) is a JSON object inside an otherwise typed model.
"""

from __future__ import annotations

from assay.artifacts.files import CsvFile, Folder, JsonFile, JsonlFile, TableFile, TextFile
from assay.artifacts.reports import (CompareReport, GateReport, JudgeIdentityFile, LeakageReport, RetrievalProvenance,
                                     RetrievalRuntime, StudyRecord)
from assay.artifacts.rows import (ChatExample, DimensionRow, DisagreementRow, LedgerRow, PreferenceExample,
                                  StoredReply, SystemReplyRow)

# plan, validate, split, leakage
PLAN_PAGE = TextFile("reports/plan.md", "plan")
COVERAGE_PAGE = TextFile("reports/coverage.md", "validate")
#: the validated cases (schema: :func:`assay.data.cases.cases_table`)
CASES_TABLE = TableFile("data/derived/cases.parquet", "validate")
#: the split by case id (schema: :func:`assay.data.split.split_table`)
SPLIT_TABLE = TableFile("data/derived/split.parquet", "split")
#: built by :func:`assay.data.leakage.report.leakage_report`
LEAKAGE_REPORT = JsonFile("reports/leakage.json", LeakageReport, "leakage")

# agreement and the judge
DISAGREEMENTS = JsonlFile("reports/disagreements.jsonl", DisagreementRow, "agreement")
CONFUSION_ANNOTATORS = CsvFile("reports/plots/confusion_annotators.csv", "agreement", ("ann1", "ann2"))
#: the judge's stored replies, committed so probe, calibrate and sensitivity replay them
JUDGE_REPLIES = Folder("data/derived/judge", "judge")
#: the judge's identity before any reply (inside :data:`JUDGE_REPLIES`); its ``judge`` object is open (a user's
#: judge class names its own identity keys)
JUDGE_IDENTITY = JsonFile("data/derived/judge/judge.json", JudgeIdentityFile, "judge", dvc=False)
#: the replies to one prompt version, ``{prompt}`` like ``pairwise_v1`` (see :mod:`assay.judge.replies`)
JUDGE_REPLY_FILE = JsonlFile("data/derived/judge/{prompt}.jsonl", StoredReply, "judge", dvc=False)
JUDGE_PAGE = TextFile("reports/judge.md", "judge")
BIAS_PAGE = TextFile("reports/bias.md", "probe")
CALIBRATION_PAGE = TextFile("reports/calibration.md", "calibrate")
JUDGE_DIMENSIONS = JsonlFile("reports/judge_dimensions.jsonl", DimensionRow, "calibrate")
CONFUSION_JUDGE = CsvFile("reports/plots/confusion_judge.csv", "calibrate", ("final", "judge"))
SENSITIVITY_PAGE = TextFile("reports/sensitivity.md", "sensitivity")
#: the judge's stored comparisons of the baseline's and the candidate's answers (replayed by ``ppi``)
JUDGE_COMPARE_REPLIES = Folder("data/derived/judge_compare", "judge_compare")
#: the comparing judge's identity before any reply (inside :data:`JUDGE_COMPARE_REPLIES`; ``judge`` open as above)
JUDGE_COMPARE_IDENTITY = JsonFile("data/derived/judge_compare/judge.json", JudgeIdentityFile, "judge_compare", dvc=False)
#: its replies to one prompt version, ``{prompt}`` like ``pairwise_v2``
JUDGE_COMPARE_REPLY_FILE = JsonlFile("data/derived/judge_compare/{prompt}.jsonl", StoredReply, "judge_compare", dvc=False)

# evaluate, compare, gate
#: one row per case, sorted by id (schema: :func:`assay.rag.runner.results_table`)
RUN_TABLE = TableFile("data/derived/runs/{version}.parquet", "evaluate@{version}")
#: the replies of a system assay calls (callable, http), replayed by later runs and by verify; empty for
#: the reference system and an answers file, whose replies are computed or read, never asked
SYSTEM_REPLIES = JsonlFile("data/derived/replies/{version}.jsonl", SystemReplyRow, "evaluate@{version}")
#: the folder of every version's run table (hashed by the gate's input check)
RUN_TABLES = Folder("data/derived/runs", "evaluate", dvc=False)
COMPARE_REPORT = JsonFile("reports/compare.json", CompareReport, "compare")
PASS_BY_TASK = CsvFile("reports/plots/pass_by_task_{side}.csv", "compare", ("task", "pass_rate", "n"))
SUMMARY_PAGE = TextFile("reports/summary.md", "gate")
GATE_REPORT = JsonFile("reports/gate.json", GateReport, "gate")
CORRECTED_PAGE = TextFile("reports/ppi.md", "ppi")
CORRECTED_PLOT = CsvFile("reports/plots/ppi_win_rate.csv", "ppi", ("estimate", "win_rate", "low", "high", "n"))
HOLDOUT_LEDGER = JsonlFile("data/holdout_ledger.jsonl", LedgerRow, "gate")

# review queues and training data
REVIEW_PAGE = TextFile("reports/review/{name}.md", "review@{name}")
#: ``{kind}`` is sft or dpo: examples in the chat ``messages`` format (:meth:`assay.queue.training.TrainingSet.examples`)
TRAINING_ROWS = JsonlFile("reports/training/{kind}.jsonl", ChatExample, "training")
#: the DPO examples in TRL's conversational preference format (:meth:`assay.queue.training.TrainingSet.preferences`)
TRAINING_PREFERENCES = JsonlFile("reports/training/dpo_trl.jsonl", PreferenceExample, "training")

# retrieval
#: the retrieve stage's output: every mode's run and runtime record (one stage runs every mode)
RETRIEVAL_RUNS = Folder("data/derived/relevance/runs", "retrieve")
#: a mode's TREC run (written by :func:`assay.relevance.trec.write_run`; inside :data:`RETRIEVAL_RUNS`)
RETRIEVAL_RUN = TextFile("data/derived/relevance/runs/{mode}.trec", "retrieve", dvc=False)
#: a mode's per-query latency, candidates and runtime manifest (shape: :mod:`assay.relevance.scoring`;
#: inside :data:`RETRIEVAL_RUNS`)
RETRIEVAL_RUNTIME = JsonFile("data/derived/relevance/runs/{mode}.json", RetrievalRuntime, "retrieve", dvc=False)
RETRIEVAL_PER_QUERY = CsvFile("reports/relevance/per_query.csv", "score_retrieval")
RETRIEVAL_PROVENANCE = JsonFile("reports/relevance/provenance.json", RetrievalProvenance, "score_retrieval")
RETRIEVAL_SUMMARY = TextFile("reports/relevance/summary.md", "score_retrieval")
RETRIEVAL_PLOTS = Folder("reports/relevance/plots", "score_retrieval")
#: one plot table per measure, ``{slug}`` like ``nDCG_at_10`` (inside :data:`RETRIEVAL_PLOTS`)
RETRIEVAL_PLOT = CsvFile("reports/relevance/plots/{slug}.csv", "score_retrieval", dvc=False)

# the human relevance study
#: the folder of the study stages' records (each record is its own DVC output); every study stage writes
#: here, and ``dvc repro study_verdict`` runs them all
STUDY_RECORDS = Folder("reports/relevance/study", "study_verdict", dvc=False)
#: one stage's record, ``{name}`` is split, pool, scan, check, receipt, bundle or qrels, written by
#: stage ``study_{name}`` (written by :func:`assay.study.records.record_step`)
STUDY_RECORD = JsonFile("reports/relevance/study/{name}.json", StudyRecord, "study_{name}")
#: the record of stage ``study_evaluate`` (its name is not the stage's)
STUDY_EVALUATION = JsonFile("reports/relevance/study/evaluation.json", StudyRecord, "study_evaluate")
VERDICT_PAGE = TextFile("reports/relevance/verdict.md", "study_verdict")
