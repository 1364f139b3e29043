"""Labelled answer pairs: two answers to one case question, two annotators' labels and the final label.

One line of ``data/pairs.jsonl``::

    {"id": "clear-1", "case_question": "...", "facts": ["30 days"], "a": "...", "b": "...",
     "kind": "clear", "lang": "en", "ann1": "a", "ann2": "a", "final": "a"}

Kinds (the slices calibration reports) are declared in params.yaml, ``agreement.kinds``; by default
the seed's six (:data:`DEFAULT_KINDS`): clear (right vs wrong), verbose_tie (same facts, one padded),
padded_wrong (long wrong vs short right), cite (with vs without a source id), tie (two wordings),
self (a plain cited answer vs one in the judge's own house style). A project that labels other kinds
of pairs (``refusal``, ``tone``, ...) lists its own; a pair whose kind is not declared is an error
naming the declared list. ``lang`` is any BCP 47 tag (:mod:`assay.data.langtag`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from assay.core.errors import Problem, raise_problems
from assay.core.io import iter_jsonl
from assay.core.records import NonBlank, check_rows
from assay.core.records import InputModel
from assay.data.langtag import LangTag

LABELS = ("a", "b", "tie")
T = TypeVar("T")

#: The pair kinds of assay's seed data: what ``agreement.kinds`` is when params.yaml does not set it.
DEFAULT_KINDS = ("clear", "verbose_tie", "padded_wrong", "cite", "tie", "self")

Label = Literal["a", "b", "tie"]

#: What to do with pairs of equal content under different ids (params ``judge.duplicates``): ``share``
#: asks the judge once and gives every such pair the shared reply; ``refuse`` makes them an input error.
Duplicates = Literal["share", "refuse"]


class Pair(InputModel):
    """One labelled pair. ``facts`` are the strings a correct answer must contain (may be empty for a tie)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: NonBlank
    case_question: NonBlank
    facts: list[NonBlank]
    a: NonBlank
    b: NonBlank
    kind: NonBlank  # one of the declared kinds (checked by load_pairs: the list lives in params.yaml)
    lang: LangTag
    ann1: Label
    ann2: Label
    final: Label
    note: str | None = None

    def model_post_init(self, context: Any, /) -> None:
        """Share one set of set-field names among pairs that set the same fields.

        pydantic keeps a set per instance (about 700 bytes for these eleven names, a third of a pair's
        memory at a million pairs). A frozen model never adds to it (no assignment; ``model_copy``
        copies it), so one shared set per distinct content is safe.
        """
        fields = self.__pydantic_fields_set__
        object.__setattr__(self, "__pydantic_fields_set__", _FIELDS_SETS.setdefault(frozenset(fields), fields))


_FIELDS_SETS: dict[frozenset[str], set[str]] = {}


class AgreementParams(InputModel):
    """params.yaml section ``agreement``.

    ``weights``: None for Cohen's kappa on unordered labels (a/b/tie); ``linear`` or ``quadratic``
    only for ordered labels (relevance grades, 1-5 scores). ``kinds``: the pair kinds a labelled
    pair may have (default :data:`DEFAULT_KINDS`; at least one, no repeats). The pairs and the
    guidelines the annotators followed are ``inputs.pairs`` and ``inputs.guidelines``.
    """

    model_config = ConfigDict(extra="forbid")
    weights: Literal["linear", "quadratic"] | None = None
    kinds: list[NonBlank] = Field(default_factory=lambda: list(DEFAULT_KINDS), min_length=1)

    @field_validator("kinds")
    @classmethod
    def _distinct(cls, kinds: list[str]) -> list[str]:
        repeated = sorted({k for k in kinds if kinds.count(k) > 1})
        if repeated:
            raise PydanticCustomError("repeated_kind", "lists {repeated} more than once",
                                      {"repeated": ", ".join(repeated), "fix": "name each kind once"})
        return kinds


def pair_kinds(params_file: str | Path = "params.yaml") -> tuple[str, ...]:
    """The declared pair kinds: ``agreement.kinds`` of ``params_file`` (:data:`DEFAULT_KINDS` when unset).

    Raises:
        InputError: a bad ``agreement`` section (an empty or repeated list, an unknown key).
    """
    from assay.core.params import load_section

    return tuple(load_section("agreement", AgreementParams, params_file).kinds)


