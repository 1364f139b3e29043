"""The review rubric: criteria scored 1 to 5 per answer, stored by SHA-256 and locked once used.

A rubric is a YAML file (``data/rubric.yaml`` by default)::

    version: 1
    scale: {min: 1, max: 5}
    criteria:
      - {name: correctness, question: "Are the facts right ...?"}

A queue stores the file's exact text and its SHA-256 when it is created. Once any item in the
queue is reviewed the rubric is locked (changing what a criterion means half way makes
earlier scores mean something else); :class:`RubricLocked` says to start a new queue.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, ValidationError, model_validator

from assay.core.errors import AssayError, InputError
from assay.core.io import load_yaml_text, read_text, sha256_bytes
from assay.core.records import problems_from
from assay.core.records import InputModel
from assay.queue.views import RubricCriterion

DEFAULT_RUBRIC = "data/rubric.yaml"


class RubricLocked(AssayError):
    """A queue's rubric cannot change because something in the queue has been reviewed."""


class Scale(InputModel):
    """The score range, inclusive at both ends: 1 to 5, the only range supported.

    Judge scores (:class:`assay.queue.items.JudgeOpinion`) are on 1 to 5 and the report compares
    reviewer and judge scores point for point (a gap of 1 is flagged), so another range would
    compare numbers on different scales.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    min: Literal[1] = 1
    max: Literal[5] = 5

    @model_validator(mode="after")
    def _ordered(self) -> Scale:
        if self.min >= self.max:
            raise ValueError(f"scale min {self.min} must be below max {self.max}")
        return self


class Criterion(InputModel):
    """One scored criterion and the question a reviewer answers with the score."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    question: str = Field(min_length=1)


class RubricSpec(InputModel):
    """The parsed rubric file; criterion names must be unique."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    version: int = 1
    scale: Scale = Scale()
    criteria: list[Criterion] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> RubricSpec:
        names = [c.name for c in self.criteria]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"criterion names repeat: {', '.join(repeated)}")
        return self

    @property
    def names(self) -> list[str]:
        """Criterion names in file order."""
        return [c.name for c in self.criteria]


@dataclass(frozen=True)
class Rubric:
    """A rubric with the exact text it was read from and that text's SHA-256."""

    spec: RubricSpec
    text: str
    sha256: str

    def public(self) -> list[RubricCriterion]:
        """The rubric as the API shows it: each criterion's name and question with the scale's min and max."""
        s = self.spec.scale
        return [RubricCriterion(name=c.name, question=c.question, min=s.min, max=s.max) for c in self.spec.criteria]


def parse_rubric(text: str, where: str = "rubric") -> Rubric:
    """Parse rubric YAML text.

    Raises:
        InputError: not YAML, or a missing/unknown field, a bad name or repeated criteria (named).
    """
    data = load_yaml_text(text, where)  # a syntax error or a repeated key: InputError at its line
    try:
        spec = RubricSpec.model_validate(data if isinstance(data, dict) else {})
    except ValidationError as error:
        raise InputError(problems_from(error, where, None, RubricSpec)) from None
    return Rubric(spec, text, sha256_bytes(text.encode("utf-8")))


def load_rubric(path: str | Path = DEFAULT_RUBRIC) -> Rubric:
    """Read and parse a rubric file (see :func:`parse_rubric`); a missing file is an InputError."""
    from assay.core.errors import Problem

    p = Path(path)
    if not p.is_file():
        raise InputError([Problem(str(path), None, None, "file not found", "pass --rubric FILE or create data/rubric.yaml")])
    return parse_rubric(read_text(p), str(path))  # invalid UTF-8: an InputError naming the line, not a traceback
