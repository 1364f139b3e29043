"""`assay agreement FILE --a COL --b COL`: agreement between two label columns of any JSONL or CSV file.

Labels are read as they are meant: surrounding whitespace is trimmed, and when every label of both
columns is a number (a JSON number, or CSV text such as ``7`` or ``-1.5``) both columns become
numbers, so grades 1..10 sort 1, 2, ..., 10 and -2 sorts before -1. The label order (rows and
columns of the confusion table; nearness for weighted kappa) is ``--order`` if given, else numeric
or text sorted order, and the output says which one was used. A NaN or infinite value (a JSONL
``NaN`` literal, CSV ``nan``) is an error naming file:line.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Hashable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.core.errors import Problem


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agreement", help="observed and chance agreement, Cohen's kappa and confusion of two label columns",
                       description="Compare two raters' labels, one item per row of a JSONL or CSV file: observed "
                                   "agreement, chance agreement, Cohen's kappa with a 95% interval, the confusion "
                                   "table and the number of disagreements. Rows with a column missing or a label "
                                   "empty are errors naming file:line.")
    p.add_argument("file", help="a .jsonl or .csv file with one row per item")
    p.add_argument("--a", required=True, metavar="COL",
                   help="column holding the first rater's labels (rows of the confusion table)")
    p.add_argument("--b", required=True, metavar="COL",
                   help="column holding the second rater's labels (columns of the confusion table)")
    p.add_argument("--id", metavar="COL", help="column naming each item in the disagreement list (default: the line number)")
    p.add_argument("--weights", choices=["linear", "quadratic"],
                   help="weighted kappa for ordered labels, in the label order (default: unweighted)")
    p.add_argument("--order", metavar="A,B,C",
                   help="the label order, comma-separated, for example 'bad,fair,good' (default: the labels "
                        "found, numbers in numeric order, text sorted); labels not listed are an error. Weighted "
                        "kappa counts positions in this order, so list grades nobody used too: --order 1,2,3,4,5")
    p.add_argument("--json", action="store_true", help="print the report and the disagreement list as JSON")
    p.set_defaults(func=run)


def read_columns(path: str, a: str, b: str, id_col: str | None) -> tuple[list[int], list, list, list]:
    """Lines, ids, and the two label columns of ``path``; every bad row is collected, then one InputError.

    String values are trimmed. A row lacking a column, or with a null, empty, blank, non-scalar,
    NaN or infinite label, is a problem naming file:line, the column and (for a missing column)
    the columns the row has.
    """
    from assay.core.errors import InputError, Problem
    from assay.core.io import read_table_rows

    rows = read_table_rows(path)
    if not rows:
        raise InputError([Problem(path, None, None, "has no rows", f"add one row per item with columns {a} and {b}")])
    lines, ids, first, second, problems = [], [], [], [], []
    seen: dict[Hashable, int] = {}
    for line, row in rows:
        values = {}
        for col in (a, b, id_col):
            if col is None:
                continue
            if (problem := _cell_problem(path, line, row, col)) is not None:
                problems.append(problem)
            else:
                values[col] = row[col].strip() if isinstance(row[col], str) else row[col]
        if len(values) < len({a, b, id_col} - {None}):
            continue
        if id_col is not None:
            if values[id_col] in seen:
                first_line = seen[values[id_col]]
                problems.append(Problem(path, line, id_col, f"duplicate id {values[id_col]!r} (first on line {first_line})",
                                        "give every row a unique id"))
                continue
            seen[values[id_col]] = line
        lines.append(line)
        ids.append(values[id_col] if id_col is not None else line)
        first.append(values[a])
        second.append(values[b])
    if problems:
        raise InputError(problems)
    return lines, ids, first, second


def _cell_problem(path: str, line: int, row: dict, col: str) -> Problem | None:
    """What is wrong with column ``col`` of ``row`` as a label or id (absent, null, empty, non-scalar,
    NaN or infinite, blank), or ``None`` when it is usable."""
    from assay.core.errors import Problem

    value = row.get(col)
    if col not in row:
        has = ", ".join(sorted(row)) or "no columns"
        return Problem(path, line, col, f"column is absent; this row has {has}",
                       "add the column to every row, or name an existing column")
    if value is None or value == "":
        return Problem(path, line, col, "is null" if value is None else "is empty", "label every row, or remove unlabelled rows")
    if isinstance(value, (list, dict)):
        return Problem(path, line, col, f"{value!r} is a {type(value).__name__}, not a label", "give a string or number")
    if _not_finite(value):
        return Problem(path, line, col, f"{value!r} is not a label (NaN or infinite)",
                       "give a label, or remove the row if it is unlabelled")
    if isinstance(value, str) and not value.strip():
        return Problem(path, line, col, "is blank", "label every row, or remove unlabelled rows")
    return None


def _number(value: object) -> int | float | None:
    """``value`` as a finite int or float (``"7"`` -> 7, ``" -1.5 "`` -> -1.5), or None when it is not one.

    Booleans are labels, not numbers.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                x = float(value)
            except ValueError:
                return None
            return x if math.isfinite(x) else None
    return None


