"""Pooled candidates with opaque ids: never the top results of one mode alone
(docs/relevance-study.md, "Split by document family, pool the candidates").

For each query of a split, the pool is the union of the top ``k`` documents of every mode plus
``random`` documents that no mode retrieved at all (not anywhere in its run), drawn at random; when
fewer such documents exist, the rest are drawn from the documents outside the top-``k`` union and
the shortfall is counted. The candidates are then shuffled. Both the draw and the shuffle use
``random.Random(f"{seed}:{split}:{query_id}")``, so a query's pool does not depend on the other
queries, and re-running gives the same bytes.

A document's opaque id is ``doc-`` and the first 10 hex digits of ``HMAC-SHA256(salt, doc_id)``
(:func:`opaque_id`): the same document has the same id in every query of the study, so citations
compare across queries, and without the salt (kept in the evidence root, :data:`SALT`) nobody can
map an id back to the corpus. Two documents with the same opaque id are refused.

:func:`pool_step` is stage ``study_pool``'s work: it runs every mode on each split's documents
(:func:`split_documents`), pools them, writes the pool and both packets (:mod:`assay.study.packets`)
and every mode's run of the split (``runs/<mode>.trec`` and ``.json``) under the root, with the
salt made once. The evaluation scores these very runs, so every document a mode ranks in its top k
was judged (a run over the whole corpus would rank the other split's documents, which nobody judged
for these queries). It returns the record its stage commits: counts and SHA-256 only.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from assay.core.errors import AssayError, InputError, Problem
from assay.core.io import parse_json_line, read_text, write_json, write_jsonl
from assay.relevance.corpus import StudyDocument, StudyQuery, load_documents, load_queries
from assay.relevance.ranking import order
from assay.relevance.params import RelevanceParams
from assay.relevance.trec import Run
from assay.study.evidence import ANNOTATORS, POOL, QUERIES, SALT, SPLIT_FILE, SPLITS, EvidenceRoot, file_hashes, packet_name, run_names
from assay.study.formats import PoolRow
from assay.study.protocol import Study
from assay.study.records import stage_record

if TYPE_CHECKING:
    from assay.relevance.latency import MeasuredLatency
    from assay.relevance.modes.runner import Searcher


class PoolError(AssayError):
    """Two documents got the same opaque id, or the salt file is unusable (exit 2)."""

    exit_code = 2


def opaque_id(salt: str, doc_id: str) -> str:
    """``doc-`` and 10 hex digits of HMAC-SHA256 keyed by ``salt``.

    >>> opaque_id("s", "f001-v1")
    'doc-e0a886b9cd'
    """
    return "doc-" + hmac.new(salt.encode("utf-8"), doc_id.encode("utf-8"), hashlib.sha256).hexdigest()[:10]


def load_salt(path: Path, create: bool = True) -> str:
    """The study's salt from ``path`` (JSON ``{"salt": ...}``), made with :mod:`secrets` when absent and ``create``.

    Raises:
        PoolError: the file exists but holds no usable salt, or is absent and ``create`` is false.
    """
    if not path.exists():
        if not create:
            raise PoolError(f"{path.name} is missing from the evidence root (fix: run `dvc repro study_pool`)")
        write_json(path, {"salt": secrets.token_hex(32)})
    data, _ = parse_json_line(read_text(path))
    salt = data.get("salt") if isinstance(data, dict) else None
    if not isinstance(salt, str) or len(salt) < 16:
        raise PoolError(f"{path.name} in the evidence root holds no salt of 16 or more characters "
                        "(fix: delete it before any packet is handed out, then re-run study_pool)")
    return salt


def ranked_ids(run: Run) -> dict[str, list[str]]:
    """Each query's document ids in trec_eval order (score descending, then docno descending)."""
    t = run.table.iloc[order(run.table)]
    out: dict[str, list[str]] = {}
    for qid, docno in zip(t["qid"], t["docno"], strict=True):
        out.setdefault(qid, []).append(docno)
    return out


@dataclass
class Pool:
    """The pool of one split: rows in (query, position) order and what filled it."""

    rows: list[PoolRow] = field(default_factory=list)
    from_modes: int = 0
    from_random: int = 0
    random_shortfall: int = 0
    queries: int = 0

    def summary(self) -> dict[str, int]:
        """Counts only (nothing per query): queries, candidates, pooled from modes, random, shortfall."""
        return {"queries": self.queries, "candidates": len(self.rows), "from_modes": self.from_modes,
                "from_random": self.from_random, "random_shortfall": self.random_shortfall}


