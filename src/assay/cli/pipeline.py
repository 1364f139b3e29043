"""`assay pipeline`: write dvc.yaml for the parts params.yaml lists."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pipeline", help="generate dvc.yaml from the parts in params.yaml",
                       description="Write dvc.yaml for the parts params.yaml lists under `parts`. dvc.yaml is "
                                   "generated: edit the parts (or `assay add PART`), not the file. Exit 0 when "
                                   "dvc.yaml is up to date or was written, 1 with --check when it would change.")
    p.add_argument("--root", default=".", help="project folder (default: .)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 when dvc.yaml differs from what "
                                                        "the parts give (for CI)")
    p.add_argument("--layout", choices=["installed", "source"], default=None,
                   help="installed: stages run from the installed package (a project made by assay init); "
                        "source: assay's own repository (default: detected)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from assay.pipeline.generate import write_pipeline

    changed = write_pipeline(args.root, args.layout, check=args.check)
    if args.check:
        print("dvc.yaml differs from what the parts give (fix: run `assay pipeline`)" if changed
              else "dvc.yaml is up to date")
        return 1 if changed else 0
    print("wrote dvc.yaml" if changed else "dvc.yaml is up to date")
    return 0
