"""TREC qrels and run files: reading them strictly, writing them byte-stably.

Qrels, one judgment per line: ``qid iter docno grade`` (``iter`` is read and ignored, ``grade`` an
integer; -1 means misleading/stale, see :mod:`assay.relevance.measures`). Runs, one retrieved
document per line: ``qid Q0 docno rank score tag``; ``rank`` and ``Q0`` are read and ignored, as
trec_eval ignores them (documents are ranked by ``score``). Fields are separated by any run of
blanks or tabs; blank lines and lines starting with ``#`` are skipped (trec_eval 10 skips ``#``
lines too).

Every bad line is an :class:`~assay.core.errors.InputError` problem naming ``file:line``: a line
longer than :data:`~assay.relevance.trec_lines.MAX_LINE_BYTES`, bytes that are not UTF-8, a NUL or
control character (these three checked over the whole file at once by
:func:`~assay.relevance.trec_lines.check_lines`), a wrong number of fields, a grade that is not an
integer from :data:`MIN_GRADE` to :data:`MAX_GRADE`, a score that is not a finite number, and a
docno repeated within one query (trec_eval refuses those too, without saying where). A qrels file
without a judgment is an error.

The file is read once. Large files go through pyarrow's CSV reader (single-space separated files)
or pandas' C parser (other blanks), with ``qid`` and ``docno`` as categoricals; when either finds
anything wrong, or the file holds a ``#``, the slow line-by-line reader runs instead, so the problems
it reports name exact lines and comments are skipped exactly as trec_eval skips them.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from assay.core.errors import InputError, Problem
from assay.core.io import write_text
from assay.relevance.ranking import order
from assay.relevance.trec_lines import check_lines

QRELS_FIELDS = ("qid", "iter", "docno", "grade")
RUN_FIELDS = ("qid", "q0", "docno", "rank", "score", "tag")
QRELS_SHAPE = "qid iter docno grade, for example 'q-001 0 doc-014 2'"
RUN_SHAPE = "qid Q0 docno rank score tag, for example 'q-001 Q0 doc-014 1 12.5 lexical'"


@dataclass(frozen=True)
class Qrels:
    """Judgments as a table with columns ``qid``, ``docno`` (str) and ``grade`` (int64), file order."""

    table: pd.DataFrame
    path: str = "<memory>"


@dataclass(frozen=True)
class Run:
    """A ranking as a table with columns ``qid``, ``docno`` (str) and ``score`` (float64), file order.

    ``tag`` is the run tag of the first line (trec_eval's ``runid``); ``""`` for an empty run.
    """

    table: pd.DataFrame
    tag: str = ""
    path: str = "<memory>"


#: the grades a qrels file may hold: -1 (misleading, gain 0) up to this (graded scales are small)
MIN_GRADE, MAX_GRADE = -1, 100


def _missing(path: str) -> InputError:
    return InputError([Problem(path, None, None, "file not found", "check the path")])


def _slow_rows(path: str, fields: tuple[str, ...], shape: str) -> tuple[list[int], list[list[str]], list[Problem]]:
    """Line numbers and split fields of every data line, plus a problem for each line of the wrong width."""
    lines, rows, problems = [], [], []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) != len(fields):
                problems.append(Problem(path, number, None, f"has {len(parts)} fields, expected {len(fields)}",
                                        f"write {shape}"))
                continue
            lines.append(number)
            rows.append(parts)
    return lines, rows, problems


def _duplicates(path: str, lines: list[int], qids: list[str], docnos: list[str], what: str) -> list[Problem]:
    """A problem for every repeat of a (qid, docno) pair, naming the line of its first occurrence."""
    first: dict[tuple[str, str], int] = {}
    problems = []
    for line, qid, docno in zip(lines, qids, docnos, strict=True):
        key = (qid, docno)
        if key in first:
            problems.append(Problem(path, line, "docno", f"{docno!r} appears twice in query {qid!r} (first on line "
                                    f"{first[key]})", f"keep one {what} per document and query"))
        else:
            first[key] = line
    return problems


def _arrow_table(data: bytes, names: tuple[str, ...], numeric: str, integer: bool) -> pd.DataFrame | None:
    """Single-space separated ``data`` through pyarrow (multi-threaded), or None when it does not parse."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    text = pa.dictionary(pa.int32(), pa.string())
    types = {n: text for n in ("qid", "docno")} | {numeric: pa.int64() if integer else pa.float64()}
    try:
        table = pacsv.read_csv(pa.BufferReader(data), read_options=pacsv.ReadOptions(column_names=list(names)),
                               parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
                               convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                                                    include_columns=list(dict.fromkeys(
                                                                        ["qid", "docno", numeric, names[-1]]))))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if table.column(names[-1]).null_count or table.column(numeric).null_count:
        return None
    out = table.to_pandas()
    if not integer and not np.isfinite(out[numeric].to_numpy()).all():
        return None
    key = (out["qid"].cat.codes.to_numpy(dtype=np.int64) * len(out["docno"].cat.categories)
           + out["docno"].cat.codes.to_numpy(dtype=np.int64))
    key.sort()
    return None if (key[1:] == key[:-1]).any() else out  # a repeated (qid, docno) pair


