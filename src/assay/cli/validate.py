"""`assay validate FILE`: the pipeline's input checks outside DVC (cases, pairs, plan, params, a prompt, a corpus, tools)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

KINDS = ("cases", "pairs", "plan", "params", "prompt", "corpus", "tools")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check an input file (cases, pairs, plan, params, prompt, corpus, tools); exit 1 on errors",
                       description="Run the pipeline's input checks on one file without DVC and report every problem "
                                   "in one run. The kind is taken from the name unless --kind is given: a folder is a "
                                   "corpus; params.yaml: params (every section against its stage's model); tools.yaml: "
                                   "the tool catalogue; other .yaml/.yml: plan (checked whole against the parts of "
                                   "./params.yaml: a metric the gate reads must be computed by one of its stages, and "
                                   "a threshold must lie in its metric's range); <name>_v<N>.md: prompt; pairs*.jsonl: "
                                   "pairs; other files: cases.")
    p.add_argument("file", help="the file (or corpus folder) to check")
    p.add_argument("--kind", choices=KINDS, help="what the file holds")
    p.add_argument("--corpus", default="data/corpus", help="corpus folder that cases' doc_ids must exist in (default: data/corpus)")
    p.add_argument("--tools", default=None, help="tool catalogue that cases' expected_tools are checked against "
                                                 "(default: data/tools.yaml when it exists)")
    p.add_argument("--strict", action="store_true",
                   help="make warnings errors (exit 1): a case's fact that appears in none of its documents, "
                        "so no answer can pass")
    p.set_defaults(func=run)


def kind_of(path: Path) -> str:
    """Infer the file kind from its name (see the command's description)."""
    if path.is_dir():
        return "corpus"
    if path.name == "params.yaml":
        return "params"
    if path.name == "tools.yaml":
        return "tools"
    if path.suffix in (".yaml", ".yml"):
        return "plan"
    if re.fullmatch(r"[a-z][a-z0-9_]*_v[0-9]+\.md", path.name):
        return "prompt"
    return "pairs" if path.name.startswith("pairs") else "cases"


def run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    kind = args.kind or kind_of(path)
    if kind == "plan":
        from assay.data.plan import load_plan, plan_problems
        from assay.pipeline.parts import project_parts

        params = Path("params.yaml")  # the project's parts decide which metrics a stage computes
        plan = load_plan(path, project_parts(params) if params.is_file() else None)
        problems = plan_problems(plan)
        print(f"{path}: valid plan, {len(plan.failures)} failures, {len(plan.metrics)} metrics, {len(problems)} problem(s)")
        for p in problems:
            print(f"- {p}")
        return 0
    if kind == "params":
        from assay.core.errors import raise_problems
        from assay.release.params_check import SECTIONS, check_params

        raise_problems(check_params(path))
        print(f"{path}: valid params ({', '.join(SECTIONS)})")
        return 0
    if kind == "prompt":
        from assay.judge.prompts import load_prompt

        prompt = load_prompt(path)
        print(f"{path}: valid prompt {prompt.label}, {len(prompt.criteria)} criteria, sha {prompt.short_sha}")
        return 0
    if kind == "corpus":
        from assay.data.corpus import load_corpus

        print(f"{path}: {len(load_corpus(path))} valid documents")
        return 0
    if kind == "tools":
        from assay.data.tools import load_catalogue

        print(f"{path}: {len(load_catalogue(path).tools)} valid tools")
        return 0
    if kind == "pairs":
        from assay.core.params import load_section
        from assay.data.pairs import DEFAULT_KINDS, load_pairs, pair_kinds
        from assay.judge.params import JudgeParams

        # the kinds declared in params.yaml (agreement.kinds) and judge.duplicates when run where it is, else the defaults
        here = Path("params.yaml").is_file()
        kinds = pair_kinds() if here else DEFAULT_KINDS
        duplicates = load_section("judge", JudgeParams).duplicates if here else "share"
        print(f"{path}: {len(load_pairs(path, kinds, duplicates))} valid pairs")
        return 0
    from assay.core.errors import raise_problems
    from assay.data.cases import coverage, dataset_hash
    from assay.data.corpus import load_dataset
    from assay.data.tools import CATALOGUE_PATH
    from assay.data.unpassable import unpassable_in_file

    tools = args.tools or (CATALOGUE_PATH if Path(CATALOGUE_PATH).exists() else None)
    cases, documents = load_dataset(path, args.corpus, tools)
    warnings = unpassable_in_file(path, cases, documents)
    if args.strict:
        raise_problems(warnings)
    cov = coverage(cases)
    print(f"{path}: {len(cases)} valid cases, hash {dataset_hash(cases)[:12]}, "
          f"{len(cov['gaps'])} thin cell(s), {len(cov['empty'])} empty")
    for w in warnings:
        print(f"warning: {w}")
    return 0
