"""The coordinator's machine steps before any judgment: the family split, then the pool and packets.

Each step reads the study file and the evidence root, writes its evidence under the root, and
returns the record its stage commits under ``reports/relevance/study/`` (:mod:`assay.study.records`):
counts, the study's protocol version and the SHA-256 of every evidence file it wrote or read, named
relative to the root. The scan of the packets and the check of the judgments are in
:mod:`assay.study.screening`.

Files the steps write under the root (besides :mod:`assay.study.formats`' per-split files):
``split.json`` (family -> side, the coordinator's) and ``salt.json`` (the key of the opaque ids).
"""

from __future__ import annotations

from assay.core.errors import InputError, Problem, raise_problems
from assay.core.io import parse_json_line, read_text, sha256_file, write_json, write_jsonl
from assay.relevance.study import StudyDocument, load_documents, load_queries
from assay.study.evidence import SPLITS, EvidenceRoot, file_hashes
from assay.study.formats import ANNOTATORS, POOL, QUERIES, SALT, packet_name
from assay.study.protocol import Study
from assay.study.records import stage_record
from assay.study.split import split_families, split_problems

SPLIT_FILE = "split.json"


def _documents(study: Study, root: EvidenceRoot) -> list[StudyDocument]:
    return load_documents(str(study.resolve(study.corpus, root)))


def split_step(study: Study, root: EvidenceRoot) -> dict:
    """Split the corpus by family; write ``split.json`` and each split's ``queries.jsonl`` under the root.

    Raises:
        InputError: a bad corpus or query row, a query naming an unknown family, or a leak across the split.
    """
    corpus, queries_path = study.resolve(study.corpus, root), study.resolve(study.queries, root)
    documents, queries = _documents(study, root), load_queries(str(queries_path))
    s = study.split
    split = split_families(documents, queries, s.holdout_share, s.seed, s.paraphrase_threshold, root.show(queries_path))
    doc_side = {d.doc_id: split.family_side[d.family] for d in documents}
    raise_problems(split_problems(documents, doc_side, s.paraphrase_threshold, "split"))
    write_json(root.path / SPLIT_FILE, {"families": split.family_side, "synthetic": study.synthetic})
    names = [SPLIT_FILE]
    for side in SPLITS:
        rows = [q.model_dump(mode="json") for q in sorted(split.queries[side], key=lambda q: q.query_id)]
        write_jsonl(root.file(side, QUERIES), rows)
        names.append(f"{side}/{QUERIES}")
    return stage_record(study, counts=split.counts(documents), paraphrase_links=len(split.links), groups=split.groups,
                   inputs={"corpus": sha256_file(corpus), "queries": sha256_file(queries_path)},
                   evidence=file_hashes(root, names))


def split_documents(study: Study, root: EvidenceRoot, side: str) -> list[StudyDocument]:
    """The documents of one split, from the corpus and the root's ``split.json``.

    Raises:
        InputError: ``split.json`` is missing or does not cover a family of the corpus.
    """
    path = root.path / SPLIT_FILE
    data, why = parse_json_line(read_text(path))
    families = data.get("families") if isinstance(data, dict) else None
    documents = _documents(study, root)
    if why or not isinstance(families, dict) or any(d.family not in families for d in documents):
        raise InputError([Problem(root.show(path), None, None, "does not give a side for every family of the corpus",
                                  "run `dvc repro study_split`")])
    return [d for d in documents if families[d.family] == side]


def pool_step(study: Study, root: EvidenceRoot, params) -> dict:
    """Pool every mode's top k plus random unretrieved documents per query, and write the pool and both packets.

    ``params`` is the ``relevance`` params section (which modes, their settings, the run depth).

    Raises:
        InputError: fewer than two modes (seed 003: never the top results of one mode alone).
    """
    from assay.relevance.modes.runner import run_mode
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
        runs = {mode: run_mode(mode, params, documents, queries).run for mode in params.modes}
        p = study.pooling
        pool = build_pool(side, documents, queries, runs, p.k, p.random, p.seed, salt)
        write_jsonl(root.file(side, POOL), [r.model_dump() for r in pool.rows])
        write_packets(root.split(side), packet_rows(pool.rows, documents, queries))
        require_identical(root.split(side))
        summaries[side] = {**pool.summary(), "modes": len(runs), "k": p.k, "random": p.random}
        names += [f"{side}/{POOL}", *(f"{side}/{packet_name(a)}" for a in ANNOTATORS)]
    return stage_record(study, splits=summaries, packets_identical=1, evidence=file_hashes(root, names))