def _fast_table(data: bytes, names: tuple[str, ...], numeric: str, integer: bool) -> pd.DataFrame | None:
    """The file's bytes through pyarrow or pandas' C parser, or None when anything would need a line-numbered problem."""
    if b"#" in data:  # comment lines: let the line reader skip them exactly as trec_eval does
        return None
    if not data.strip():
        return pd.DataFrame({n: pd.Series(dtype=object) for n in names})
    if b"\t" not in data and b"  " not in data and b" \n" not in data and b"\r" not in data:
        return _arrow_table(data, names, numeric, integer)
    try:
        table = pd.read_csv(io.BytesIO(data), sep=r"\s+", header=None, names=list(names), engine="c", dtype=str,
                            na_filter=False, skip_blank_lines=True, on_bad_lines="error", quoting=3)
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError):
        return None
    if (table[names[-1]] == "").any():  # a short line leaves the last field empty
        return None
    values = pd.to_numeric(table[numeric], errors="coerce")
    if values.isna().any():
        return None
    if integer:
        if not (values == np.floor(values)).all() or table[numeric].str.contains(r"[.eE]", regex=True).any():
            return None
        table[numeric] = values.astype(np.int64)
    else:
        if not np.isfinite(values.to_numpy(dtype=float)).all():
            return None
        table[numeric] = values.astype(np.float64)
    if table.duplicated(["qid", "docno"]).any():
        return None
    return table


@dataclass(frozen=True)
class _Format:
    """How one TREC file kind is read: its fields, its number column and what its problems say."""

    fields: tuple[str, ...]
    shape: str
    numeric: str  # the number column: an integer (qrels grade) or a finite float (run score)
    integer: bool
    problem: str
    fix: str
    what: str  # what a line is, for the repeated-docno fix
    keep: tuple[str, ...] = ()  # text columns kept besides qid and docno


_QRELS = _Format(QRELS_FIELDS, QRELS_SHAPE, "grade", True, "is not an integer",
                 "use an integer grade such as 2, 1, 0 or -1", "judgment")
_RUN = _Format(RUN_FIELDS, RUN_SHAPE, "score", False, "is not a finite number",
               "give every retrieved document a numeric score", "line", keep=("tag",))


def _number(text: str, integer: bool) -> int | float | None:
    """``text`` as an int (``integer``) or a finite float; None when it is not one."""
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        return None
    return value if integer or math.isfinite(value) else None


