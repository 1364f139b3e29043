"""Evaluating the five retrieval modes on a split's frozen qrels (step 9).

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
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from assay.relevance.params import RelevanceParams
from assay.relevance.scoring import ModeInput, score_modes
from assay.relevance.study import StudyDocument, StudyQuery
from assay.relevance.thresholds import Threshold
from assay.relevance.trec import Qrels
from assay.study.labels import QueryLabels, human_rates


def restrict(mode: ModeInput, query_ids: set[str]) -> ModeInput:
    """``mode`` with its run and its per-query side data limited to ``query_ids``."""
    table = mode.run.table[mode.run.table["qid"].isin(query_ids)].reset_index(drop=True)
    side = dict(mode.side)
    side["latency_ms"] = {q: v for q, v in mode.side["latency_ms"].items() if q in query_ids}
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
