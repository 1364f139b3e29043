"""The study's file formats under the evidence root: file names, value sets and one row model per file.

``split.json`` (under the root itself): ``{"families": {family: side}, "synthetic"}``, the coordinator's.

Rows (JSON Lines, one object per line, keys sorted on write):

* ``queries.jsonl``: :class:`assay.relevance.study.StudyQuery` rows of one split.
* ``pool.jsonl`` (the coordinator's key, never given to an annotator): :class:`PoolRow`
  ``{"query_id", "document_id", "doc_id", "position"}``; ``document_id`` is opaque, ``doc_id`` the
  corpus id, ``position`` the 1-based place of the candidate in the query's shuffled list.
* ``packet_A.jsonl`` / ``packet_B.jsonl``: identical bytes, :class:`PacketRow`
  ``{"query_id", "query", "document_id", "title", "text"}`` in pool order; no mode name, no corpus id.
* ``judgments_A.jsonl`` / ``judgments_B.jsonl``: :class:`JudgmentRow`, exactly seed 003's row
  ``{"query_id", "document_id", "relevance", "abstention_correct", "acceptable_citation_ids",
  "temporal_classification"}``.

The committed hash files that stand for the evidence in DVC live under :data:`REPORTS`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator
from pydantic_core import PydanticCustomError

from assay.artifacts.registry import STUDY_RECORDS

QUERIES = "queries.jsonl"
SPLIT_FILE = "split.json"
POOL = "pool.jsonl"
ANNOTATORS = ("A", "B")
SALT = "salt.json"


def run_names(mode: str) -> tuple[str, str]:
    """The pooled run of one mode in a split folder: its TREC run and its side file (latency, heuristic,
    runtime manifest), as the retrieve stage writes them for the whole corpus.

    >>> run_names("hybrid")
    ('runs/hybrid.trec', 'runs/hybrid.json')
    """
    return f"runs/{mode}.trec", f"runs/{mode}.json"


def packet_name(annotator: str) -> str:
    """``packet_A.jsonl`` or ``packet_B.jsonl``."""
    return f"packet_{annotator}.jsonl"


def judgments_name(annotator: str) -> str:
    """``judgments_A.jsonl`` or ``judgments_B.jsonl``."""
    return f"judgments_{annotator}.jsonl"


#: Seed 003's grades: 2 directly supports, 1 useful but incomplete, 0 does not support, -1 misleading or stale.
Relevance = Literal[2, 1, 0, -1]
RELEVANCE: tuple[Relevance, ...] = (2, 1, 0, -1)
#: Seed 003's temporal classes.
Temporal = Literal["current", "historical", "conflicted", "unknown"]
TEMPORAL: tuple[Temporal, ...] = ("current", "historical", "conflicted", "unknown")
#: The arbiter's reason codes (seed 003).
Reason = Literal["scope", "temporal", "provenance", "partial", "conflict", "other"]
REASONS: tuple[Reason, ...] = ("scope", "temporal", "provenance", "partial", "conflict", "other")
#: The judged fields of a row, in the seed's order: each one can be disputed, adjudicated and frozen.
FIELDS = ("relevance", "abstention_correct", "acceptable_citation_ids", "temporal_classification")
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
    """One annotator's judgment of one (query_id, document_id) pair, exactly seed 003's row.

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
