"""Evaluating the five retrieval modes on a split's frozen qrels
(docs/relevance-study.md, "Evaluate and publish the verdict").

Every mode's pooled run of the split (the pool step's TREC file and side file, made on the split's
own documents from one corpus and one runtime, so every document in a mode's top k was judged) is
cut down to the split's queries and scored with :func:`assay.relevance.scoring.score_modes`
against the split's frozen TREC qrels: the same IR measures, p95 latency, intervals and the seven
pre-registered thresholds as the retrieval-mode stage. The answer figures (citation/provenance
accuracy, stale-answer rate, abstention quality) are scored against the people's final labels of
the frozen qrels (:mod:`assay.study.labels`), not the retrieval-mode stage's metadata rule. ``score_modes`` refuses modes
whose runtime manifests differ, so every figure here comes from the same corpus/runtime hashes.

Only summary figures leave this module (per mode, per split); per-query rows of the sealed
holdout never do.

:func:`evaluate_step` is stage ``study_evaluate``'s work: it validates each split's manifest first (so
the qrels it scores are the frozen bytes) and scores the development split, and the sealed holdout
only after its opening (each read logged).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from assay.relevance.corpus import StudyDocument, StudyQuery
from assay.relevance.latency import restrict_side
from assay.relevance.params import RelevanceParams
from assay.relevance.scoring import ModeInput, score_modes
from assay.relevance.thresholds import Threshold
from assay.relevance.trec import Qrels
from assay.study.evidence import FROZEN, MANIFEST, QUERIES, SEALED, SPLITS, TREC, EvidenceRoot, redacting, run_names
from assay.study.labels import QueryLabels, human_rates, read_labels
from assay.study.manifest import validate_manifest
from assay.study.opening import note_sealed_read, read_opening
from assay.study.protocol import Study


def restrict(mode: ModeInput, query_ids: set[str]) -> ModeInput:
    """``mode`` with its run and its per-query side data limited to ``query_ids``."""
    table = mode.run.table[mode.run.table["qid"].isin(query_ids)].reset_index(drop=True)
    side = restrict_side(mode.side, query_ids)
    side["heuristic"] = {q: v for q, v in mode.side["heuristic"].items() if q in query_ids}
    return ModeInput(replace(mode.run, table=table), side)


def evaluate_split(modes: dict[str, ModeInput], qrels: Qrels, labels: dict[str, QueryLabels],
                   documents: list[StudyDocument], queries: list[StudyQuery], params: RelevanceParams,
                   thresholds: dict[str, Threshold], synthetic: bool) -> dict:
    """``{"modes": {mode: metrics}, "manifest": shared runtime manifest, "queries": n}`` for one split.

    ``labels`` are the split's final human labels per query (:func:`assay.study.labels.read_labels`).

    Raises:
        ManifestMismatch: the modes ran on different corpora, queries, params or runtimes.
    """
    ids = {q.query_id for q in queries}
    result = score_modes({name: restrict(m, ids) for name, m in modes.items()}, qrels, documents, queries,
                         params, synthetic, thresholds, partial(human_rates, labels=labels))
    return {"modes": result.metrics, "manifest": result.manifest, "queries": len(queries)}


def pooled_runs(root: EvidenceRoot, split: str, modes: Sequence[str]) -> dict:
    """Each mode's run of ``split`` as the pool step wrote it (``runs/<mode>.trec`` and ``.json``), each read logged."""
    import json

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
    from assay.relevance.corpus import load_documents, load_queries
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