def same_content(path: str | Path, good: Sequence[tuple[int, Pair]]) -> list[Problem]:
    """One Problem per pair whose content repeats an earlier line's, naming both lines.

    Content is what the judge is shown: the question, the facts and the two answers, compared
    exactly (the judge's request key, :func:`assay.judge.replies.reply_key`, hashes the same text).
    A pair whose answers are an earlier pair's in the other order repeats it too: its (a, b)
    request is the earlier pair's (b, a). Ids and labels do not count; ``[]`` when every pair differs.

    >>> one = Pair(id="p1", case_question="q", facts=[], a="x", b="y", kind="tie", lang="en", ann1="a", ann2="a",
    ...            final="a")
    >>> [problem] = same_content("pairs.jsonl", [(1, one), (2, one.model_copy(update={"id": "p2"}))])
    >>> (problem.line, problem.field, problem.message)  # doctest: +NORMALIZE_WHITESPACE
    (2, 'id', "pair 'p2' holds the same question, facts and answers as pair 'p1' on line 1, and judge.duplicates is refuse")
    """
    first: dict[tuple[str, tuple[str, ...], str, str], tuple[int, Pair]] = {}
    problems = []
    for line, pair in good:
        facts = tuple(pair.facts)
        earlier = first.get((pair.case_question, facts, pair.a, pair.b)) or first.get((pair.case_question, facts, pair.b, pair.a))
        if earlier is None:
            first[(pair.case_question, facts, pair.a, pair.b)] = (line, pair)
            continue
        swapped = " (answers a and b in the other order)" if earlier[1].a != pair.a else ""
        problems.append(Problem(
            str(path), line, "id", f"pair {pair.id!r} holds the same question, facts and answers as pair "
            f"{earlier[1].id!r} on line {earlier[0]}{swapped}, and judge.duplicates is refuse",
            f"remove one of lines {earlier[0]} and {line}, or set judge.duplicates: share in params.yaml to ask the "
            "judge once and give both pairs its reply"))
    return problems


def load_pairs(path: str | Path, kinds: Sequence[str] = DEFAULT_KINDS, duplicates: Duplicates = "share") -> list[Pair]:
    """Read and validate a pairs JSONL file; every pair's ``kind`` must be one of ``kinds``
    (the project's declared list, :func:`pair_kinds`).

    Every line is checked in one run: a line that is not UTF-8 or not JSON is one Problem and the
    other rows are still validated. The file is read one line at a time (see :func:`read_pairs`).
    Pairs of equal content under different ids (:func:`same_content`) are kept with
    ``duplicates="share"`` (the judge is asked once for them) and are a Problem on the later line,
    naming the earlier one, with ``duplicates="refuse"``.

    Raises:
        InputError: one Problem per bad row (bad UTF-8 or JSON, wrong type, unknown field, blank
            text, bad label, a kind not declared, a lang that is not a BCP 47 tag, duplicate id, two
            answers of the same text, equal content when refused), naming file, line, field and fix;
            or a whole-file Problem when the file holds no pairs.
    """
    return read_pairs(path, kinds, lambda pair: pair, duplicates)


def read_pairs(path: str | Path, kinds: Sequence[str], keep: Callable[[Pair], T], duplicates: Duplicates = "share") -> list[T]:
    """:func:`load_pairs`, keeping only ``keep(pair)`` of each pair, in file order.

    Every pair is validated in full as :func:`load_pairs` does (same Problems), but memory holds one
    line and what ``keep`` returns (for example the label columns), not the pairs' texts; with
    ``duplicates="refuse"`` it also holds every pair until the equal-content check has run.

    >>> import tempfile, pathlib
    >>> row = '{"id": "p1", "case_question": "q", "facts": [], "a": "x", "b": "y", "kind": "tie", "lang": "en", '
    >>> row += '"ann1": "a", "ann2": "tie", "final": "tie"}'
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "pairs.jsonl"
    >>> _ = f.write_text(row + "\\n", encoding="utf-8")
    >>> read_pairs(f, DEFAULT_KINDS, lambda p: (p.id, p.ann1, p.ann2))
    [('p1', 'a', 'tie')]

    Raises:
        InputError: as :func:`load_pairs`.
    """
    from assay.core.bulk import bulk

    problems: list[Problem] = []
    undeclared: list[Problem] = []
    same: list[Problem] = []
    held: list[tuple[int, Pair]] = []  # only when equal content is refused
    read = 0
    declared = ", ".join(kinds)

    def rows() -> Iterator[tuple[int, dict]]:  # one line at a time
        nonlocal read
        for line, row in iter_jsonl(path):
            read += 1
            if isinstance(row, Problem):
                problems.append(row)
            else:
                yield line, row

    def checked(line: int, p: Pair) -> T:
        if p.kind not in kinds:
            undeclared.append(Problem(str(path), line, "kind", f"{p.kind!r} is not a declared pair kind ({declared})",
                                      f"use one of {declared}, or add {p.kind!r} to agreement.kinds in params.yaml"))
        if " ".join(p.a.split()) == " ".join(p.b.split()):
            same.append(Problem(str(path), line, "b", "is the same text as answer a (blanks aside): a labelled pair "
                                "compares two different answers", "write two different answers, or remove the pair"))
        if duplicates == "refuse":
            held.append((line, p))
        return keep(p)

    with bulk():  # one object per line, none in a reference cycle: see assay.core.bulk
        good, found = check_rows(str(path), rows(), Pair, "id", checked)
    problems += found + undeclared + same + same_content(path, held)
    if not read:
        problems.append(Problem(str(path), None, None, "holds no pairs", "add at least one labelled pair, one JSON object per line"))
    raise_problems(problems)
    return [kept for _, kept in good]
