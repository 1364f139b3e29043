"""The coordinator's second machine step: every split's pool of candidates and its two blind packets.

:func:`pool_step` runs every mode on each split's documents (:func:`split_documents`, from the
root's ``split.json``), pools every mode's top k plus random unretrieved documents per query
(:mod:`assay.study.pooling`) and writes the pool and both packets (:mod:`assay.study.packets`)
under the root, with ``salt.json`` (the key of the opaque ids) made once. It also writes every mode's
run of the split (``runs/<mode>.trec`` and ``.json``): step 9 scores these very runs, so every
document a mode ranks in its top k was judged (a run over the whole corpus would rank the other
split's documents, which nobody judged for these queries). It returns the record its
stage commits (:mod:`assay.study.records`): counts and SHA-256 only.
"""

from __future__ import annotations

from assay.core.errors import InputError, Problem
from assay.core.io import parse_json_line, read_text, write_json, write_jsonl
from assay.relevance.params import RelevanceParams
from assay.relevance.trec import Run
from assay.relevance.study import StudyDocument, load_documents, load_queries
from assay.study.evidence import SPLITS, EvidenceRoot, file_hashes
from assay.study.formats import ANNOTATORS, POOL, QUERIES, SALT, SPLIT_FILE, packet_name, run_names
from assay.study.protocol import Study
from assay.study.records import stage_record


def split_documents(study: Study, root: EvidenceRoot, side: str) -> list[StudyDocument]:
    """The documents of one split, from the corpus and the root's ``split.json``.

    Raises:
        InputError: ``split.json`` is missing or does not cover a family of the corpus.
    """
    path = root.path / SPLIT_FILE
    data, why = parse_json_line(read_text(path))
    families = data.get("families") if isinstance(data, dict) else None
    documents = load_documents(str(study.resolve(study.corpus, root)))
    if why or not isinstance(families, dict) or any(d.family not in families for d in documents):
        raise InputError([Problem(root.show(path), None, None, "does not give a side for every family of the corpus",
                                  "run `dvc repro study_split`")])
    return [d for d in documents if families[d.family] == side]


def pool_step(study: Study, root: EvidenceRoot, params: RelevanceParams) -> dict:
    """Pool every mode's top k plus random unretrieved documents per query, and write the pool and both packets.

    ``params`` is the ``relevance`` params section (which modes, their settings, the run depth).

    Raises:
        InputError: fewer than two modes (seed 003: never the top results of one mode alone).
    """
    from assay.relevance.manifest import build_manifest
    from assay.relevance.modes.runner import run_mode
    from assay.relevance.trec import write_run
    from assay.study.packets import packet_rows, require_identical, write_packets
    from assay.study.pooling import build_pool, load_salt

    if len(set(params.modes)) < 2:
        raise InputError([Problem("params.yaml", None, "relevance.modes", f"{list(params.modes)}: a pool from one mode "
                                  "alone would show that mode's top results only", "list every mode under comparison")])
    salt = load_salt(root.path / SALT)
    summaries, names = {}, [SALT]
    for side in SPLITS:
        documents = split_documents(study, root, side)
        queries = load_queries(str(root.file(side, QUERIES)))
        results = {mode: run_mode(mode, params, documents, queries) for mode in params.modes}
        runs: dict[str, Run] = {mode: result.run for mode, result in results.items()}
        manifest = build_manifest(str(study.resolve(study.corpus, root)), str(root.file(side, QUERIES)),
                                  params.model_dump(mode="json"))
        for mode, result in results.items():
            trec, side_file = run_names(mode)
            write_run(root.file(side, trec), result.run)
            write_json(root.file(side, side_file), {"mode": mode, "label": result.label, "manifest": manifest,
                                                    "latency_kind": result.latency_kind,
                                                    "latency_ms": result.latency_ms, "heuristic": result.heuristic})
            names += [f"{side}/{trec}", f"{side}/{side_file}"]
        p = study.pooling
        pool = build_pool(side, documents, queries, runs, p.k, p.random, p.seed, salt)
        write_jsonl(root.file(side, POOL), [r.model_dump() for r in pool.rows])
        write_packets(root.split(side), packet_rows(pool.rows, documents, queries))
        require_identical(root.split(side))
        summaries[side] = {**pool.summary(), "modes": len(runs), "k": p.k, "random": p.random}
        names += [f"{side}/{POOL}", *(f"{side}/{packet_name(a)}" for a in ANNOTATORS)]
    return stage_record(study, splits=summaries, packets_identical=1, evidence=file_hashes(root, names))
