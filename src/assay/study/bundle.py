"""The arbiter's bundle (step 7) and the check of the arbiter's decisions.

``bundle.jsonl`` holds only the pairs where A's and B's relevance differ, in packet order:
``{"query_id", "query", "document_id", "title", "text", "grades"}``. It is blind to who said what:
``grades`` is the two grades sorted ascending, so the arbiter sees how far apart the annotators
were but never which annotator gave which grade (and nothing else from the judgments, since
citations and temporal classes would tell the files apart too). The bundle is written only after
the agreement receipt exists and matches the judgment files (:func:`receipt_is_current`).

``decisions.jsonl`` is the arbiter's: one row per bundle row, ``{"query_id", "document_id",
"relevance", "reason"}`` with ``relevance`` in {2, 1, 0, -1} and ``reason`` one of seed 003's codes
(scope, temporal, provenance, partial, conflict, other). :func:`check_decisions` refuses, each at
``file:line``: a row that is not JSON, a missing or unknown field, a missing or unknown reason, a
grade outside the set, a pair not in the bundle, a pair decided twice, and (at the bundle's line) a
bundle row with no decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.core.errors import InputError, Problem
from assay.core.io import write_jsonl
from assay.study.evidence import EvidenceRoot
from assay.study.formats import REASONS, RELEVANCE, PacketRow, packet_name
from assay.study.receipt import pair_judgments, receipt_is_current
from assay.study.rows import read_rows, scan_rows

BUNDLE = "bundle.jsonl"
DECISIONS = "decisions.jsonl"


class BundleRow(BaseModel):
    """One disagreement as the arbiter sees it: the pair, its texts and the two grades, unattributed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    query_id: str
    query: str
    document_id: str
    title: str
    text: str
    grades: tuple[int, int]


class Decision(BaseModel):
    """The arbiter's final grade of one disagreement and its reason code."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    query_id: str = Field(pattern=r"^\S+$")
    document_id: str = Field(pattern=r"^\S+$")
    relevance: Literal[RELEVANCE]  # type: ignore[valid-type]
    reason: Literal[REASONS]  # type: ignore[valid-type]


def build_bundle(root: EvidenceRoot, split: str) -> list[BundleRow]:
    """The disagreements of ``split`` in packet order, blind to who said what.

    Raises:
        InputError: no current receipt (see :func:`receipt_is_current`), bad judgments or packet.
    """
    receipt_is_current(root, split)
    paired = pair_judgments(root, split)
    grades = {paired.pairs[i]: tuple(sorted((paired.a[i].relevance, paired.b[i].relevance)))
              for i in paired.disagreements}
    packet = read_rows(root, root.file(split, packet_name("A")), PacketRow)
    return [BundleRow(query_id=p.query_id, query=p.query, document_id=p.document_id, title=p.title, text=p.text,
                      grades=grades[(p.query_id, p.document_id)])
            for _, p in packet if (p.query_id, p.document_id) in grades]


def write_bundle(root: EvidenceRoot, split: str, rows: list[BundleRow]) -> Path:
    """Write ``<root>/<split>/bundle.jsonl``; return its path."""
    path = root.file(split, BUNDLE)
    write_jsonl(path, [r.model_dump(mode="json") for r in rows])
    return path


def check_decisions(root: EvidenceRoot, split: str) -> dict[tuple[str, str], Decision]:
    """The arbiter's decisions of ``split`` by pair, after checking them against the bundle.

    Raises:
        InputError: every problem listed in the module docstring, each at ``file:line``; the fix
            says to return the file to the arbiter.
    """
    bundle_path, path = root.file(split, BUNDLE), root.file(split, DECISIONS)
    bundle = read_rows(root, bundle_path, BundleRow)
    rows, problems = scan_rows(root, path, Decision)
    shown = root.show(path)
    back = "return the decisions file to the arbiter"
    wanted = {(b.query_id, b.document_id): line for line, b in bundle}
    out: dict[tuple[str, str], Decision] = {}
    first: dict[tuple[str, str], int] = {}
    for line, d in rows:
        key = (d.query_id, d.document_id)
        if key not in wanted:
            problems.append(Problem(shown, line, "document_id", f"pair {key} is not in the bundle",
                                    f"decide only the bundle's disagreements; {back}"))
        elif key in first:
            problems.append(Problem(shown, line, "document_id", f"pair {key} is decided twice (first on line {first[key]})",
                                    f"one decision per disagreement; {back}"))
        else:
            first[key] = line
            out[key] = d
    for key, line in wanted.items():
        if key not in first:
            problems.append(Problem(root.show(bundle_path), line, None, f"pair {key} has no decision in {DECISIONS}",
                                    f"the arbiter decides every disagreement; {back}"))
    if problems:
        raise InputError(problems)
    return out
