"""The study's last machine steps: evaluate the five modes on each split's frozen qrels, then decide.

:func:`evaluate_step` validates each split's manifest first (so the qrels it scores are the frozen
bytes), scores every mode's pooled run (the run the pool step made on the split's own documents,
so every document in a mode's top k was judged) on the development split, and on the sealed holdout only after its
opening (each read logged): IR measures against the final grades, the answer figures against the
people's final labels (:mod:`assay.study.labels`). :func:`verdict_step` refuses when the thresholds changed after the
opening, re-checks the evidence conditions and returns the verdict's metrics, page and details.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.relevance.params import RelevanceParams
from assay.relevance.thresholds import Threshold, load_thresholds
from assay.study.evaluation import evaluate_split
from assay.study.evidence import SEALED, SPLITS, EvidenceRoot, redacting
from assay.study.formats import QUERIES, run_names
from assay.study.freeze import note_sealed_read
from assay.study.manifest import MANIFEST, validate_manifest
from assay.study.opening import check_preregistration, read_opening
from assay.study.params import StudyParams
from assay.study.protocol import Study
from assay.study.labels import read_labels
from assay.study.qrels import FROZEN, TREC


def pooled_runs(root: EvidenceRoot, split: str, modes: Sequence[str]) -> dict:
    """Each mode's run of ``split`` as the pool step wrote it (``runs/<mode>.trec`` and ``.json``), each read logged."""
    import json

    from assay.relevance.scoring import ModeInput
    from assay.relevance.trec import read_run

    out = {}
    for mode in modes:
        trec, side = run_names(mode)
        for name in (trec, side):
            note_sealed_read(root, split, "study_evaluate", name)
        with open(root.file(split, side), encoding="utf-8") as fh:
            out[mode] = ModeInput(read_run(root.file(split, trec)), json.load(fh))
    return out


def evaluate_step(study: Study, root: EvidenceRoot, relevance: RelevanceParams,
                  thresholds: dict[str, Threshold]) -> dict:
    """``{"opened", "splits": {split: {"queries", "modes": {mode: metrics}} or {}}, "manifest"}``.

    Raises:
        ManifestBroken, InputError: a split's evidence does not match its manifest.
        ManifestMismatch: the modes ran on different corpora or runtimes.
    """
    from assay.relevance.study import load_documents, load_queries
    from assay.relevance.trec import read_qrels

    opened = read_opening(root) is not None
    with redacting(root):
        documents = load_documents(str(study.resolve(study.corpus, root)))
        splits: dict[str, dict] = {}
        manifest = None
        for split in SPLITS:
            if split == SEALED and not opened:
                splits[split] = {}
                continue
            validate_manifest(root.file(split, MANIFEST), allow_sealed=True)
            note_sealed_read(root, split, "study_evaluate", TREC)
            note_sealed_read(root, split, "study_evaluate", FROZEN)
            queries = load_queries(str(root.file(split, QUERIES)))
            modes = pooled_runs(root, split, relevance.modes)
            result = evaluate_split(modes, read_qrels(root.file(split, TREC)), read_labels(root, split), documents,
                                    queries, relevance, thresholds, study.synthetic)
            splits[split] = {"queries": result["queries"], "modes": result["modes"]}
            manifest = result["manifest"]
    return {"protocol_version": study.protocol_version, "synthetic": int(study.synthetic), "opened": int(opened),
            "splits": splits, "runtime_manifest": manifest}


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
    from assay.study.verdict import decide, verdict_markdown, verdict_metrics

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
