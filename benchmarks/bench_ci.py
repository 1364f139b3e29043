"""The added cost of `assay ci` against `assay verify` plus `assay gate`, on the demo, side by side.

    .venv/bin/python benchmarks/bench_ci.py [--rounds N]

Setup (not timed): a `git clone` of this repository's HEAD into a temporary folder, `dvc repro`
there and a commit of its outputs, so both sides meet a consistent project and reach the gate.
Then, alternating for ``--rounds`` rounds (default 1): `assay verify` followed by `assay gate`
(what the workflow ran before), and `assay ci` (what it runs now). Each command runs as a
subprocess of this script; its CPU is the user+system time of finished children
(``resource.getrusage(RUSAGE_CHILDREN)``), so dvc and every stage process are counted. Prints CPU
and wall seconds per side, their ratio, and each command's exit code (the demo's gate fails by
design: exit 1 on both sides).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(commands: list[list[str]], cwd: Path, env: dict[str, str]) -> tuple[float, float, list[int]]:
    """CPU and wall seconds of running ``commands`` one after another, and their exit codes."""
    cpu, wall = children_cpu(), time.perf_counter()
    codes = [subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True).returncode for cmd in commands]
    return children_cpu() - cpu, time.perf_counter() - wall, codes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds of both sides (default 1)")
    args = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", DVC_NO_ANALYTICS="1", GIT_AUTHOR_NAME="bench",
               GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="b@b")
    with tempfile.TemporaryDirectory(prefix="bench-ci-") as tmp:
        clone = Path(tmp) / "demo"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, env=env)
        subprocess.run([str(BIN / "dvc"), "repro", "-q"], cwd=clone, check=True, env=env)
        subprocess.run(["git", "add", "-A"], cwd=clone, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", "outputs", "--allow-empty"], cwd=clone, check=True, env=env)
        sides = {"verify + gate": [[str(BIN / "assay"), "verify"], [str(BIN / "assay"), "gate"]],
                 "ci": [[str(BIN / "assay"), "ci"]]}
        totals = {name: [0.0, 0.0] for name in sides}
        for round_ in range(args.rounds):
            for name, commands in sides.items():
                cpu, wall, codes = timed(commands, clone, env)
                totals[name][0] += cpu
                totals[name][1] += wall
                print(f"round {round_ + 1}  {name:<14} CPU {cpu:7.1f} s  wall {wall:7.1f} s  exit {codes}")
    (old_cpu, old_wall), (new_cpu, new_wall) = totals["verify + gate"], totals["ci"]
    n = args.rounds
    print(f"mean over {n} round(s): verify + gate CPU {old_cpu / n:.1f} s (wall {old_wall / n:.1f} s); "
          f"ci CPU {new_cpu / n:.1f} s (wall {new_wall / n:.1f} s); ci / (verify + gate) CPU {new_cpu / old_cpu:.2f}x, "
          f"added CPU {(new_cpu - old_cpu) / n:+.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
