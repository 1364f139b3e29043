"""`assay verify`: recompute the pipeline from the committed inputs and refuse committed outputs that differ.

Next to `assay gate` on a laptop: the gate checks that outputs are fresh (recorded input hashes match),
verify checks that they are what the inputs give (a hand-edited metric committed with `dvc commit -f`
is fresh but not right). Needs no API key and no network: a real judge's replies are committed by
the `judge` stage and replayed. It leaves no record behind: in CI, `assay ci` recomputes and gates in
one process, and `assay gate` under ``CI=true`` never passes on its own (:mod:`assay.cli.gate`).
A shallow clone is refused before anything is recomputed (the append-only ledger and the opening
registration read earlier commits: :func:`assay.core.history.require_history`).
Exit 0 when every committed output matches its recomputation,
2 when one differs, is missing or cannot be recomputed, or the clone is shallow, 3 on an error in assay
itself (one line, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from assay.core.errors import exits_on_internal_error

if TYPE_CHECKING:
    from assay.judge.audit import Rejudged


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="recompute every stage in a scratch copy; exit 2 when a committed output differs",
                       description="Copy the files git tracks into a scratch folder, run `dvc repro --force` there "
                                   "(a real judge's stored replies are used, never the API), and compare every "
                                   "committed metrics/ and reports/ file and every git-stored DVC output byte for "
                                   "byte with its recomputation. A shallow clone is refused (the append-only ledger and "
                                   "the opening registration read git history: fetch-depth: 0). Exit 0 when all "
                                   "match, 2 when any differs, is missing or cannot be recomputed, or the clone is "
                                   "shallow, 3 on an error in assay itself.")
    p.add_argument("--root", default=".", help="repository root (default: .)")
    p.add_argument("--scratch", default=None, metavar="DIR",
                   help="work in DIR (empty or new) and keep it, to inspect the recomputed files "
                        "(default: a temporary folder, deleted)")
    p.add_argument("--rejudge", type=int, default=0, metavar="N",
                   help="first re-ask a seeded random sample of N stored judge requests from the live judge (its "
                        "endpoint and key needed) and fail (exit 2) when more than judge.rejudge_tolerance of the "
                        "verdicts differ from the stored ones, naming them")
    p.add_argument("--seed", type=int, default=0, help="seed of the --rejudge sample (default 0)")
    p.set_defaults(func=exits_on_internal_error("verify", run))


def _rejudge(root: str, n: int, seed: int) -> Rejudged:
    """:func:`assay.judge.audit.rejudge` on the stored replies of ``root`` under params ``judge``."""
    import os
    from pathlib import Path

    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.data.pairs import load_pairs, pair_kinds
    from assay.judge.audit import rejudge
    from assay.judge.factory import make_judge
    from assay.judge.params import JudgeParams
    from assay.judge.prompts import load_prompt
    from assay.judge.replay import ReplayJudge
    from assay.judge.replies import REPLIES_DIR

    base = Path(root)
    here = os.getcwd()
    os.chdir(base)  # params paths are relative to the repository root
    try:
        params = load_section("judge", JudgeParams)
        paths = input_paths()
        pairs = sorted(load_pairs(paths.pairs, pair_kinds()), key=lambda p: p.id)
        prompt = load_prompt(params.prompt_file(paths.prompts))
        stored = ReplayJudge.open(REPLIES_DIR, pairs)
        return rejudge(pairs, prompt, stored, make_judge(params), n, seed, params.swap, params.rejudge_tolerance)
    finally:
        os.chdir(here)


def run(args: argparse.Namespace) -> int:
    from assay.release.verify import verify

    print("assay verify: recomputing the pipeline from the committed inputs in a scratch copy ...", file=sys.stderr)
    if args.rejudge > 0:
        audit = _rejudge(args.root, args.rejudge, args.seed)
        for line in audit.differed:
            print(f"REJUDGED  {line}")
        print(f"rejudged: {len(audit.differed)} of {audit.asked} re-asked verdicts differ from the stored replies "
              f"(share {audit.share:.3f}, judge.rejudge_tolerance {audit.tolerance:g})")
        if not audit.ok:
            print("verdict: the stored judge replies are not what the judge says now (fix: run `dvc repro judge` "
                  "and commit; if the judge varies by itself, measure that share and raise judge.rejudge_tolerance)")
            return 2
    result = verify(args.root, args.scratch)
    for stage, reason in result.replayed.items():
        print(f"replayed  {stage}: {reason}")
    if result.uncommitted:
        shown = ", ".join(result.uncommitted[:5]) + (" ..." if len(result.uncommitted) > 5 else "")
        print(f"note: {len(result.uncommitted)} tracked file(s) differ from HEAD ({shown}); "
              "this verified the working tree, not the last commit")
    for difference in result.differences:
        print(f"DIFFERS   {difference}")
    if result.ok:
        print(f"verified: {len(result.compared)} committed files match a recomputation of "
              f"{len(result.stages)} stages from the committed inputs")
        return 0
    print(f"verdict: {len(result.differences)} of {len(result.compared)} committed files differ from what the "
          "committed inputs give (fix: run `dvc repro` and commit its outputs; never edit outputs by hand)")
    return 2