def _read(path: str, fmt: _Format) -> pd.DataFrame:
    """Columns ``qid``, ``docno``, the number column and ``fmt.keep``; every bad line raised at once."""
    if not Path(path).is_file():
        raise _missing(path)
    with open(path, "rb") as fh:
        data = fh.read()
    if not check_lines(path, data) and fmt.integer:
        raise InputError([Problem(path, None, None, "holds no judgments", f"write one line per judgment: {fmt.shape}")])
    table = _fast_table(data, fmt.fields, fmt.numeric, integer=fmt.integer)
    del data
    if table is not None and fmt.integer and not table[fmt.numeric].between(MIN_GRADE, MAX_GRADE).all():
        table = None  # out-of-range grades: the line reader names each line (and no int64 overflow is kept)
    if table is not None:
        return table
    lines, rows, problems = _slow_rows(path, fmt.fields, fmt.shape)
    column = fmt.fields.index(fmt.numeric)
    values = []
    for line, parts in zip(lines, rows, strict=True):
        values.append(_number(parts[column], fmt.integer))
        if values[-1] is None:
            problems.append(Problem(path, line, fmt.numeric, f"{parts[column]!r} {fmt.problem}", fmt.fix))
        elif fmt.integer and not MIN_GRADE <= values[-1] <= MAX_GRADE:
            problems.append(Problem(path, line, fmt.numeric, f"{parts[column][:40]!r} is outside {MIN_GRADE} to {MAX_GRADE}",
                                    f"use a grade from {MIN_GRADE} (misleading) to {MAX_GRADE}, such as 2, 1 or 0"))
            values[-1] = 0
    problems += _duplicates(path, lines, [p[0] for p in rows], [p[2] for p in rows], fmt.what)
    if problems:
        raise InputError(sorted(problems, key=lambda p: p.line or 0))
    return pd.DataFrame({"qid": [p[0] for p in rows], "docno": [p[2] for p in rows],
                         fmt.numeric: np.asarray(values, dtype=np.int64 if fmt.integer else np.float64),
                         **{k: [p[fmt.fields.index(k)] for p in rows] for k in fmt.keep}})


def read_qrels(path: str | os.PathLike) -> Qrels:
    """Read a TREC qrels file (``qid iter docno grade``).

    Raises:
        InputError: the file is missing; a line without exactly four fields; a grade that is not an
            integer; the same docno judged twice for one query. Each problem names ``file:line``.
    """
    path = str(path)
    table = _read(path, _QRELS)
    return Qrels(table[["qid", "docno", "grade"]].reset_index(drop=True), path)


def read_run(path: str | os.PathLike) -> Run:
    """Read a TREC run file (``qid Q0 docno rank score tag``).

    The ``rank`` column is ignored (trec_eval ranks by score, ties by docno descending; see
    :func:`assay.relevance.ranking.order`), so it is not checked beyond being present.

    Raises:
        InputError: the file is missing; a line without exactly six fields; a score that is not a
            finite number; a docno retrieved twice for one query. Each problem names ``file:line``.
    """
    path = str(path)
    table = _read(path, _RUN)
    tag = str(table["tag"].iloc[0]) if len(table) else ""
    return Run(table[["qid", "docno", "score"]].reset_index(drop=True), tag, path)


def run_from_rankings(rankings: dict[str, list[tuple[str, float]]], tag: str) -> Run:
    """A :class:`Run` from ``{qid: [(docno, score), ...]}`` (any order; ranking is by score)."""
    rows = [(q, d, float(s)) for q, ranked in rankings.items() for d, s in ranked]
    table = pd.DataFrame(rows, columns=["qid", "docno", "score"]).astype({"score": np.float64})
    return Run(table, tag)


def format_score(score: float) -> str:
    """A score as text that reads back to the same float (``repr``), so ties survive a round trip."""
    return repr(float(score))


def write_run(path: str | os.PathLike, run: Run) -> None:
    """Write ``run`` in TREC format, atomically: queries sorted, then by rank (score desc, docno desc).

    The rank column is written 1-based in that order, so trec_eval, pytrec_eval and this package
    read the same ranking.
    """
    t = run.table.iloc[order(run.table)]
    ranks = t.groupby("qid", sort=False).cumcount().to_numpy() + 1
    lines = [f"{q} Q0 {d} {r} {format_score(s)} {run.tag}\n"
             for q, d, r, s in zip(t["qid"], t["docno"], ranks, t["score"], strict=True)]
    write_text(path, "".join(lines))


def write_qrels(path: str | os.PathLike, qrels: Qrels, header: str = "") -> None:
    """Write ``qrels`` in TREC format, atomically, sorted by qid then docno; ``header`` lines get ``# ``."""
    t = qrels.table.sort_values(["qid", "docno"], kind="stable")
    head = "".join(f"# {line}\n" for line in header.splitlines())
    write_text(path, head + "".join(f"{q} 0 {d} {int(g)}\n" for q, d, g in zip(t["qid"], t["docno"], t["grade"], strict=True)))