def _not_finite(value: object) -> bool:
    """A NaN or infinite float, or text that reads as one (``nan``, ``-inf``)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, str):
        try:
            return not math.isfinite(float(value))
        except ValueError:
            return False
    return False


def label_order(first: list, second: list, order: str | None) -> tuple[list, list, list, str]:
    """The two label lists (as numbers when every label is one) and the label order with how it was chosen.

    Returns:
        ``(first, second, order, source)`` where ``source`` is ``"--order"``, ``"numeric"`` or
        ``"text"`` (sorted as strings).

    Raises:
        AgreementError: ``--order`` with an empty item, or (for numeric labels) an item that is not
            a number. (A repeated item, or a label missing from ``--order``, is refused when the
            table is built.)
    """
    from assay.stats.agreement import AgreementError

    numbers = [_number(x) for x in first + second]
    numeric = bool(numbers) and all(x is not None for x in numbers)
    if numeric:
        first, second = numbers[:len(first)], numbers[len(first):]
    if order is None:
        found = set(first) | set(second)
        return first, second, sorted(found) if numeric else sorted(found, key=str), "numeric" if numeric else "text"
    items: list = [item.strip() for item in order.split(",")]
    if any(not item for item in items):
        raise AgreementError(f"agreement: --order {order!r} has an empty item; list labels separated by commas")
    if numeric:
        parsed = [_number(item) for item in items]
        bad = [item for item, x in zip(items, parsed, strict=True) if x is None]
        if bad:
            raise AgreementError(f"agreement: --order item {bad[0]!r} is not a number, but every label in the "
                                 "file is; list the numbers in the order you want")
        items = parsed
    return first, second, items, "--order"


def _num(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.3f}"


ORDER_SOURCES = {"--order": "from --order", "numeric": "numbers, in numeric order", "text": "sorted as text"}


def render(path: str, a: str, b: str, report: dict) -> str:
    """The human summary: n, label order, observed, chance, kappa with its interval, disagreements, confusion table."""
    kind = f"kappa ({report['weights']})" if report["weights"] else "kappa"
    if report["undefined"]:
        kappa_line = report["undefined"]
    else:
        kappa_line = (f"{_num(report['kappa'])}  ({report['level']:.0%} interval "
                      f"{_num(report['kappa_ci_low'])} to {_num(report['kappa_ci_high'])})")
    out = [f"{path}: {a} vs {b}, {report['n']} pairs",
           f"{'label order':<20}{', '.join(map(str, report['label_order']))} ({ORDER_SOURCES[report['order_source']]})",
           f"{'observed agreement':<20}{_num(report['observed'])}",
           f"{'chance agreement':<20}{_num(report['expected'])}",
           f"{kind:<20}{kappa_line}",
           f"{'disagreements':<20}{report['disagreements']}",
           "",
           f"confusion: rows {a}, columns {b}"]
    labels = [str(x) for x in report["confusion"]]
    counts = [[str(c) for c in row.values()] for row in report["confusion"].values()]
    first = max(map(len, labels))
    widths = [max(len(lab), *(len(r[j]) for r in counts)) for j, lab in enumerate(labels)]
    out.append(" " * first + "".join(f"  {lab:>{w}}" for lab, w in zip(labels, widths, strict=True)))
    for lab, row in zip(labels, counts, strict=True):
        out.append(f"{lab:<{first}}" + "".join(f"  {c:>{w}}" for c, w in zip(row, widths, strict=True)))
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace) -> int:
    from assay.stats.agreement import AgreementError, agreement_report
    from assay.core.io import dumps_json

    if args.a == args.b:
        raise AgreementError(f"agreement: --a and --b both name column {args.a!r}; name the two raters' columns")
    lines, ids, first, second = read_columns(args.file, args.a, args.b, args.id)
    first, second, order, source = label_order(first, second, args.order)
    report, pairs = agreement_report(range(len(lines)), first, second, args.weights, labels=order,
                                     names=(args.a, args.b))
    report = {**report, "label_order": order, "order_source": source}
    if args.json:
        key = "id" if args.id else "line"
        listed = [{key: ids[i], args.a: la, args.b: lb} for i, la, lb in pairs]
        print(dumps_json({**report, "file": args.file, "disagreement_list": listed}), end="")
    else:
        print(render(args.file, args.a, args.b, report), end="")
    return 0
