"""`assay summary`: a few lines from metrics/ after `dvc repro` (what `make repro` prints at the end)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("summary", help="print a short summary of the pipeline's metrics",
                       description="Read metrics/*.json and print one line per stage that has run.")
    p.add_argument("--metrics", default="metrics", help="metrics folder (default: metrics)")
    p.set_defaults(func=run)


def _load(folder: Path, name: str) -> dict | None:
    f = folder / name
    return json.loads(f.read_text(encoding="utf-8")) if f.exists() else None


def fmt(x: float | None, digits: int = 3) -> str:
    """A number for people: rounded, or 'n/a' for None."""
    return "n/a" if x is None else f"{x:.{digits}f}"


def summary_lines(folder: Path) -> list[str]:
    """One line per metrics file present, in pipeline order; missing stages are skipped."""
    lines = []
    if (d := _load(folder, "dataset.json")) is not None:
        lines.append(f"cases        {d['cases']} ({d['by_lang'].get('en', 0)} en, {d['by_lang'].get('bn', 0)} bn), "
                     f"{d['gaps']} thin coverage cell(s), {d['empty_cells']} empty, hash {d['hash'][:12]}")
    if (s := _load(folder, "split.json")) is not None:
        lines.append(f"split        dev {s['dev']}, holdout {s['holdout']}")
    if (k := _load(folder, "leakage.json")) is not None:
        lines.append(f"leakage      {k['dev_holdout']} near-duplicate(s) across the split, {k['sources']} match(es) "
                     f"with other sources (Jaccard >= {k['threshold']})")
    if (p := _load(folder, "plan.json")) is not None:
        lines.append(f"plan         {p['problems']} problem(s), {p['blocking']} blocking metric(s)")
    if (a := _load(folder, "agreement.json")) is not None:
        lines.append(f"agreement    kappa {fmt(a['kappa'])} [{fmt(a['kappa_ci_low'])}, {fmt(a['kappa_ci_high'])}] "
                     f"on {a['n']} pairs, {a['disagreements']} to adjudicate")
    if (c := _load(folder, "calibration.json")) is not None:
        lines.append(f"judge        agreement {fmt(c['agreement'])} [{fmt(c['agreement_ci_low'])}, {fmt(c['agreement_ci_high'])}], "
                     f"kappa {fmt(c['kappa'])} on {c['n']} pairs: {'usable' if c['usable'] == 1 else 'NOT usable'}")
    if (m := _load(folder, "compare.json")) is not None:
        b, k = m["baseline"], m["candidate"]
        lines.append(f"compare      {b['name']} {fmt(b['pass_rate'])} -> {k['name']} {fmt(k['pass_rate'])} on {m['n']} cases: "
                     f"{m['better']} better, {m['worse']} worse, sign test p {fmt(m['p_sign'])}")
    if (g := _load(folder, "gate.json")) is not None:
        verdict = "PASS" if g["passed"] == 1 else f"FAIL ({g['failed']} check(s) unmet)"
        lines.append(f"gate         {verdict}; details in reports/summary.md, CI runs `assay gate`")
    return lines


def run(args: argparse.Namespace) -> int:
    for line in summary_lines(Path(args.metrics)):
        print(line)
    return 0
