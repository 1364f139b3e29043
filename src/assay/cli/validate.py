"""`assay validate FILE`: the validate stage's checks outside DVC (cases, pairs or a plan)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check a cases, pairs or plan file and exit non-zero on errors",
                       description="Run the pipeline's input checks on one file without DVC. The kind is taken from the "
                                   "file name (.yaml/.yml: plan; pairs*.jsonl: pairs; other .jsonl: cases) unless --kind is given.")
    p.add_argument("file", help="the file to check")
    p.add_argument("--kind", choices=["cases", "pairs", "plan"], help="what the file holds")
    p.add_argument("--corpus", default="data/corpus", help="corpus folder that cases' doc_ids must exist in (default: data/corpus)")
    p.set_defaults(func=run)


def kind_of(path: Path) -> str:
    """Infer the file kind from its name."""
    if path.suffix in (".yaml", ".yml"):
        return "plan"
    return "pairs" if path.name.startswith("pairs") else "cases"


def run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    kind = args.kind or kind_of(path)
    if kind == "plan":
        from assay.data.plan import load_plan, plan_problems

        plan = load_plan(path)
        problems = plan_problems(plan)
        print(f"{path}: valid plan, {len(plan.failures)} failures, {len(plan.metrics)} metrics, {len(problems)} problem(s)")
        for p in problems:
            print(f"- {p}")
        return 0
    if kind == "pairs":
        from assay.data.pairs import load_pairs

        print(f"{path}: {len(load_pairs(path))} valid pairs")
        return 0
    from assay.data.corpus import load_corpus
    from assay.data.cases import coverage, dataset_hash, load_cases

    cases = load_cases(path, load_corpus(args.corpus))
    cov = coverage(cases)
    print(f"{path}: {len(cases)} valid cases, hash {dataset_hash(cases)[:12]}, "
          f"{len(cov['gaps'])} thin cell(s), {len(cov['empty'])} empty")
    return 0
