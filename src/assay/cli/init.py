"""`assay init DIR`: start an evaluation project (and `report`, shared with `assay add`)."""

from __future__ import annotations

import argparse

from typing import TYPE_CHECKING

from assay.pipeline.parts import DEFAULT_PARTS, DESCRIPTIONS, PARTS

if TYPE_CHECKING:
    from assay.project.init import InitResult

PARTS_HELP = "; ".join(f"{name}: {text}" for name, text in DESCRIPTIONS.items())


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="write a ready evaluation project (data, params, pipeline, CI) into DIR",
                       description="Write a new evaluation project: example data, params.yaml with a section per "
                                   "chosen part, dvc.yaml for those parts, requirements.txt pinning assay as it was "
                                   "installed (index version, git commit, or a wheel copied to wheels/), "
                                   "constraints.txt pinning every other package, a README and "
                                   ".github/workflows/assay.yml (at the repository's root when DIR is inside one); "
                                   "run `git init -b main` and `dvc init` when DIR is not a repository yet. Parts: "
                                   + PARTS_HELP + ".")
    p.add_argument("dir", metavar="DIR", help="the project folder: new or empty (see --force)")
    p.add_argument("--parts", default=",".join(DEFAULT_PARTS), metavar="PARTS",
                   help=f"comma-separated parts to use, of {', '.join(PARTS)} (default: {','.join(DEFAULT_PARTS)}; "
                        "core is always included, study brings retrieval)")
    p.add_argument("--example", choices=["minimal", "demo"], default="minimal",
                   help="minimal: a small starter that runs in seconds (default); demo: the NodiNet demo")
    p.add_argument("--force", action="store_true",
                   help="allow a non-empty DIR: write only the files that are missing, keep every file that exists")
    p.add_argument("--add", metavar="PART", help="add PART to the existing project in DIR instead (as `assay add`)")
    p.set_defaults(func=run_init)


def report(verb: str, result: InitResult, next_steps: list[str]) -> None:
    print(f"assay {verb}: {result.root} uses {', '.join(result.parts)}")
    for command in result.commands:
        print(f"ran      {command}")
    print(f"wrote    {len(result.written)} file(s)" + (f": {', '.join(result.written)}" if len(result.written) <= 8 else ""))
    if result.kept:
        print(f"kept     {len(result.kept)} existing file(s) unchanged: {', '.join(result.kept[:8])}"
              + (" ..." if len(result.kept) > 8 else ""))
    for note in result.notes:
        print(f"note:    {note}")
    if next_steps:
        print("next:")
        for step in next_steps:
            print(f"  {step}")


def run_init(args: argparse.Namespace) -> int:
    from assay.project.init import add_part, init_project

    if args.add:
        result = add_part(args.dir, args.add, args.example)
        report("add", result, ["dvc repro"])
        return 0
    result = init_project(args.dir, args.parts.split(","), args.example, args.force)
    report("init", result, [f"cd {args.dir}", "dvc repro", "assay gate"])
    return 0
