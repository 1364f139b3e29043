"""The document corpus: one Markdown file per document with a small YAML header.

File ``data/corpus/<doc_id>.md``::

    ---
    title: Refunds and the cooling-off period (2024 policy)
    lang: en                 # any BCP 47 tag: en, bn, es, pt-BR, zh-Hans, ...
    updated: 2024-02-01
    superseded_by: kb-refunds-v2   # optional: a newer document replaces this one
    ---
    First paragraph.

    Second paragraph.

The document id is the file name without ``.md``. Paragraphs are separated by blank lines.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.core.confinement import confined_file
from assay.core.errors import InputError, Problem, raise_problems
from assay.core.io import decode_utf8, unique_key_loader
from assay.core.records import id_key, problems_from
from assay.data.langtag import LangTag

if TYPE_CHECKING:
    from yaml import SafeLoader



class DocumentHeader(BaseModel):
    """The YAML header of a corpus document."""

    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1)
    lang: LangTag
    updated: dt.date
    superseded_by: str | None = None


class Document(BaseModel):
    """A corpus document: id (the file stem), header fields and body text."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    title: str
    lang: LangTag
    updated: dt.date
    superseded_by: str | None = None
    text: str

    def paragraphs(self) -> list[str]:
        """Non-empty paragraphs of the body, in order, stripped."""
        return [p.strip() for p in self.text.split("\n\n") if p.strip()]


def _header_loader() -> type[SafeLoader]:
    """A safe YAML loader that leaves dates as text, so pydantic checks them and names the field."""
    import yaml

    # a key given twice in the header is an error at its line; the base comes from a function, which mypy cannot check
    class Loader(unique_key_loader()):  # type: ignore[misc]
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    return Loader


def _field_line(header_lines: list[str], field: str | None, default: int) -> int:
    """The file line (1-based) of ``field:`` in the header, whose first line is file line 2."""
    top = (field or "").split(".")[0]
    return next((2 + i for i, ln in enumerate(header_lines) if top and ln.startswith(f"{top}:")), default)


def parse_document(path: Path) -> Document:
    """Parse one corpus file.

    Raises:
        InputError: naming the file and line: bytes that are not UTF-8 (with the byte position), a
            missing or unreadable YAML header, a bad header field (for example ``updated:
            2024-13-45``, at that field's line), or an empty body.
    """
    import yaml

    text = decode_utf8(path.read_bytes(), path)
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in [ln.strip() for ln in lines[1:]]:
        raise InputError([Problem(str(path), 1, None, "missing YAML header between '---' lines",
                                  "start the file with ---, title/lang/updated lines, then ---")])
    end = 1 + [ln.strip() for ln in lines[1:]].index("---")
    try:
        header = yaml.load("\n".join(lines[1:end]), Loader=_header_loader()) or {}  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = 2 + mark.line if mark is not None else 2
        raise InputError([Problem(str(path), line, None, f"header is not valid YAML ({getattr(error, 'problem', error)})",
                                  "fix the header")]) from None
    try:
        h = DocumentHeader.model_validate(header)
    except ValidationError as error:
        raise InputError([Problem(p.path, _field_line(lines[1:end], p.field, 2), p.field, p.message, p.fix)
                          for p in problems_from(error, str(path), 2, DocumentHeader)]) from None
    body = "\n".join(lines[end + 1:]).strip()
    if not body:
        raise InputError([Problem(str(path), end + 1, None, "the document has no text after its header",
                                  "write the document below the closing ---, or delete the file")])
    return Document(id=path.stem, text=body + "\n", **h.model_dump())


def document_ids(folder: str | Path) -> list[str]:
    """The ids (file stems) of the ``*.md`` files under ``folder``, sorted, whether or not they parse."""
    return sorted(f.stem for f in Path(folder).glob("*.md"))


def load_corpus(folder: str | Path) -> dict[str, Document]:
    """Load every ``*.md`` file under ``folder`` (sorted by id); collect all bad files, then fail once.

    A ``superseded_by`` that names no file in the corpus is an error (one that names a file with
    problems of its own is not repeated). A folder without any ``*.md`` file is an error, and so is a
    ``*.md`` symlink leading outside the repository (:func:`assay.core.confinement.confined_file`).
    """
    root = Path(folder)
    if not root.is_dir():
        raise InputError([Problem(str(folder), None, None, "corpus folder not found", "check the path")])
    docs, problems = {}, []
    for f in sorted(root.glob("*.md")):
        outside = confined_file(f)
        if outside is not None:  # a symlink out of the repository: never read what it points at
            problems.append(outside)
            continue
        try:
            d = parse_document(f)
        except InputError as error:
            problems.extend(error.problems)
            continue
        docs[d.id] = d
    if not docs and not problems:
        problems.append(Problem(str(root), None, None, "holds no documents (*.md files)",
                                "add the documents the cases cite, one Markdown file each"))
    ids = set(document_ids(root))
    folded: dict[object, str] = {}
    for doc_id in sorted(ids):  # kb-A.md and kb-a.md are one file on a case-insensitive disk
        first = folded.setdefault(id_key(doc_id), doc_id)
        if first != doc_id:
            problems.append(Problem(str(root / f"{doc_id}.md"), None, None, f"document id {doc_id!r} differs from "
                                    f"{first!r} only in case, blanks or width", "rename one of the two files"))
    for d in docs.values():
        if d.superseded_by == d.id:
            problems.append(Problem(str(root / f"{d.id}.md"), 2, "superseded_by", f"{d.id!r} names the document itself",
                                    "name the newer document that replaces it, or remove superseded_by"))
            continue
        if d.superseded_by is not None and d.superseded_by not in ids:
            problems.append(Problem(str(root / f"{d.id}.md"), 2, "superseded_by",
                                    f"{d.superseded_by!r} is not a document in the corpus", "name an existing document id"))
    raise_problems(problems)
    return docs


def load_dataset(cases_path: str | Path, folder: str | Path,
                 tools_path: str | Path | None = None) -> tuple[list, dict[str, Document]]:
    """The cases and the corpus they cite, with the problems of both reported in one InputError.

    With ``tools_path`` (the tool catalogue), the cases' tool fields are checked against it too, and
    a bad catalogue is reported with the rest; without it, a case with tool fields is a problem.

    When corpus files are bad, the cases are still checked, against the ids of every ``*.md``
    file (so a case citing a broken document is not also reported as citing an unknown one).

    Returns:
        ``(cases, documents)``: the :class:`~assay.data.cases.CaseRecord` list in file order and the
        documents by id.
    """
    from assay.data.cases import load_cases

    problems: list[Problem] = []
    try:
        docs = load_corpus(folder)
        ids = list(docs)
    except InputError as error:
        problems += error.problems
        docs, ids = {}, document_ids(folder)
    from assay.data.tools import CATALOGUE_PATH, load_catalogue

    catalogue = None
    if tools_path is not None:

        try:
            catalogue = load_catalogue(tools_path)
        except InputError as error:
            problems += error.problems
    try:
        cases = load_cases(cases_path, ids, catalogue, str(tools_path or CATALOGUE_PATH), check_tools=True)
    except InputError as error:
        problems += error.problems
    raise_problems(problems)
    return cases, docs
