"""A cold ``dvc repro -f`` of the demo at two (or more) commits, side by side: what a change cost.

    .venv/bin/python benchmarks/bench_revisions.py REV [REV ...] [--repeats 2]

Each revision is checked out in a temporary git worktree and reproduced from its committed inputs
with ``dvc repro -f``, its own library first on ``PYTHONPATH`` (so the stage scripts import that
revision's ``assay``, not this checkout's) and this checkout's interpreter and DVC. Rounds alternate
between the revisions so that a change in the machine's load falls on both alike. Prints, per
revision, the CPU seconds (user + system of every child process: the figure load moves least) and
the wall seconds of each round and their medians, then each revision's median CPU over the first's.

Example (issue 26's limit, tool use no more than 10% slower):
``bench_revisions.py d5df535 226aa02``. Writes nothing to the repository.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dvc import BIN, ROOT, cpu  # noqa: E402


def cold_repro(where: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``dvc repro -f`` in ``where``, with that checkout's library first."""
    return cpu([str(BIN / "dvc"), "repro", "-f", "-q"], where,
               {"PYTHONPATH": str(where / "src"), "ASSAY_EVIDENCE_ROOT": str(where / "data/relevance/evidence.synthetic")})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revs", nargs="+", help="commits to compare; the first is the reference")
    parser.add_argument("--repeats", type=int, default=2, help="alternating rounds per revision (median shown)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {rev: Path(tmp) / rev for rev in args.revs}
        for rev, tree in trees.items():
            subprocess.run(["git", "worktree", "add", "-q", "--detach", str(tree), rev], cwd=ROOT, check=True)
        try:
            runs: dict[str, list[tuple[float, float]]] = {rev: [] for rev in args.revs}
            for round_ in range(args.repeats):
                for rev in args.revs if round_ % 2 == 0 else reversed(args.revs):
                    runs[rev].append(cold_repro(trees[rev]))
                    cpu_s, wall_s = runs[rev][-1]
                    print(f"round {round_ + 1} {rev}: {cpu_s:.1f} CPU-s, wall {wall_s:.1f} s", flush=True)
            first = statistics.median(c for c, _ in runs[args.revs[0]])
            for rev in args.revs:
                cpu_m = statistics.median(c for c, _ in runs[rev])
                wall_m = statistics.median(w for _, w in runs[rev])
                print(f"{rev}: median {cpu_m:.1f} CPU-s, wall {wall_m:.1f} s; {cpu_m / first:.2f}x {args.revs[0]}")
        finally:
            for tree in trees.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
