"""What the study's files under the evidence root hold: value sets, one row model per file, and reading them.

The files' names are :mod:`assay.study.evidence`'s. ``split.json`` (under the root itself):
``{"families": {family: side}, "synthetic"}``, the coordinator's.

Rows (JSON Lines, one object per line, keys sorted on write):

* ``queries.jsonl``: :class:`assay.relevance.corpus.StudyQuery` rows of one split.
* ``pool.jsonl`` (the coordinator's key, never given to an annotator): :class:`PoolRow`
  ``{"query_id", "document_id", "doc_id", "position"}``; ``document_id`` is opaque, ``doc_id`` the
  corpus id, ``position`` the 1-based place of the candidate in the query's shuffled list.
* ``packet_A.jsonl`` / ``packet_B.jsonl``: identical bytes, :class:`PacketRow`
  ``{"query_id", "query", "document_id", "title", "text"}`` in pool order; no mode name, no corpus id.
* ``judgments_A.jsonl`` / ``judgments_B.jsonl``: :class:`JudgmentRow`, exactly the protocol's row
  ``{"query_id", "document_id", "relevance", "abstention_correct", "acceptable_citation_ids",
  "temporal_classification"}``.

:func:`read_rows` and :func:`scan_rows` read a file into its row model; every problem names the file as
:meth:`~assay.study.evidence.EvidenceRoot.show` writes it (``$ASSAY_EVIDENCE_ROOT/...``), never the
root's value, with its line. The committed hash files that stand for the evidence in DVC live under
:data:`REPORTS`. The protocol these rows serve is docs/relevance-study.md ("The human study, step by step").
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator
from pydantic_core import PydanticCustomError

from assay.artifacts.registry import STUDY_RECORDS
from assay.core.errors import InputError, Problem
from assay.core.io import scan_jsonl
from assay.core.records import check_rows
from assay.study.evidence import EvidenceRoot

#: The protocol's grades: 2 directly supports, 1 useful but incomplete, 0 does not support, -1 misleading or stale.
Relevance = Literal[2, 1, 0, -1]
RELEVANCE: tuple[Relevance, ...] = (2, 1, 0, -1)
#: The protocol's temporal classes.
Temporal = Literal["current", "historical", "conflicted", "unknown"]
TEMPORAL: tuple[Temporal, ...] = ("current", "historical", "conflicted", "unknown")
#: The arbiter's reason codes.
Reason = Literal["scope", "temporal", "provenance", "partial", "conflict", "other"]
REASONS: tuple[Reason, ...] = ("scope", "temporal", "provenance", "partial", "conflict", "other")
#: The judged fields of a row, in the protocol's order: each one can be disputed, adjudicated and frozen.
FIELDS = ("relevance", "abstention_correct", "acceptable_citation_ids", "temporal_classification")
M = TypeVar("M", bound=BaseModel)

#: The opaque document id: ``doc-`` and 10 hex digits of a keyed hash.
DOCUMENT_ID = r"^doc-[0-9a-f]{10}$"

#: Where the committed hash files of the study's stages live (no paths, no content: names, hashes, counts).
REPORTS = STUDY_RECORDS.relpath()


class PoolRow(BaseModel):
    """One pooled candidate: the coordinator's key from opaque ``document_id`` to corpus ``doc_id``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    query_id: str = Field(pattern=r"^\S+$")
    document_id: str = Field(pattern=DOCUMENT_ID)
    doc_id: str = Field(pattern=r"^\S+$")
    position: StrictInt = Field(ge=1)


class PacketRow(BaseModel):
    """One (query, candidate) pair as an annotator sees it: no mode, no score, no corpus id."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    query_id: str = Field(pattern=r"^\S+$")
    query: str = Field(min_length=1)
    document_id: str = Field(pattern=DOCUMENT_ID)
    title: str
    text: str = Field(min_length=1)


def no_boolean_grade(value: object) -> object:
    """Refuse ``true``/``false`` as a relevance grade (``True == 1`` in Python); return any other value as is."""
    if isinstance(value, bool):
        raise PydanticCustomError("grade_type", f"{value!r} is not one of 2, 1, 0, -1",
                                  {"fix": "write the grade as a number: 2, 1, 0 or -1"})
    return value


def field_value(row: BaseModel, name: str) -> object:
    """The comparable value of judged field ``name`` of ``row``: citations as a sorted, de-duplicated tuple.

    ``acceptable_citation_ids`` is a set: ``["d2", "d1"]`` and ``["d1", "d2", "d1"]`` are the same
    answer, so they never count as a disagreement. ``None`` (a field a decision leaves out) stays None.
    """
    value = getattr(row, name)
    return tuple(sorted(set(value))) if name == "acceptable_citation_ids" and value is not None else value


class JudgmentRow(BaseModel):
    """One annotator's judgment of one (query_id, document_id) pair, exactly the protocol's row.

    ``relevance`` and ``abstention_correct`` are strict: ``"2"``, ``2.0`` or ``true`` for a grade,
    and ``1`` or ``"false"`` for the boolean, are values outside their set.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    query_id: str = Field(pattern=r"^\S+$")
    document_id: str = Field(pattern=r"^\S+$")
    relevance: Literal[2, 1, 0, -1]
    abstention_correct: StrictBool
    acceptable_citation_ids: tuple[str, ...]
    temporal_classification: Literal["current", "historical", "conflicted", "unknown"]

    _no_boolean_grade = field_validator("relevance", mode="before")(no_boolean_grade)


def read_rows(root: EvidenceRoot, path: Path, model: type[M]) -> list[tuple[int, M]]:
    """Like :func:`scan_rows`, but every bad line fails at once as one :class:`InputError`."""
    good, problems = scan_rows(root, path, model)
    if problems:
        raise InputError(problems)
    return good


def scan_rows(root: EvidenceRoot, path: Path, model: type[M]) -> tuple[list[tuple[int, M]], list[Problem]]:
    """``(line, row)`` for every good row of ``path`` and one Problem per bad line (JSON or fields).

    Raises:
        InputError: the file does not exist (named through the root).
    """
    shown = root.show(path)
    if not Path(path).is_file():
        raise InputError([Problem(shown, None, None, "file not found", "write this step's file first")])
    rows, problems = scan_jsonl(path)
    good, bad = check_rows(shown, rows, model, key=None)
    return good, [Problem(shown, p.line, p.field, p.message, p.fix) for p in problems] + bad


def digest(root: EvidenceRoot, path: Path) -> str:
    """SHA-256 of ``path``'s bytes.

    Raises:
        InputError: the file does not exist, named through the root.
    """
    from assay.core.io import sha256_file

    if not Path(path).is_file():
        raise InputError([Problem(root.show(path), None, None, "file not found", "write this step's file first")])
    return sha256_file(path)

