"""The siblings of :class:`~assay.artifacts.base.Artifact` for the files that are not metrics.

Each declaration knows its path template (repository-relative, ``{name}`` fields filled by
keyword), the stage that writes it and whether it is itself a DVC output (``dvc=False`` for a file
inside an output folder, or one that is not committed). The kinds:

- :class:`JsonFile`: one JSON document whose content is a pydantic model (``Document`` when the
  shape is still owned by the function that builds it).
- :class:`JsonlFile`: one JSON object per line, each a row model; rows are validated on read and on
  write, and a bad line is reported with its line number.
- :class:`CsvFile`: plot data and tables with a header row (``columns`` fixed, or given per write).
- :class:`TextFile`: Markdown and other text pages (``str``).
- :class:`TableFile`: a Parquet table (read and written by the module that owns its schema).
- :class:`Folder`: a folder the stage writes as a whole (the judge's replies, the study's records).

Writes go through :mod:`assay.core.io` (temporary file, then rename); a missing file raises
:class:`~assay.core.errors.MissingArtifact` naming the stage to run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic

from pydantic import BaseModel, ConfigDict, RootModel, SerializerFunctionWrapHandler, ValidationError, model_serializer

from assay.artifacts.base import M, BrokenArtifact
from assay.core.errors import MissingArtifact


class Document(RootModel[dict[str, Any]]):
    """A JSON object whose shape is owned by the function that builds it (named in the declaration's comment)."""


def _plain(value: BaseModel) -> Any:
    """A model's content for :mod:`assay.core.io`'s writers: a :class:`Document` as given (the writer
    makes numpy scalars and nan JSON-safe), any other model dumped in JSON mode."""
    return value.root if isinstance(value, Document) else value.model_dump(mode="json")


class Row(BaseModel):
    """Base of a JSONL or CSV row model: unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")


class _Located:
    """Path arithmetic shared by every declaration (``template`` and ``stage`` are dataclass fields)."""

    template: str
    stage: str

    def path(self, root: str | Path = ".", **fields: str) -> Path:
        """The file's path under ``root``."""
        return Path(root) / self.template.format(**fields)

    def relpath(self, **fields: str) -> str:
        """The repository-relative path, as dvc.yaml and messages spell it."""
        return self.template.format(**fields)

    def fix(self, **fields: str) -> str:
        """The command that writes the file: ``dvc repro <stage>``."""
        return f"dvc repro {self.stage.format(**fields)}"

    def _existing(self, root: str | Path, fields: dict[str, str]) -> Path:
        f = self.path(root, **fields)
        if not f.exists():
            raise MissingArtifact(f"{self.relpath(**fields)} not found (fix: run `{self.fix(**fields)}`)")
        return f

    def _broken(self, where: str, what: str, fields: dict[str, str]) -> BrokenArtifact:
        return BrokenArtifact(f"{where}: {what} (fix: run `dvc repro -f {self.stage.format(**fields)}`)")


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    return f"field {where!r}: {first['msg']}"


@dataclass(frozen=True)
class JsonFile(_Located, Generic[M]):
    """A JSON report: one document of ``model``, written as stable JSON (sorted keys, indent 2)."""

    template: str
    model: type[M]
    stage: str
    dvc: bool = True

    def write(self, value: M, root: str | Path = ".", **fields: str) -> None:
        """Validate ``value`` against the model and write it atomically."""
        from assay.core.io import write_json

        if not isinstance(value, self.model):
            raise TypeError(f"{self.relpath(**fields)} holds {self.model.__name__}, not {type(value).__name__}")
        write_json(self.path(root, **fields), _plain(value))

    def read(self, root: str | Path = ".", **fields: str) -> M:
        """The file's content as the model.

        Raises:
            MissingArtifact: the file does not exist.
            BrokenArtifact: the file is not JSON or does not fit the model.
        """
        f = self._existing(root, fields)
        rel = self.relpath(**fields)
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            raise self._broken(rel, f"not valid JSON ({error})", fields) from None
        try:
            return self.model.model_validate(data)
        except ValidationError as error:
            raise self._broken(rel, _first_error(error), fields) from None


@dataclass(frozen=True)
class JsonlFile(_Located, Generic[M]):
    """One ``model`` row per line, written with sorted keys; rows are validated both ways."""

    template: str
    model: type[M]
    stage: str
    dvc: bool = True

    def write(self, rows: Iterable[M | dict[str, Any]], root: str | Path = ".", **fields: str) -> None:
        """Validate every row (a model, or a dict the model must accept) and write them atomically, in order.

        Raises:
            BrokenArtifact: a row does not fit the model (names the row's position, 1-based).
        """
        self.write_to(self.path(root, **fields), rows, **fields)

    def write_to(self, path: str | Path, rows: Iterable[M | dict[str, Any]], **fields: str) -> None:
        """:meth:`write` to ``path`` instead of the declared place (a staging file the caller renames).

        Rows are checked and written one at a time, so ``rows`` may be a generator and memory holds
        one row; an error leaves ``path`` as it was.
        """
        from assay.core.io import write_jsonl

        def checked() -> Iterator[dict[str, Any]]:
            for n, row in enumerate(rows, 1):
                try:
                    model = row if isinstance(row, self.model) else self.model.model_validate(row)
                except ValidationError as error:
                    raise BrokenArtifact(f"{self.relpath(**fields)}: row {n}: {_first_error(error)} "
                                         "(fix: the writer builds a row the declaration does not allow)") from None
                yield _plain(model)

        write_jsonl(path, checked())

    def read(self, root: str | Path = ".", **fields: str) -> list[M]:
        """The rows as models, in file order.

        Raises:
            MissingArtifact: the file does not exist.
            BrokenArtifact: a line is not a JSON object or does not fit the model (names file:line).
        """
        from assay.core.errors import InputError
        from assay.core.io import read_jsonl

        f = self._existing(root, fields)
        rel = self.relpath(**fields)
        try:
            lines = read_jsonl(f)
        except InputError as error:
            raise self._broken(rel, str(error), fields) from None
        rows = []
        for line, data in lines:
            try:
                rows.append(self.model.model_validate(data))
            except ValidationError as error:
                raise self._broken(f"{rel}:{line}", _first_error(error), fields) from None
        return rows


@dataclass(frozen=True)
class CsvFile(_Located):
    """A CSV with a header row and ``\\n`` line ends (plot data for ``dvc plots``, tables).

    ``columns`` is the fixed header; ``()`` when the header depends on the run (a measure's name, a
    table's columns) and is given to :meth:`write`.
    """

    template: str
    stage: str
    columns: tuple[str, ...] = ()
    dvc: bool = True

    def write(self, rows: Iterable[Sequence[object]], root: str | Path = ".", header: tuple[str, ...] = (),
              **fields: str) -> None:
        """Write ``rows`` under the declared header (or ``header`` when none is declared), atomically.

        Raises:
            ValueError: ``header`` given for a file whose columns are declared, or neither given.
        """
        from assay.core.io import write_csv

        if bool(header) == bool(self.columns):
            raise ValueError(f"{self.relpath(**fields)}: give a header only when the declaration has no columns")
        write_csv(self.path(root, **fields), header or self.columns, rows)


@dataclass(frozen=True)
class TextFile(_Located):
    """A text page (Markdown), UTF-8 with ``\\n`` line ends."""

    template: str
    stage: str
    dvc: bool = True

    def write(self, text: str, root: str | Path = ".", **fields: str) -> None:
        """Write ``text`` atomically."""
        from assay.core.io import write_text

        write_text(self.path(root, **fields), text)

    def read(self, root: str | Path = ".", **fields: str) -> str:
        """The page's text. Raises MissingArtifact when it does not exist."""
        return self._existing(root, fields).read_text(encoding="utf-8")


@dataclass(frozen=True)
class TableFile(_Located):
    """A Parquet table; its schema and reader live with the module that builds it (named in its comment)."""

    template: str
    stage: str
    dvc: bool = True


@dataclass(frozen=True)
class Folder(_Located):
    """A folder: a DVC output as a whole (``dvc=True``), or only a place for declared files (``dvc=False``)."""

    template: str
    stage: str
    dvc: bool = True


#: Every kind of declaration the registry holds (metrics and provenance are :class:`~assay.artifacts.base.Artifact`).
FILE_KINDS = (JsonFile, JsonlFile, CsvFile, TextFile, TableFile, Folder)


class SparseRow(Row):
    """A row or report whose optional keys are written only when they apply.

    The fields named in ``omit_when_none`` (every field when it is ``None``) are left out of the
    written object while their value is ``None``, so a file that adds a key only in some runs
    (a paraphrase block, a server's response id) keeps its bytes in the others.
    """

    omit_when_none: ClassVar[frozenset[str] | None] = None

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        omit = self.omit_when_none
        return {k: v for k, v in data.items() if v is not None or (omit is not None and k not in omit)}
