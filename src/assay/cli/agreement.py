"""`assay agreement FILE --a COL --b COL`: agreement between two label columns of any JSONL or CSV file."""

from __future__ import annotations

import argparse
import math
from collections.abc import Hashable


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
                   help="weighted kappa for ordered labels, in sorted label order (default: unweighted)")
    p.add_argument("--json", action="store_true", help="print the report and the disagreement list as JSON")
    p.set_defaults(func=run)


def read_columns(path: str, a: str, b: str, id_col: str | None) -> tuple[list[int], list, list, list]:
    """Lines, ids, and the two label columns of ``path``; every bad row is collected, then one InputError.

    A row lacking a column, or with a null, empty or non-scalar label, is a problem naming
    file:line, the column and (for a missing column) the columns the row has.
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
            if col not in row:
                has = ", ".join(sorted(row)) or "no columns"
                problems.append(Problem(path, line, col, f"column is absent; this row has {has}",
                                        "add the column to every row, or name an existing column"))
            elif row[col] is None or row[col] == "":
                problems.append(Problem(path, line, col, "is null" if row[col] is None else "is empty",
                                        "label every row, or remove unlabelled rows"))
            elif isinstance(row[col], (list, dict)):
                problems.append(Problem(path, line, col, f"{row[col]!r} is a {type(row[col]).__name__}, not a label",
                                        "give a string or number"))
            else:
                values[col] = row[col]
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


def _num(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.3f}"


def render(path: str, a: str, b: str, report: dict) -> str:
    """The human summary: n, observed, chance, kappa with its interval, disagreements, confusion table."""
    kind = f"kappa ({report['weights']})" if report["weights"] else "kappa"
    if report["undefined"]:
        kappa_line = report["undefined"]
    else:
        kappa_line = (f"{_num(report['kappa'])}  ({report['level']:.0%} interval "
                      f"{_num(report['kappa_ci_low'])} to {_num(report['kappa_ci_high'])})")
    out = [f"{path}: {a} vs {b}, {report['n']} pairs",
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
    out.append(" " * first + "".join(f"  {lab:>{w}}" for lab, w in zip(labels, widths)))
    for lab, row in zip(labels, counts):
        out.append(f"{lab:<{first}}" + "".join(f"  {c:>{w}}" for c, w in zip(row, widths)))
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace) -> int:
    from assay.stats.agreement import AgreementError, agreement_report
    from assay.core.io import dumps_json

    if args.a == args.b:
        raise AgreementError(f"agreement: --a and --b both name column {args.a!r}; name the two raters' columns")
    lines, ids, first, second = read_columns(args.file, args.a, args.b, args.id)
    report, pairs = agreement_report(range(len(lines)), first, second, args.weights, names=(args.a, args.b))
    if args.json:
        key = "id" if args.id else "line"
        listed = [{key: ids[i], args.a: la, args.b: lb} for i, la, lb in pairs]
        print(dumps_json({**report, "file": args.file, "disagreement_list": listed}), end="")
    else:
        print(render(args.file, args.a, args.b, report), end="")
    return 0
