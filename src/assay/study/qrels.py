"""Frozen qrels (step 8): A's, B's and the arbiter's grades side by side, and the final TREC qrels.

``qrels_frozen.jsonl``: one row per packet pair, in pool order,
``{"query_id", "document_id", "doc_id", "a", "b", "c", "final"}``. ``c`` is the arbiter's grade
where A and B differ and null where they agree; ``final`` is the agreed grade or ``c``. The
originals are never overwritten: the judgment and decision files are only read, and each grade
keeps its own column.

``qrels.trec``: ``final`` in TREC form with the real corpus ``doc_id`` (from the coordinator's
pool key), for :mod:`assay.relevance.measures`; a header line says which split it is.

Edge cases: a pool pair with no judgment, or a packet pair missing from the pool key, is refused
(the coordinator's key and the packets must describe the same pairs).
"""

from __future__ import annotations

import pandas as pd

from assay.core.errors import InputError, Problem
from assay.core.io import write_jsonl
from assay.relevance.trec import Qrels, write_qrels
from assay.study.bundle import check_decisions
from assay.study.evidence import EvidenceRoot
from assay.study.formats import POOL, PoolRow
from assay.study.receipt import pair_judgments, receipt_is_current
from assay.study.rows import read_rows

FROZEN = "qrels_frozen.jsonl"
TREC = "qrels.trec"


def frozen_rows(root: EvidenceRoot, split: str) -> list[dict]:
    """The side-by-side rows of ``split`` (see the module docstring), in pool order.

    Raises:
        InputError: no current receipt, a decisions problem (:func:`check_decisions`), or a pool key
            that does not match the judged pairs.
    """
    receipt_is_current(root, split)
    decisions = check_decisions(root, split)
    paired = pair_judgments(root, split)
    grades = {key: (a.relevance, b.relevance) for key, a, b in zip(paired.pairs, paired.a, paired.b)}
    pool_path = root.file(split, POOL)
    pool = read_rows(root, pool_path, PoolRow)
    problems, rows = [], []
    for line, p in sorted(pool, key=lambda r: (r[1].query_id, r[1].position)):
        key = (p.query_id, p.document_id)
        if key not in grades:
            problems.append(Problem(root.show(pool_path), line, "document_id", f"pair {key} has no judgments",
                                    "the packets and the pool key must hold the same pairs"))
            continue
        a, b = grades[key]
        c = decisions[key].relevance if a != b else None
        rows.append({"query_id": p.query_id, "document_id": p.document_id, "doc_id": p.doc_id,
                     "a": a, "b": b, "c": c, "final": a if a == b else c})
    missing = set(grades) - {(r["query_id"], r["document_id"]) for r in rows}
    problems += [Problem(root.show(pool_path), None, None, f"judged pair {key} is not in the pool key",
                         "the packets and the pool key must hold the same pairs") for key in sorted(missing)]
    if problems:
        raise InputError(problems)
    return rows


def write_frozen(root: EvidenceRoot, split: str, rows: list[dict]) -> None:
    """Write ``qrels_frozen.jsonl`` and ``qrels.trec`` of ``split``."""
    write_jsonl(root.file(split, FROZEN), rows)
    table = pd.DataFrame({"qid": [r["query_id"] for r in rows], "docno": [r["doc_id"] for r in rows],
                          "grade": [int(r["final"]) for r in rows]})
    write_qrels(root.file(split, TREC), Qrels(table), header=f"frozen qrels of the {split} split (final grades)")
