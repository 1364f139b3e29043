"""The retrieval corpus and its queries, read into validated records.

``relevance.corpus`` is either the project's own corpus, a folder of Markdown documents
(:mod:`assay.data.corpus`, the folder ``inputs.corpus`` names; each document becomes a ``policy``
record whose family is the newest version its ``superseded_by`` chain reaches, ``valid_from`` its
``updated`` date), or a second corpus in the study-corpus format below (``assay corpus build``
writes one from a team's .txt, .md and .jsonl files; :mod:`assay.relevance.builder`).

Every retrieval mode (:mod:`assay.relevance.modes`) ranks these documents for these queries, and
the human relevance study (:mod:`assay.study`) splits, pools and judges the same records, so the
schema lives here, below both. The ``Study`` prefix of the record names is historical.

``corpus.jsonl``: one document per line with ``doc_id``, ``family``, ``kind`` (policy, paraphrase,
source, note), ``title``, ``text``, ``valid_from``, ``valid_to`` (None while in force),
``superseded_by``, ``sources`` and ``mentions`` (document ids) and, optionally, ``lang`` (a BCP 47
tag). A document with ``valid_to`` or ``superseded_by`` is superseded (stale for a question about the
current fact).

``queries.jsonl``: one query per line with ``query_id``, ``task`` (current, historical, trace,
abstain, link), ``text``, ``as_of`` (historical only), ``family`` and ``acceptable_citation_ids``
(empty exactly for abstain queries).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assay.core.errors import InputError, Problem
from assay.core.io import read_jsonl
from assay.core.records import validate_rows
from assay.data.langtag import LangTag

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
    lang: LangTag | None = None

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
    """Documents of ``path`` in file order; every bad row (fields, duplicate ids, unknown links) fails once.

    ``path`` a folder: the project's Markdown corpus (:func:`project_documents`), sorted by id.
    """
    if Path(path).is_dir():
        return project_documents(path)
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


def project_documents(folder: str) -> list[StudyDocument]:
    """The project's own corpus (``*.md`` files with a header, :func:`assay.data.corpus.load_corpus`) as records.

    Each document is a ``policy`` valid from its ``updated`` date; its family is the newest document
    its ``superseded_by`` chain reaches (a chain that loops is refused), so the versions of one
    policy share a family and a question about the current fact finds the older ones stale.

    Raises:
        InputError: every bad file (see :func:`~assay.data.corpus.load_corpus`), or a loop of ``superseded_by``.
    """
    from assay.data.corpus import load_corpus

    docs = load_corpus(folder)
    links = {doc_id: d.superseded_by for doc_id, d in docs.items()}
    return [StudyDocument(doc_id=doc_id, family=newest_version(links, doc_id, f"{folder}/{doc_id}.md"), kind="policy",
                          title=d.title, text=d.text, valid_from=d.updated, superseded_by=d.superseded_by, lang=d.lang)
            for doc_id, d in sorted(docs.items())]


def newest_version(links: Mapping[str, str | None], doc_id: str, where: str) -> str:
    """The document the ``superseded_by`` chain from ``doc_id`` ends at (``links``: id -> the id replacing it).

    >>> newest_version({"a": "b", "b": "c", "c": None}, "a", "x"), newest_version({"c": None}, "c", "x")
    ('c', 'c')

    Raises:
        InputError: the chain loops (named at ``where``).
    """
    newest, seen = doc_id, {doc_id}
    while links.get(newest):
        newest = str(links[newest])
        if newest in seen:
            raise InputError([Problem(where, None, "superseded_by", f"the chain from {doc_id!r} loops back to {newest!r}",
                                      "let the newest version name no superseded_by")])
        seen.add(newest)
    return newest


def corpus_sha256(path: str) -> str:
    """SHA-256 of the corpus at ``path``: the file's bytes, or for a Markdown folder its ``*.md`` files'
    names and bytes (:func:`assay.core.io.sha256_tree`)."""
    from assay.core.io import sha256_file, sha256_tree

    return sha256_tree(path, "*.md") if Path(path).is_dir() else sha256_file(path)


def load_queries(path: str) -> list[StudyQuery]:
    """Queries of ``path`` in file order; every bad row fails once."""
    return [q for _, q in validate_rows(path, read_jsonl(path), StudyQuery, key="query_id")]
