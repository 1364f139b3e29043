"""The two blind packets: one for annotator A and one for B, byte for byte the same.

A packet row holds what a person needs to judge a pair and nothing that says where it came from:
``query_id``, ``query`` (the text), the opaque ``document_id``, ``title`` and ``text``. It has no
mode name, score, rank or corpus id; rows follow the pool's order (query, then shuffled position).
"""

from __future__ import annotations

from pathlib import Path

from assay.core.errors import AssayError
from assay.core.io import write_jsonl
from assay.relevance.corpus import StudyDocument, StudyQuery
from assay.study.evidence import ANNOTATORS, packet_name
from assay.study.formats import PacketRow, PoolRow


class PacketMismatch(AssayError):
    """The packets of A and B differ, so the two annotators did not judge the same thing (exit 2)."""

    exit_code = 2


def packet_rows(pool: list[PoolRow], documents: list[StudyDocument], queries: list[StudyQuery]) -> list[dict]:
    """One packet row per pool row, in pool order."""
    docs = {d.doc_id: d for d in documents}
    texts = {q.query_id: q.text for q in queries}
    return [PacketRow(query_id=r.query_id, query=texts[r.query_id], document_id=r.document_id,
                      title=docs[r.doc_id].title, text=docs[r.doc_id].text).model_dump() for r in pool]


def write_packets(folder: Path, rows: list[dict]) -> list[Path]:
    """Write ``packet_A.jsonl`` and ``packet_B.jsonl`` in ``folder`` from the same rows; return their paths."""
    paths = [folder / packet_name(a) for a in ANNOTATORS]
    for p in paths:
        write_jsonl(p, rows)
    return paths


def require_identical(folder: Path) -> None:
    """Check that the two packets in ``folder`` have the same bytes.

    Raises:
        PacketMismatch: they differ, or one is missing (the message names files relative to the split).
    """
    a, b = (folder / packet_name(x) for x in ANNOTATORS)
    if not (a.is_file() and b.is_file()) or a.read_bytes() != b.read_bytes():
        raise PacketMismatch(f"{folder.name}/{a.name} and {folder.name}/{b.name} are not identical "
                             "(fix: rebuild both with `dvc repro study_pool` before handing them out)")
