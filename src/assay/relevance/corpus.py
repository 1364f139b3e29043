"""The retrieval corpus and its queries: JSONL files read into validated records.

Every retrieval mode (:mod:`assay.relevance.modes`) ranks these documents for these queries, and
the human relevance study (:mod:`assay.study`) splits, pools and judges the same records, so the
schema lives here, below both. The ``Study`` prefix of the record names is historical.

``corpus.jsonl``: one document per line with ``doc_id``, ``family``, ``kind`` (policy, paraphrase,
source, note), ``title``, ``text``, ``valid_from``, ``valid_to`` (None while in force),
``superseded_by``, ``sources`` and ``mentions`` (document ids). A document with ``valid_to`` or
``superseded_by`` is superseded (stale for a question about the current fact).

``queries.jsonl``: one query per line with ``query_id``, ``task`` (current, historical, trace,
abstain, link), ``text``, ``as_of`` (historical only), ``family`` and ``acceptable_citation_ids``
(empty exactly for abstain queries).
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assay.core.errors import InputError, Problem
from assay.core.io import read_jsonl
from assay.core.records import validate_rows

TASKS = ("current", "historical", "trace", "abstain", "link")


class StudyDocument(BaseModel):
    """One corpus document of a relevance study."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    doc_id: str = Field(pattern=r"^\S+$")
    family: str
    kind: Literal["policy", "paraphrase", "source", "note"]
    title: str
    text: str = Field(min_length=1)
    valid_from: dt.date
    valid_to: dt.date | None = None
    superseded_by: str | None = None
    sources: tuple[str, ...] = ()
    mentions: tuple[str, ...] = ()

    @property
    def superseded(self) -> bool:
        """True when a newer version replaces this document."""
        return self.valid_to is not None or self.superseded_by is not None


class StudyQuery(BaseModel):
    """One query of a relevance study."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    query_id: str = Field(pattern=r"^\S+$")
    task: Literal["current", "historical", "trace", "abstain", "link"]
    text: str = Field(min_length=1)
    as_of: dt.date | None = None
    family: str | None = None
    acceptable_citation_ids: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> StudyQuery:
        if (self.task == "abstain") != (not self.acceptable_citation_ids):
            raise ValueError("acceptable_citation_ids must be empty exactly when task is abstain")
        if (self.task == "historical") != (self.as_of is not None):
            raise ValueError("as_of is required for a historical query and only used there")
        return self


def load_documents(path: str) -> list[StudyDocument]:
    """Documents of ``path`` in file order; every bad row (fields, duplicate ids, unknown links) fails once."""
    pairs = validate_rows(path, read_jsonl(path), StudyDocument, key="doc_id")
    ids = {d.doc_id for _, d in pairs}
    problems = [Problem(path, line, field, f"{target!r} is not a document id", "link only to documents in the corpus")
                for line, d in pairs
                for field, targets in (("sources", d.sources), ("mentions", d.mentions),
                                       ("superseded_by", [d.superseded_by] if d.superseded_by else []))
                for target in targets if target not in ids]
    if problems:
        raise InputError(problems)
    return [d for _, d in pairs]


def load_queries(path: str) -> list[StudyQuery]:
    """Queries of ``path`` in file order; every bad row fails once."""
    return [q for _, q in validate_rows(path, read_jsonl(path), StudyQuery, key="query_id")]
