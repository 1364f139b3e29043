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

from pydantic import ConfigDict

from assay.core.errors import Problem, raise_problems
from assay.core.io import scan_jsonl
from assay.core.records import NonBlank, check_rows
from assay.core.records import InputModel

LABELS = ("a", "b", "tie")

Label = Literal["a", "b", "tie"]


class Pair(InputModel):
    """One labelled pair. ``facts`` are the strings a correct answer must contain (may be empty for a tie)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: NonBlank
    case_question: NonBlank
    facts: list[NonBlank]
    a: NonBlank
    b: NonBlank
    kind: Literal["clear", "verbose_tie", "padded_wrong", "cite", "tie", "self"]
    lang: Literal["en", "bn"]
    ann1: Label
    ann2: Label
    final: Label
    note: str | None = None


class AgreementParams(InputModel):
    """params.yaml section ``agreement``.

    ``weights``: None for Cohen's kappa on unordered labels (a/b/tie); ``linear`` or ``quadratic``
    only for ordered labels (relevance grades, 1-5 scores). The pairs and the guidelines the
    annotators followed are ``inputs.pairs`` and ``inputs.guidelines``.
    """

    model_config = ConfigDict(extra="forbid")
    weights: Literal["linear", "quadratic"] | None = None


def load_pairs(path: str | Path) -> list[Pair]:
    """Read and validate a pairs JSONL file.

    Every line is checked in one run: a line that is not UTF-8 or not JSON is one Problem and the
    other rows are still validated.

    Raises:
        InputError: one Problem per bad row (bad UTF-8 or JSON, wrong type, unknown field, blank
            text, bad label, duplicate id, two answers of the same text), naming file, line, field and fix; or a whole-file
            Problem when the file holds no pairs.
    """
    rows, problems = scan_jsonl(path)
    good, found = check_rows(str(path), rows, Pair)
    problems += found
    problems += [Problem(str(path), line, "b", "is the same text as answer a (blanks aside): a labelled pair compares "
                         "two different answers", "write two different answers, or remove the pair")
                 for line, p in good if " ".join(p.a.split()) == " ".join(p.b.split())]
    if not rows and not problems:
        problems.append(Problem(str(path), None, None, "holds no pairs", "add at least one labelled pair, one JSON object per line"))
    raise_problems(problems)
    return [p for _, p in good]
