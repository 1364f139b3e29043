"""Facts no document of their case holds: cases no system can pass.

The runner counts a stated fact as supported only when it appears, in
:func:`assay.data.tokens.fold` form (NFKC, case folding, blanks as one space), in a document the
reply cites, and a reply may cite only the case's ``doc_ids``. A fact that appears in none of the
case's documents can therefore never be supported: the case is unpassable. It is usually a
paraphrase of the document ("thirty days" for "30 days") or a doc_id that names the wrong document.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from assay.core.errors import Problem
from assay.core.io import scan_jsonl
from assay.data.tokens import fold

if TYPE_CHECKING:
    from assay.data.cases import CaseRecord
    from assay.data.corpus import Document

FIX = "write the fact as the document words it, or add the document that holds it to doc_ids"


def unpassable_facts(path: str, cases: Iterable[tuple[int | None, CaseRecord]],
                     documents: Mapping[str, Document]) -> list[Problem]:
    """One Problem per fact that appears in none of its case's documents, in file order.

    ``cases`` are ``(line, case)`` pairs (``line`` 1-based, ``None`` when unknown); the Problem's
    field is ``facts[i]``. A doc_id missing from ``documents`` counts as holding nothing (an unknown
    doc_id is reported by the case checks themselves). Abstain cases have no facts and never appear.
    """
    folded: dict[str, str] = {}

    def text(doc_id: str) -> str:
        if doc_id not in folded:
            folded[doc_id] = fold(documents[doc_id].text) if doc_id in documents else ""
        return folded[doc_id]

    problems = []
    for line, case in cases:
        for i, fact in enumerate(case.facts):
            if not any(fold(fact) in text(d) for d in case.doc_ids):
                problems.append(Problem(path, line, f"facts[{i}]", f"{fact!r} appears in none of the case's documents "
                                        f"({', '.join(case.doc_ids)}), so no answer can pass", FIX))
    return problems


def unpassable_in_file(path: str | Path, cases: list[CaseRecord], documents: Mapping[str, Document]) -> list[Problem]:
    """:func:`unpassable_facts` of the cases loaded from ``path``, each named by its line there.

    ``cases`` must be what :func:`assay.data.cases.load_cases` returned for ``path`` (it refuses
    a file with any bad line, so every row read is one case, in file order); a different count is
    a ``ValueError``.
    """
    rows, _ = scan_jsonl(path)
    return unpassable_facts(str(path), zip((line for line, _ in rows), cases, strict=True), documents)
