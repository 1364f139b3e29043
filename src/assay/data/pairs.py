"""Labelled answer pairs: two answers to one case question, two annotators' labels and the final label.

One line of ``data/pairs.jsonl``::

    {"id": "clear-1", "case_question": "...", "facts": ["30 days"], "a": "...", "b": "...",
     "kind": "clear", "lang": "en", "ann1": "a", "ann2": "a", "final": "a"}

Kinds (the slices calibration reports): clear (right vs wrong), verbose_tie (same facts, one
padded), padded_wrong (long wrong vs short right), cite (with vs without a source id), tie (two
wordings), self (a plain cited answer vs one in the judge's own house style).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.core.io import read_jsonl
from assay.core.records import validate_rows

KINDS = ("clear", "verbose_tie", "padded_wrong", "cite", "tie", "self")
LABELS = ("a", "b", "tie")

Label = Literal["a", "b", "tie"]


class Pair(BaseModel):
    """One labelled pair. ``facts`` are the strings a correct answer must contain (may be empty for a tie)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    case_question: str = Field(min_length=1)
    facts: list[str]
    a: str = Field(min_length=1)
    b: str = Field(min_length=1)
    kind: Literal["clear", "verbose_tie", "padded_wrong", "cite", "tie", "self"]
    lang: Literal["en", "bn"]
    ann1: Label
    ann2: Label
    final: Label
    note: str | None = None


class AgreementParams(BaseModel):
    """params.yaml section ``agreement``.

    ``weights``: None for Cohen's kappa on unordered labels (a/b/tie); ``linear`` or ``quadratic``
    only for ordered labels (relevance grades, 1-5 scores). The pairs and the guidelines the
    annotators followed are ``inputs.pairs`` and ``inputs.guidelines``.
    """

    model_config = ConfigDict(extra="forbid")
    weights: Literal["linear", "quadratic"] | None = None


def load_pairs(path: str | Path) -> list[Pair]:
    """Read and validate a pairs JSONL file.

    Raises:
        InputError: one Problem per bad row (bad JSON, wrong type, unknown field, bad label,
            duplicate id), naming file, line, field and fix.
    """
    return [p for _, p in validate_rows(str(path), read_jsonl(path), Pair)]
