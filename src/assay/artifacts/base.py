"""The building blocks of the registry: records, numbers-only metrics and an :class:`Artifact`.

An :class:`Artifact` knows its path template (``metrics/rag/{version}.json``), its model and its
stage. ``write`` validates and writes atomically as stable JSON; ``read`` parses and validates,
raising :class:`~assay.core.errors.MissingArtifact` (exit 2) for an absent file and
:class:`BrokenArtifact` (exit 2) for a file that is not JSON or does not fit the model, so a
forged or truncated metrics file can never read as "no problem".
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from assay.core.errors import AssayError, MissingArtifact

M = TypeVar("M", bound=BaseModel)


class BrokenArtifact(AssayError):
    """A pipeline output exists but is not what its stage writes (not JSON, wrong shape); exit 2."""

    exit_code = 2


class Record(BaseModel):
    """Base of every artifact model: unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")


def _numbers_only(value: Any, where: str) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _numbers_only(inner, f"{where}.{key}" if where else str(key))
    elif value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ValueError(f"metrics hold numbers only; {where!r} is {type(value).__name__}")


class Metrics(Record):
    """A metrics file: every leaf is an int, a float or ``None`` (written as null); no strings or lists.

    >>> class Tiny(Metrics):
    ...     n: int
    >>> Tiny(n=3).model_dump()
    {'n': 3}
    """

    @model_validator(mode="after")
    def _only_numbers(self) -> Metrics:
        _numbers_only(self.model_dump(), "")
        return self


def finite(x: float | None) -> float | None:
    """``x`` as a float, or ``None`` when it is ``None`` or not finite (nan has no JSON form).

    >>> finite(float("nan")) is None, finite(2)
    (True, 2.0)
    """
    return None if x is None or not math.isfinite(float(x)) else float(x)


@dataclass(frozen=True)
class Artifact(Generic[M]):
    """One output file: ``template`` (relative to the repository root, ``{name}`` fields filled by
    keyword), ``model`` and the ``stage`` that writes it; ``dvc`` is false for a file that is not a
    DVC output (not committed). Siblings for other kinds of files: :mod:`assay.artifacts.files`."""

    template: str
    model: type[M]
    stage: str
    dvc: bool = True

    def path(self, root: str | Path = ".", **fields: str) -> Path:
        """The file's path under ``root``."""
        return Path(root) / self.template.format(**fields)

    def relpath(self, **fields: str) -> str:
        """The repository-relative path, as dvc.yaml and messages spell it."""
        return self.template.format(**fields)

    def write(self, value: M, root: str | Path = ".", **fields: str) -> None:
        """Validate ``value`` against the model and write it atomically as stable JSON."""
        from assay.core.io import write_json

        if not isinstance(value, self.model):
            raise TypeError(f"{self.relpath(**fields)} holds {self.model.__name__}, not {type(value).__name__}")
        write_json(self.path(root, **fields), value.model_dump(mode="json"))

    def read(self, root: str | Path = ".", **fields: str) -> M:
        """The file's content as the model.

        Raises:
            MissingArtifact: the file does not exist.
            BrokenArtifact: the file is not JSON or does not fit the model (names the first problem).
        """
        rel = self.relpath(**fields)
        f = self.path(root, **fields)
        if not f.is_file():
            raise MissingArtifact(f"{rel} not found (fix: run `dvc repro {self.stage.format(**fields)}`)")
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            raise BrokenArtifact(f"{rel}: not valid JSON ({error}) (fix: run `dvc repro -f {self.stage.format(**fields)}`)") from None
        try:
            return self.model.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(top level)"
            raise BrokenArtifact(f"{rel}: field {where!r}: {first['msg']} (fix: run `dvc repro -f {self.stage.format(**fields)}`; "
                                 "metrics are written by the pipeline, never by hand)") from None

    def read_optional(self, root: str | Path = ".", **fields: str) -> M | None:
        """Like :meth:`read`, but ``None`` when the file does not exist (a broken file still raises)."""
        try:
            return self.read(root, **fields)
        except MissingArtifact:
            return None
