"""A study corpus (the JSONL format of :mod:`assay.relevance.corpus`) built from a team's own documents.

``assay corpus build SOURCE... --out FILE`` reads, from files or folders (walked, sorted):

- ``.txt``: one document per file; its title is the file name without the suffix.
- ``.md``: one document per file. A YAML header between ``---`` lines may give ``title``, ``lang``,
  ``updated`` (the date it holds from) and ``superseded_by`` (another ``.md`` file's name without
  ``.md``), as in the project corpus; without a header the title is the first ``# heading`` (or the
  file name).
- ``.jsonl``: one document per line, the fields of :class:`SourceRow` (``text`` required).

A document's id is ``d-`` and the first 12 hex digits of the SHA-256 of its text (NFC form,
surrounding blanks stripped) unless a ``.jsonl`` row gives ``id``: the same text gives the same id
whatever its file is called and in whatever order the files come, and two documents with the same
text are refused (naming both places). ``lang`` is required for every document, from the file or the
``--lang`` default, as a BCP 47 tag; ``valid_from`` likewise (``--valid-from``). The family is the
newest document a ``superseded_by`` chain reaches (else the document itself); ``kind`` is
``policy`` unless a row says otherwise. Every problem of every file is collected, named by file,
line and field, then the build fails once; nothing is written then.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.core.errors import InputError, Problem
from assay.core.records import problems_from
from assay.data.langtag import LangTag
from assay.relevance.corpus import StudyDocument, newest_version

SUFFIXES = (".txt", ".md", ".jsonl")


class SourceRow(BaseModel):
    """One line of a ``.jsonl`` source (or the header of a ``.md`` file, without ``text``)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1)
    id: str | None = Field(default=None, pattern=r"^\S+$")
    title: str | None = None
    lang: LangTag | None = None
    valid_from: dt.date | None = None
    valid_to: dt.date | None = None
    superseded_by: str | None = None
    family: str | None = None
    kind: Literal["policy", "paraphrase", "source", "note"] = "policy"


@dataclass(frozen=True)
class Defaults:
    """What a document that does not say takes: ``lang`` (a BCP 47 tag) and ``valid_from``; ``None``: required."""

    lang: str | None = None
    valid_from: dt.date | None = None


@dataclass
class _Found:
    path: str  # where the document is, for messages
    line: int
    row: SourceRow
    ref: str | None = None  # how other .md files name it in superseded_by (its file stem)


def text_id(text: str) -> str:
    """``d-`` and 12 hex digits of the SHA-256 of ``text`` in NFC form, surrounding blanks stripped.

    >>> text_id("Refunds take 14 days.") == text_id("  Refunds take 14 days.\\n")
    True
    """
    return "d-" + hashlib.sha256(unicodedata.normalize("NFC", text.strip()).encode("utf-8")).hexdigest()[:12]


def source_files(sources: list[str | Path]) -> tuple[list[Path], list[Problem]]:
    """The ``.txt``, ``.md`` and ``.jsonl`` files of ``sources`` (folders walked), sorted, without repeats."""
    files: set[Path] = set()
    problems = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            files.update(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES
                         and not any(part.startswith(".") for part in p.relative_to(path).parts))
        elif path.is_file() and path.suffix.lower() in SUFFIXES:
            files.add(path)
        elif path.is_file():
            problems.append(Problem(str(path), None, None, f"a {path.suffix or 'suffix-less'} file is not a document source",
                                    "give .txt, .md or .jsonl files, or a folder of them"))
        else:
            problems.append(Problem(str(path), None, None, "not found", "name an existing file or folder"))
    if not files and not problems:
        problems.append(Problem(", ".join(map(str, sources)), None, None, "holds no .txt, .md or .jsonl file",
                                "add the team's documents, one file each (or one JSON object per line)"))
    return sorted(files), problems


def _read_text(path: Path) -> str:
    from assay.core.io import decode_utf8

    return decode_utf8(path.read_bytes(), path)


def _markdown(path: Path) -> _Found:
    """A ``.md`` file: its optional header, then the body (see the module docstring)."""
    import yaml

    text = _read_text(path)
    lines = text.split("\n")
    header: dict = {}
    body_start = 0
    if lines[0].strip() == "---" and "---" in [ln.strip() for ln in lines[1:]]:
        end = 1 + [ln.strip() for ln in lines[1:]].index("---")
        try:
            header = yaml.safe_load("\n".join(lines[1:end])) or {}
        except yaml.YAMLError as error:
            raise InputError([Problem(str(path), 2, None, f"header is not valid YAML ({getattr(error, 'problem', error)})",
                                      "fix the header, or remove it")]) from None
        if not isinstance(header, dict):
            raise InputError([Problem(str(path), 2, None, "the header is not a mapping of fields", "write one 'field: value' a line")])
        body_start = end + 1
    body = "\n".join(lines[body_start:]).strip()
    if "updated" in header:  # the project corpus calls its date `updated`
        header["valid_from"] = header.pop("updated")
    title = header.get("title") or next((ln.lstrip("#").strip() for ln in body.split("\n") if ln.startswith("# ")), path.stem)
    fields = {**header, "title": title, "text": body}
    try:
        return _Found(str(path), 1, _row(fields, str(path), body_start + 1), ref=path.stem)
    except InputError as error:  # a header field's problem is named at that field's line
        keys = {"valid_from": ("valid_from:", "updated:")}
        raise InputError([Problem(p.path, next((i + 1 for i, ln in enumerate(lines[:body_start])
                                                 if p.field and ln.startswith(keys.get(p.field, (f"{p.field}:",)))), p.line),
                                  p.field, p.message, p.fix) for p in error.problems]) from None


