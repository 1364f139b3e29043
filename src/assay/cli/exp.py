"""`assay exp`: the experiments table of a project, `dvc exp show` on the headline columns (80 columns wide)."""

from __future__ import annotations

import argparse
import re


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("exp", help="show the experiments table: dvc exp show on the headline columns",
                       description="Run `dvc exp show --md` keeping only the experiment's name and the five headline "
                                   "numbers of metrics/headline.json (the holdout pass rates before and after, the "
                                   "change, the cases gained and lost), plus any params column asked for. Every "
                                   "declared metric is a column of the raw table, which is far too wide to read.")
    p.add_argument("--param", action="append", default=[], metavar="KEY",
                   help="also show this params.yaml key as a column, e.g. rag.versions.mine.settings.top_k (repeatable)")
    p.add_argument("--all-commits", action="store_true", help="experiments of every commit, not only HEAD's (dvc exp show -A)")
    p.add_argument("--root", default=".", help="project folder (default: .)")
    p.set_defaults(func=run)


def columns(params: list[str]) -> str:
    """The ``--keep`` regular expression: the experiment's name, the headline fields and the ``params`` keys.

    >>> columns(["rag.k"])
    '^(Experiment|before|after|change|gained|lost|(params\\\\.yaml:)?rag\\\\.k)$'
    """
    from assay.artifacts.rag import HeadlineMetrics

    names = ["Experiment", *HeadlineMetrics.model_fields, *(rf"(params\.yaml:)?{re.escape(p)}" for p in params)]
    return "^(" + "|".join(names) + ")$"


def dvc_command(args: argparse.Namespace) -> list[str]:
    """The ``dvc exp show`` command ``assay exp`` runs (the interpreter's own dvc)."""
    import sys

    return [sys.executable, "-m", "dvc", "exp", "show", "--md", "--no-pager", "--drop", ".*", "--keep", columns(args.param),
            *(["-A"] if args.all_commits else [])]


def run(args: argparse.Namespace) -> int:
    import subprocess

    return subprocess.run(dvc_command(args), cwd=args.root).returncode
