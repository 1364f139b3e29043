"""The coordinator's first machine step: the split of the corpus and queries by document family.

:func:`split_step` reads the study file's corpus and queries, writes ``split.json`` (family ->
side, the coordinator's, :data:`~assay.study.formats.SPLIT_FILE`) and each split's
``queries.jsonl`` under the root, and returns the record its stage commits under
``reports/relevance/study/`` (:mod:`assay.study.records`): counts, the study's protocol version and
the SHA-256 of every evidence file it wrote or read, named relative to the root. The pool and
packets are :mod:`assay.study.candidates`; the scan :mod:`assay.study.screening`; the judgment check
:func:`assay.study.judgments.check_step`.
"""

from __future__ import annotations

from assay.core.errors import raise_problems
from assay.core.io import sha256_file, write_json, write_jsonl
from assay.relevance.study import load_documents, load_queries
from assay.study.evidence import SPLITS, EvidenceRoot, file_hashes
from assay.study.formats import QUERIES, SPLIT_FILE
from assay.study.protocol import Study
from assay.study.records import stage_record
from assay.study.split import split_families, split_problems


def split_step(study: Study, root: EvidenceRoot) -> dict:
    """Split the corpus by family; write ``split.json`` and each split's ``queries.jsonl`` under the root.

    Raises:
        InputError: a bad corpus or query row, a query naming an unknown family, or a leak across the split.
    """
    corpus, queries_path = study.resolve(study.corpus, root), study.resolve(study.queries, root)
    documents, queries = load_documents(str(corpus)), load_queries(str(queries_path))
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
