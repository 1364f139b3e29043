"""`assay summary`: a few lines from metrics/ after `dvc repro` (what `make repro` prints at the end)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("summary", help="print a short summary of the pipeline's metrics",
                       description="Read the metrics files and print one line per stage that has run.")
    p.add_argument("--root", default=".", help="repository root (default: .)")
    p.set_defaults(func=run)


def summary_lines(root: Path) -> list[str]:
    """One line per metrics file present, in pipeline order; missing stages are skipped."""
    from assay.artifacts.registry import (AGREEMENT, CALIBRATION, COMPARE, DATASET, GATE, LEAKAGE, PLAN, PROVENANCE,
                                          SPLIT, SUMMARY_PAGE)
    from assay.core.fmt import num

    lines = []
    if (d := DATASET.read_optional(root)) is not None:
        prov = PROVENANCE.read_optional(root, stage="validate")
        digest = str(prov.details.get("dataset_hash", ""))[:12] if prov else ""
        # every language of the data, most cases first (ties by tag): "194 (134 en, 60 bn)"
        langs = ", ".join(f"{n} {lang}" for lang, n in sorted(d.by_lang.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"cases        {d.cases} ({langs or 'no language'}), "
                     f"{d.gaps} thin coverage cell(s), {d.empty_cells} empty, hash {digest}")
    if (s := SPLIT.read_optional(root)) is not None:
        lines.append(f"split        dev {s.dev}, holdout {s.holdout}")
    if (k := LEAKAGE.read_optional(root)) is not None:
        lines.append(f"leakage      {k.dev_holdout} near-duplicate(s) across the split, {k.sources} match(es) with other sources")
    if (p := PLAN.read_optional(root)) is not None:
        lines.append(f"plan         {p.problems} problem(s), {p.blocking} blocking metric(s)")
    if (a := AGREEMENT.read_optional(root)) is not None:
        lines.append(f"agreement    kappa {num(a.kappa)} [{num(a.kappa_ci_low)}, {num(a.kappa_ci_high)}] "
                     f"on {a.n} pairs, {a.disagreements} to adjudicate")
    if (c := CALIBRATION.read_optional(root)) is not None:
        lines.append(f"judge        agreement {num(c.agreement)} [{num(c.agreement_ci_low)}, {num(c.agreement_ci_high)}], "
                     f"kappa {num(c.kappa)} on {c.n} pairs: {'usable' if c.usable == 1 else 'NOT usable'}")
    if (m := COMPARE.read_optional(root)) is not None:
        lines.append(f"compare      holdout pass rate {num(m.baseline_pass_rate.value)} -> {num(m.candidate_pass_rate.value)} "
                     f"on {m.n} cases: difference {num(m.diff)} [{num(m.diff_ci_low)}, {num(m.diff_ci_high)}], "
                     f"{m.better} better, {m.worse} worse, sign test p {num(m.p_sign)}")
    if (g := GATE.read_optional(root)) is not None:
        verdict = "PASS" if g.passed == 1 else f"FAIL ({g.failed} check(s) unmet, {g.missing + g.stale} missing or stale)"
        lines.append(f"gate         {verdict}; details in {SUMMARY_PAGE.relpath()}, CI runs `assay ci`")
    return lines


def run(args: argparse.Namespace) -> int:
    for line in summary_lines(Path(args.root)):
        print(line)
    return 0
