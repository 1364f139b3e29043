"""Frozen qrels: A's, B's and the arbiter's value of every judged field side by side, and the final TREC
qrels (docs/relevance-study.md, "Freeze the qrels and the manifests").

``qrels_frozen.jsonl``: one :class:`FrozenRow` per packet pair, in pool order::

    {"query_id", "document_id", "doc_id", "reason",
     "relevance": {"a", "b", "c", "final"}, "abstention_correct": {...},
     "acceptable_citation_ids": {...}, "temporal_classification": {...}}

For each judged field (:data:`~assay.study.formats.FIELDS`) ``c`` is the arbiter's value where A
and B differ and null where they agree; ``final`` is the agreed value or ``c``. Citation sets are
written as sorted lists of the packet's opaque document ids. ``reason`` is the arbiter's reason
code for the pair, null when A and B agreed on every field. The originals are never overwritten:
the judgment and decision files are only read, and each person's value keeps its own column.

``qrels.trec``: the final ``relevance`` in TREC form with the real corpus ``doc_id`` (from the
coordinator's pool key), for :mod:`assay.relevance.measures`; a header line says which split it is.

Edge cases: a pool pair with no judgment, or a packet pair missing from the pool key, is refused
(the coordinator's key and the packets must describe the same pairs).

:func:`qrels_step` is stage ``study_qrels``'s work: it checks the decisions, then writes each split's
frozen qrels and manifest (:mod:`assay.study.manifest`); its record holds their hashes.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import pandas as pd
from pydantic import BaseModel, ConfigDict

from assay.core.errors import InputError, Problem
from assay.core.io import write_json, write_jsonl
from assay.relevance.trec import Qrels, write_qrels
from assay.study.bundle import check_decisions
from assay.study.evidence import DECISIONS, FROZEN, MANIFEST, POOL, SPLITS, TREC, EvidenceRoot, file_hashes
from assay.study.formats import FIELDS, PoolRow, field_value, read_rows
from assay.study.manifest import build_manifest
from assay.study.opening import note_sealed_read
from assay.study.protocol import Study
from assay.study.receipt import pair_judgments, receipt_is_current
from assay.study.records import stage_record as _record

T = TypeVar("T")


class Sides(BaseModel, Generic[T]):
    """One field of one pair: A's, B's, the arbiter's (None when A and B agree) and the final value."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    a: T
    b: T
    c: T | None
    final: T


class FrozenRow(BaseModel):
    """One pair of the frozen qrels (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    query_id: str
    document_id: str
    doc_id: str
    reason: str | None
    relevance: Sides[int]
    abstention_correct: Sides[bool]
    acceptable_citation_ids: Sides[tuple[str, ...]]
    temporal_classification: Sides[str]

    @property
    def adjudicated(self) -> bool:
        """Whether the arbiter decided at least one field of this pair."""
        return any(getattr(self, f).c is not None for f in FIELDS)


def frozen_rows(root: EvidenceRoot, split: str) -> list[FrozenRow]:
    """The side-by-side rows of ``split`` (see the module docstring), in pool order.

    Raises:
        InputError: no current receipt, a decisions problem (:func:`check_decisions`), or a pool key
            that does not match the judged pairs.
    """
    receipt_is_current(root, split)
    decisions = check_decisions(root, split)
    paired = pair_judgments(root, split)
    judged = {key: (a, b) for key, a, b in zip(paired.pairs, paired.a, paired.b, strict=True)}
    pool_path = root.file(split, POOL)
    pool = read_rows(root, pool_path, PoolRow)
    problems, rows = [], []
    for line, p in sorted(pool, key=lambda r: (r[1].query_id, r[1].position)):
        key = (p.query_id, p.document_id)
        if key not in judged:
            problems.append(Problem(root.show(pool_path), line, "document_id", f"pair {key} has no judgments",
                                    "the packets and the pool key must hold the same pairs"))
            continue
        a, b = judged[key]
        decision = decisions.get(key)
        decided = decision.decided() if decision else {}
        sides = {}
        for f in FIELDS:
            x, y = field_value(a, f), field_value(b, f)
            c = decided[f] if x != y else None
            sides[f] = {"a": x, "b": y, "c": c, "final": x if x == y else c}
        rows.append(FrozenRow(query_id=p.query_id, document_id=p.document_id, doc_id=p.doc_id,
                              reason=decision.reason if decision else None, **sides))
    missing = set(judged) - {(r.query_id, r.document_id) for r in rows}
    problems += [Problem(root.show(pool_path), None, None, f"judged pair {key} is not in the pool key",
                         "the packets and the pool key must hold the same pairs") for key in sorted(missing)]
    if problems:
        raise InputError(problems)
    return rows


def write_frozen(root: EvidenceRoot, split: str, rows: list[FrozenRow]) -> None:
    """Write ``qrels_frozen.jsonl`` and ``qrels.trec`` of ``split``."""
    write_jsonl(root.file(split, FROZEN), [r.model_dump(mode="json") for r in rows])
    table = pd.DataFrame({"qid": [r.query_id for r in rows], "docno": [r.doc_id for r in rows],
                          "grade": [int(r.relevance.final) for r in rows]})
    write_qrels(root.file(split, TREC), Qrels(table), header=f"frozen qrels of the {split} split (final grades)")


def qrels_step(study: Study, root: EvidenceRoot, corpus: str) -> dict:
    """Check the decisions, write each split's frozen qrels and manifest; the record holds their hashes."""
    counts = {}
    for split in SPLITS:
        note_sealed_read(root, split, "study_qrels", DECISIONS)
        rows = frozen_rows(root, split)
        write_frozen(root, split, rows)
        manifest = build_manifest(root, split, study.protocol_version, study.synthetic, corpus, study.thresholds)
        write_json(root.file(split, MANIFEST), manifest)
        counts[split] = {"pairs": len(rows), "adjudicated": sum(r.adjudicated for r in rows),
                         "decided": {f: sum(getattr(r, f).c is not None for r in rows) for f in FIELDS},
                         "relevant": sum(r.relevance.final >= 1 for r in rows)}
    names = [f"{s}/{n}" for s in SPLITS for n in (DECISIONS, FROZEN, TREC, MANIFEST)]
    return _record(study, qrels=counts, evidence=file_hashes(root, names))
