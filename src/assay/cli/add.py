"""`assay add PART`: add a part to the project in the current folder."""

from __future__ import annotations

import argparse

from assay.pipeline.parts import PARTS


def register(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser("add", help="add a part (judge, queue, retrieval, study) to the project here",
                       description="Add a part to an existing project: update `parts` and append the part's "
                                   "sections to params.yaml and generate dvc.yaml again. Without --example no example "
                                   "data is wired in: the queue part starts with no review snapshot, the retrieval part "
                                   "reads your own corpus (inputs.corpus) with queries and qrels made from your cases, "
                                   "and the study part is refused (it needs a protocol and people's judgments; "
                                   "--example starts from the synthetic demo study). Nothing you wrote is changed.")
    a.add_argument("part", metavar="PART", choices=[p for p in PARTS if p != "core"], help="the part to add")
    a.add_argument("--root", default=".", help="project folder (default: .)")
    a.add_argument("--example", choices=["minimal", "demo"], default=None,
                   help="also copy and wire in this example's data for the part, where none exists (default: none; "
                        "the queue part then starts with no review snapshot, retrieval reads your own corpus)")
    a.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from assay.cli.init import report
    from assay.project.init import add_part

    from assay.project.blank import NEXT_STEP

    result = add_part(args.root, args.part, args.example)
    steps = ["dvc repro"] if args.example or "queue" not in result.parts else [NEXT_STEP]
    report("add", result, steps)
    return 0