def build_pool(split: str, documents: list[StudyDocument], queries: list[StudyQuery], runs: dict[str, Run],
               k: int, n_random: int, seed: int, salt: str) -> Pool:
    """The pool of one split (see the module docstring); ``runs`` maps each mode to its run on ``documents``.

    Raises:
        PoolError: two documents of ``documents`` share an opaque id.
    """
    ids: dict[str, str] = {}
    for d in documents:
        oid = opaque_id(salt, d.doc_id)
        if oid in ids:
            raise PoolError(f"documents {ids[oid]!r} and {d.doc_id!r} share an opaque id (fix: delete the salt file "
                            "before any packet is handed out, then re-run study_pool)")
        ids[oid] = d.doc_id
    opaque = {doc: oid for oid, doc in ids.items()}
    corpus = sorted(d.doc_id for d in documents)
    rankings = {mode: ranked_ids(run) for mode, run in sorted(runs.items())}
    pool = Pool()
    for q in sorted(queries, key=lambda q: q.query_id):
        top = {d for r in rankings.values() for d in r.get(q.query_id, [])[:k]}
        retrieved = {d for r in rankings.values() for d in r.get(q.query_id, [])}
        rng = random.Random(f"{seed}:{split}:{q.query_id}")
        never = [d for d in corpus if d not in retrieved]
        picks = rng.sample(never, min(n_random, len(never)))
        if len(picks) < n_random:
            rest = [d for d in corpus if d not in top and d not in picks]
            picks += rng.sample(rest, min(n_random - len(picks), len(rest)))
        candidates = sorted(top | set(picks))
        rng.shuffle(candidates)
        pool.rows += [PoolRow(query_id=q.query_id, document_id=opaque[d], doc_id=d, position=i)
                      for i, d in enumerate(candidates, start=1)]
        pool.queries += 1
        pool.from_modes += len(top)
        pool.from_random += len(picks)
        pool.random_shortfall += n_random - len(picks)
    return pool


def split_documents(documents: list[StudyDocument], root: EvidenceRoot, side: str) -> list[StudyDocument]:
    """The documents of one split: those of the study's corpus (``documents``) whose family the root's
    ``split.json`` puts on ``side``.

    Raises:
        InputError: ``split.json`` is missing or does not cover a family of the corpus.
    """
    path = root.path / SPLIT_FILE
    data, why = parse_json_line(read_text(path))
    families = data.get("families") if isinstance(data, dict) else None
    if why or not isinstance(families, dict) or any(d.family not in families for d in documents):
        raise InputError([Problem(root.show(path), None, None, "does not give a side for every family of the corpus",
                                  "run `dvc repro study_split`")])
    return [d for d in documents if families[d.family] == side]


def measure_latency(searchers: Mapping[str, Searcher], queries: list[StudyQuery], level: float,
                    clock: Callable[[], float] = time.perf_counter) -> dict[str, MeasuredLatency]:
    """Every mode's wall time on ``queries``, the modes taking turns in this one process, each query
    repeated often enough for p95's ``level`` interval to have an upper bound
    (:func:`assay.relevance.latency.repetitions_for`)."""
    from assay.relevance.latency import repetitions_for, time_modes

    searches = {mode: searcher.search for mode, searcher in searchers.items()}
    return time_modes(searches, [(q.query_id, q.text) for q in queries], repetitions_for(len(queries), 0.95, level),
                      clock)


def pool_step(study: Study, root: EvidenceRoot, params: RelevanceParams) -> dict:
    """Pool every mode's top k plus random unretrieved documents per query, and write the pool and both packets.

    ``params`` is the ``relevance`` params section (which modes, their settings, the run depth).
    Latency in each run's side file is measured (:func:`measure_latency`) when the study file says
    ``synthetic: false``; the demo keeps the modelled latency ``params.latency`` names.

    Raises:
        InputError: fewer than two modes (the protocol: never the top results of one mode alone).
    """
    from assay.relevance.manifest import build_manifest
    from assay.relevance.latency import side_entries
    from assay.relevance.modes.runner import build, run_mode
    from assay.relevance.trec import write_run
    from assay.study.packets import packet_rows, require_identical, write_packets

    if len(set(params.modes)) < 2:
        raise InputError([Problem("params.yaml", None, "relevance.modes", f"{list(params.modes)}: a pool from one mode "
                                  "alone would show that mode's top results only", "list every mode under comparison")])
    salt = load_salt(root.path / SALT)
    summaries, names = {}, [SALT]
    corpus = load_documents(str(study.resolve(study.corpus, root)))  # read once, split per side below
    for side in SPLITS:
        documents = split_documents(corpus, root, side)
        queries = load_queries(str(root.file(side, QUERIES)))
        searchers: dict[str, Searcher] = {mode: build(mode, params, documents) for mode in params.modes}
        results = {mode: run_mode(mode, params, documents, queries, searchers[mode]) for mode in params.modes}
        runs: dict[str, Run] = {mode: result.run for mode, result in results.items()}
        manifest = build_manifest(str(study.resolve(study.corpus, root)), str(root.file(side, QUERIES)),
                                  params.model_dump(mode="json"))
        measured = {} if study.synthetic else measure_latency(searchers, queries, params.level)
        for mode, result in results.items():
            trec, side_file = run_names(mode)
            write_run(root.file(side, trec), result.run)
            latency = (side_entries(measured[mode]) if mode in measured
                       else {"latency_kind": result.latency_kind, "latency_ms": result.latency_ms})
            write_json(root.file(side, side_file), {"mode": mode, "label": result.label, "manifest": manifest,
                                                    **latency, "heuristic": result.heuristic})
            names += [f"{side}/{trec}", f"{side}/{side_file}"]
        p = study.pooling
        pool = build_pool(side, documents, queries, runs, p.k, p.random, p.seed, salt)
        write_jsonl(root.file(side, POOL), [r.model_dump() for r in pool.rows])
        write_packets(root.split(side), packet_rows(pool.rows, documents, queries))
        require_identical(root.split(side))
        summaries[side] = {**pool.summary(), "modes": len(runs), "k": p.k, "random": p.random}
        names += [f"{side}/{POOL}", *(f"{side}/{packet_name(a)}" for a in ANNOTATORS)]
    return stage_record(study, splits=summaries, packets_identical=1, evidence=file_hashes(root, names))