def _row(fields: dict, path: str, line: int) -> SourceRow:
    try:
        return SourceRow.model_validate(fields)
    except ValidationError as error:
        raise InputError(problems_from(error, path, line, SourceRow)) from None


def _jsonl(path: Path) -> tuple[list[_Found], list[Problem]]:
    from assay.core.io import scan_jsonl

    rows, problems = scan_jsonl(path)
    found = []
    for line, data in rows:
        try:
            found.append(_Found(str(path), line, _row(data, str(path), line), ref=data.get("id")))
        except InputError as error:
            problems.extend(error.problems)
    return found, problems


def read_sources(sources: list[str | Path]) -> tuple[list[_Found], list[Problem]]:
    """Every document of ``sources`` and every problem met reading them (nothing is checked across files yet)."""
    files, problems = source_files(sources)
    found: list[_Found] = []
    for f in files:
        try:
            if f.suffix.lower() == ".jsonl":
                rows, more = _jsonl(f)
                found += rows
                problems += more
            elif f.suffix.lower() == ".md":
                found.append(_markdown(f))
            else:
                body = _read_text(f).strip()
                found.append(_Found(str(f), 1, _row({"text": body, "title": f.stem}, str(f), 1)))
        except InputError as error:
            problems.extend(error.problems)
    return found, problems


def build_documents(sources: list[str | Path], defaults: Defaults = Defaults()) -> list[StudyDocument]:
    """The study corpus of ``sources``, sorted by id (see the module docstring).

    Raises:
        InputError: every problem at once: unreadable files, bad fields, a missing ``lang`` or
            ``valid_from`` with no default, a duplicate id or text, a ``superseded_by`` that names no
            document, a loop of them.
    """
    found, problems = read_sources(sources)
    ids: dict[str, _Found] = {}
    refs: dict[str, str] = {}
    for item in found:
        doc_id = item.row.id or text_id(item.row.text)
        if doc_id in ids:
            first = ids[doc_id]
            same = "the same text as" if item.row.id is None else "the same id as"
            problems.append(Problem(item.path, item.line, "id" if item.row.id else "text",
                                    f"{doc_id!r}: {same} {first.path}:{first.line}", "keep one of them"))
            continue
        ids[doc_id] = item
        refs[item.ref or doc_id] = doc_id
        refs[doc_id] = doc_id
        for field, value, default, fix in (("lang", item.row.lang, defaults.lang, "--lang TAG (e.g. es, de, pt-BR)"),
                                           ("valid_from", item.row.valid_from, defaults.valid_from, "--valid-from YYYY-MM-DD")):
            if value is None and default is None:
                problems.append(Problem(item.path, item.line, field, f"the document gives no {field} and no "
                                        "default was given", f"add '{field}' to the document, or give {fix}"))
    docs: dict[str, StudyDocument] = {}
    for doc_id, item in ids.items():
        newer = item.row.superseded_by
        if newer is not None and newer not in refs:
            problems.append(Problem(item.path, item.line, "superseded_by", f"{newer!r} names no document",
                                    "name another document's file name (without .md) or its id"))
            continue
        if problems:
            continue
        try:
            docs[doc_id] = StudyDocument(
                doc_id=doc_id, family=item.row.family or doc_id, kind=item.row.kind, title=item.row.title or doc_id,
                text=item.row.text, valid_from=item.row.valid_from or defaults.valid_from,
                valid_to=item.row.valid_to, superseded_by=refs[newer] if newer else None,
                lang=item.row.lang or defaults.lang)
        except ValidationError as error:
            problems += problems_from(error, item.path, item.line, StudyDocument)
    if problems:
        raise InputError(problems)
    return [_with_family(docs, doc_id, ids[doc_id].row.family, f"{ids[doc_id].path}:{ids[doc_id].line}")
            for doc_id in sorted(docs)]


def _with_family(docs: dict[str, StudyDocument], doc_id: str, given: str | None, where: str) -> StudyDocument:
    """``docs[doc_id]`` with its family: ``given``, else the newest document its ``superseded_by`` chain reaches."""
    family = given or newest_version({k: d.superseded_by for k, d in docs.items()}, doc_id, where)
    return docs[doc_id].model_copy(update={"family": family})


def write_corpus(documents: list[StudyDocument], out: str | Path) -> None:
    """Write ``documents`` as the study corpus JSONL at ``out``, atomically; keys sorted, ``None`` fields left out."""
    from assay.core.io import write_jsonl

    write_jsonl(out, [d.model_dump(mode="json", exclude_none=True) for d in documents])


__all__ = ["Defaults", "SourceRow", "build_documents", "source_files", "text_id", "write_corpus"]
