"""Models of the JSON reports the pipeline writes (see :mod:`assay.artifacts.outputs`)."""

from __future__ import annotations

from typing import Any

from assay.artifacts.files import Row, SparseRow


class GateCheck(Row):
    """One check of the gate, as :class:`assay.release.checks.Check` holds it (value and threshold for display)."""

    name: str
    status: str
    detail: str
    value: int | float | None
    threshold: int | float | None


class GateReport(Row):
    """reports/gate.json: every check the gate made, in the order it made them."""

    checks: list[GateCheck]


class CompareReport(Row):
    """reports/compare.json: the holdout case ids behind metrics/compare.json's counts, each list sorted
    (see :func:`assay.rag.compare.compare_runs`)."""

    better: list[str]
    worse: list[str]
    unchanged: list[str]
    still_failing: list[str]
    #: per metric, the cases that passed in the baseline and fail in the candidate
    regressed: dict[str, list[str]]


class Provenanced(Row):
    """The head :meth:`assay.artifacts.provenance.Provenance.head` gives a report: the assay version and input hashes."""

    assay_version: str
    inputs: dict[str, str]


class CrossFinding(Row):
    """A dev case and a holdout case that are near-duplicates."""

    dev: str
    holdout: str
    score: float


class SourceFinding(Row):
    """A case and the 1-based unit (line, or JSONL question) of a source it nearly copies."""

    case: str
    source: str
    line: int
    score: float


class ParaphraseCounts(Row):
    """How many of the paraphrase detector's findings the exact detector found too."""

    dev_holdout: int
    sources: int


class ParaphraseFindings(Row):
    """The paraphrase detector's findings that the exact detector did not make."""

    detector: str
    threshold: float
    dev_holdout: list[CrossFinding]
    sources: list[SourceFinding]
    also_exact: ParaphraseCounts


class LeakageReport(SparseRow):
    """reports/leakage.json (see :func:`assay.data.leakage.report.leakage_report`): findings sorted by ids;
    ``warnings`` only when a source folder or source is empty, ``paraphrase`` and ``detectors`` only
    when the paraphrase detector is on."""

    dev_holdout: list[CrossFinding]
    sources: list[SourceFinding]
    threshold: float
    limitation: str
    warnings: list[str] | None = None
    paraphrase: ParaphraseFindings | None = None
    detectors: dict[str, str] | None = None


class JudgeIdentityFile(Provenanced):
    """data/derived/judge/judge.json (and the judge_compare stage's): the judge's identity before any reply.

    The identity's keys are the judge's own (a user's judge class chooses them), so ``judge`` is an
    open JSON object; ``judge_keys`` keeps their order, since the file is written with sorted keys.
    """

    judge: dict[str, Any]
    judge_keys: list[str]


class RuntimeManifest(Row):
    """What a retrieval mode ran on (:func:`assay.relevance.manifest.build_manifest`); modes compared must share it."""

    corpus_sha256: str
    queries_sha256: str
    params_sha256: str
    libraries: dict[str, str]


class RetrievalRuntime(Provenanced):
    """data/derived/relevance/runs/<mode>.json: a mode's label, per-query latency (ms, ``latency_kind``
    measured or modelled) and the heuristic candidates per query (see :mod:`assay.relevance.modes.runner`)."""

    mode: str
    label: str
    manifest: RuntimeManifest
    latency_kind: str
    latency_ms: dict[str, float]
    heuristic: dict[str, list[str]]


class PairedTest(Row):
    """One paired t test between two modes on one measure (:func:`assay.relevance.comparison.paired_tests`);
    ``t`` and ``p`` are ``None`` when undefined (no variance in the differences)."""

    measure: str
    a: str
    b: str
    n: int
    mean_diff: float
    t: float | None
    p: float | None
    p_holm: float | None
    reject: bool


class RetrievalProvenance(Provenanced):
    """reports/relevance/provenance.json: the shared manifest, each mode's label and heuristic candidates,
    the qrels file and the paired comparisons (see :func:`assay.relevance.scoring.score_modes`)."""

    manifest: RuntimeManifest
    labels: dict[str, str]
    heuristic_candidates: dict[str, dict[str, list[str]]]
    synthetic_qrels: bool
    qrels: str
    missing_query_semantics: str
    comparison: list[PairedTest]


class StudyRecord(SparseRow):
    """reports/relevance/study/<name>.json: what one study stage committed (see :mod:`assay.study.records`).

    Every record starts with the protocol version and the synthetic flag (0/1); ``evidence`` maps each
    evidence file read or written (relative to the evidence root) to its SHA-256; ``waiting`` lists
    the files a step waits for. The other fields belong to one stage each and their inner shape is the
    step's own (counts per split, per file or per mode), so they stay open JSON objects here.
    """

    protocol_version: str
    synthetic: int
    evidence: dict[str, str] | None = None
    waiting: list[str] | None = None
    #: split
    counts: dict[str, Any] | None = None
    groups: int | None = None
    inputs: dict[str, str] | None = None
    paraphrase_links: int | None = None
    #: scan
    hits: dict[str, int] | None = None
    #: check
    judgments: dict[str, Any] | None = None
    #: pool (``splits``, also evaluation's)
    splits: dict[str, Any] | None = None
    packets_identical: int | None = None
    #: receipt
    receipts: dict[str, Any] | None = None
    grades: str | None = None
    #: bundle
    disagreements: dict[str, int] | None = None
    #: qrels
    qrels: dict[str, Any] | None = None
    #: evaluation
    opened: int | None = None
    runtime_manifest: RuntimeManifest | None = None
