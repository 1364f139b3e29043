"""Where each pipeline stage's time goes: importing versus working, stage by stage.

    .venv/bin/python benchmarks/bench_stage_imports.py [--repeats 3] [--only compare,split]

Runs every stage command recorded in dvc.lock (``python stages/X.py [arg]``, with this
interpreter) from the repository root, as DVC does: it rewrites the stage's outputs with the same
bytes, so run it on a clean, reproduced workspace. For each stage it prints

- ``wall``: the best of ``--repeats`` end-to-end runs of the process, in ms;
- ``imports``: the summed cumulative time of the top-level imports reported by
  ``python -X importtime`` (one extra run; importtime itself adds a little), in ms;
- ``share``: imports over wall;
- ``modules``: how many modules the stage imported (``sys.modules`` at exit, from the importtime log).

and the totals. Stage time still includes the interpreter's own start-up (about 15 ms).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def stage_commands() -> dict[str, list[str]]:
    """``{stage name: argv}`` for every stage in dvc.lock, ``python`` replaced by this interpreter."""
    lock = yaml.safe_load((ROOT / "dvc.lock").read_text())
    out = {}
    for name, stage in lock["stages"].items():
        argv = stage["cmd"].split()
        if argv[0] == "python":
            out[name] = [sys.executable, *argv[1:]]
    return out


def wall(argv: list[str], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def imports(argv: list[str]) -> tuple[float, int]:
    """Seconds of top-level imports and the number of modules imported, from ``-X importtime``."""
    done = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], cwd=ROOT, check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    total, modules = 0, 0
    for line in done.stderr.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        modules += 1
        if len(m.group(3)) == 1:  # one space after the bar: imported at top level, cumulative counts once
            total += int(m.group(2))
    return total / 1e6, modules


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated stage names (default: every stage)")
    args = ap.parse_args()
    commands = stage_commands()
    if args.only:
        commands = {k: v for k, v in commands.items() if k in args.only.split(",")}
    print(f"{'stage':28} {'wall ms':>9} {'imports ms':>11} {'share':>6} {'modules':>8}")
    t_wall = t_imp = 0.0
    for name, argv in commands.items():
        w = wall(argv, args.repeats)
        imp, modules = imports(argv)
        t_wall, t_imp = t_wall + w, t_imp + imp
        print(f"{name:28} {w * 1000:9.0f} {imp * 1000:11.0f} {imp / w:6.0%} {modules:8d}")
    print(f"{'total':28} {t_wall * 1000:9.0f} {t_imp * 1000:11.0f} {t_imp / t_wall:6.0%}")


if __name__ == "__main__":
    main()
