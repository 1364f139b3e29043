"""The document corpus: one Markdown file per document with a small YAML header.

File ``data/corpus/<doc_id>.md``::

    ---
    title: Returns for new bikes
    lang: en                 # en or bn
    updated: 2026-03-01
    superseded_by: kc-returns-v3   # optional: a newer document replaces this one
    ---
    First paragraph.

    Second paragraph.

The document id is the file name without ``.md``. Paragraphs are separated by blank lines.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.core.errors import InputError, Problem
from assay.core.records import problems_from

LANGS = ("en", "bn")


class DocumentHeader(BaseModel):
    """The YAML header of a corpus document."""

    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1)
    lang: Literal["en", "bn"]
    updated: dt.date
    superseded_by: str | None = None


class Document(BaseModel):
    """A corpus document: id (the file stem), header fields and body text."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    title: str
    lang: Literal["en", "bn"]
    updated: dt.date
    superseded_by: str | None = None
    text: str

    def paragraphs(self) -> list[str]:
        """Non-empty paragraphs of the body, in order, stripped."""
        return [p.strip() for p in self.text.split("\n\n") if p.strip()]


def parse_document(path: Path) -> Document:
    """Parse one corpus file; raise InputError naming the file and line on a bad header."""
    import yaml

    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in [ln.strip() for ln in lines[1:]]:
        raise InputError([Problem(str(path), 1, None, "missing YAML header between '---' lines",
                                  "start the file with ---, title/lang/updated lines, then ---")])
    end = 1 + [ln.strip() for ln in lines[1:]].index("---")
    try:
        header = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as error:
        raise InputError([Problem(str(path), 2, None, f"header is not valid YAML ({error})", "fix the header")]) from None
    try:
        h = DocumentHeader.model_validate(header)
    except ValidationError as error:
        raise InputError(problems_from(error, str(path), 2, DocumentHeader)) from None
    body = "\n".join(lines[end + 1:]).strip() + "\n"
    return Document(id=path.stem, text=body, **h.model_dump())


def load_corpus(folder: str | Path) -> dict[str, Document]:
    """Load every ``*.md`` file under ``folder`` (sorted by id); collect all bad files, then fail once.

    A ``superseded_by`` that names no document in the corpus is an error.
    """
    root = Path(folder)
    if not root.is_dir():
        raise InputError([Problem(str(folder), None, None, "corpus folder not found", "check the path")])
    docs, problems = {}, []
    for f in sorted(root.glob("*.md")):
        try:
            d = parse_document(f)
        except InputError as error:
            problems.extend(error.problems)
            continue
        docs[d.id] = d
    for d in docs.values():
        if d.superseded_by is not None and d.superseded_by not in docs:
            problems.append(Problem(str(root / f"{d.id}.md"), 2, "superseded_by",
                                    f"{d.superseded_by!r} is not a document in the corpus", "name an existing document id"))
    if problems:
        raise InputError(problems)
    return docs
