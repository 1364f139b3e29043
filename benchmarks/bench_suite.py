"""The test suite's cost: wall time and CPU (user + system of pytest and every process it waited for).

    .venv/bin/python benchmarks/bench_suite.py                       # what `make test` runs after its linters
    .venv/bin/python benchmarks/bench_suite.py tests/test_e2e_gate.py tests/test_e2e_pipeline.py
    .venv/bin/python benchmarks/bench_suite.py --workers 0 --src /tmp/base tests/test_e2e_gate.py

Runs ``python -m pytest -n WORKERS --dist loadfile --durations=N`` on the given files (default: the
whole default run, tests marked slow left out) in a child process and prints its wall time, its CPU
and their ratio: on a machine others share, wall time measures the machine, CPU measures the suite.
``--src`` runs another checkout (its tests and its library, first on ``PYTHONPATH``), so a before
and an after can be timed in the same environment. The dvc and stage processes the end-to-end tests
start are children of the workers, so their CPU is counted.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="test files (default: the whole default run)")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist processes, as make test's TEST_WORKERS")
    parser.add_argument("--durations", type=int, default=40, help="pytest's slowest phases to list")
    parser.add_argument("--src", type=Path, default=ROOT, help="the checkout to run (its tests/ and src/)")
    args = parser.parse_args(argv)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--durations={args.durations}"]
    cmd += ["-n", str(args.workers), "--dist", "loadfile"] if args.workers else ["-n", "0"]
    cmd += [str(f) for f in args.files]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(args.src / "src"), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=args.src, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"\nbench_suite: {' '.join(cmd[3:])}\n  in {args.src}: exit {proc.returncode}, wall {wall:.0f} s, "
          f"CPU {cpu:.0f} s (user {after.ru_utime - before.ru_utime:.0f} s, system {after.ru_stime - before.ru_stime:.0f} s), "
          f"CPU / wall {cpu / wall:.2f}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
