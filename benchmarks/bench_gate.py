"""The gate's CPU on a project with many labelled pairs: `assay gate`, side by side with another library.

    .venv/bin/python benchmarks/bench_gate.py [--pairs N] [--rounds R] [--seed S] [--before SRC]

Setup (not timed): ``assay init --parts core,judge`` (the minimal example) in a temporary folder,
its ``data/pairs.jsonl`` replaced by ``--pairs`` pairs (default 100,000) made by a seeded generator
from the example's own pairs (:func:`generated_pairs`: each a template pair with a numbered question
and a numbered answer, the second annotator's label changed on 10% of pairs), a commit, then
``dvc repro`` so every provenance file records the big file. Then, alternating for ``--rounds``
rounds: ``assay gate --skip-dvc-status`` with this checkout's library and, with ``--before SRC``,
with the library in ``SRC`` (a ``src`` folder, e.g. ``git archive 9db21c0 src | tar -x -C
/tmp/before``) first on ``PYTHONPATH``; with ``--before`` the ``judge.duplicates`` line leaves
params.yaml first (an older library refuses the key; ``share`` is the default). ``dvc status`` is
skipped on both sides: it is DVC's own work, the same whatever the library, and with it the two
sides would not see the same params. One full ``assay gate`` (with ``dvc status``) of this library
is timed last. Each gate runs as a subprocess; its CPU is the user+system time of finished children
(``resource.getrusage(RUSAGE_CHILDREN)``). Prints CPU and wall seconds per side and the ratio; both
sides must print the same verdict table. ``--profile`` also prints the ten costliest functions of
one in-process gate (cProfile, cumulative time).

Measured (2 shared cores, 100,000 pairs, 2 rounds): this library 4.1 CPU-s per gate, 9db21c0's 21.0
(0.19x), the same table; a full ``assay gate`` 5.5 CPU-s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def generated_pairs(templates: list[dict], n: int, seed: int) -> list[dict]:
    """``n`` valid pairs made from ``templates`` (seeded): template ``i % len``, question and answers numbered."""
    rng = random.Random(seed)
    flip = {"a": "b", "b": "tie", "tie": "a"}
    out = []
    for i in range(n):
        t = templates[i % len(templates)]
        ann2 = flip[t["ann2"]] if rng.random() < 0.1 else t["ann2"]
        out.append({**t, "id": f"g{i:07d}", "case_question": f"{t['case_question']} (variant {i})",
                    "a": f"{t['a']} Ref {i}.", "b": f"{t['b']} Ref {i}.", "ann2": ann2})
    return out


def gate(cwd: Path, env: dict[str, str], *flags: str) -> tuple[float, float, str]:
    """CPU and wall seconds of one `assay gate`, and what it printed (with its exit code)."""
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run([str(BIN / "assay"), "gate", *flags], cwd=cwd, env=env, capture_output=True, text=True)
    return children_cpu() - cpu, time.perf_counter() - wall, f"{done.stdout}exit {done.returncode}"


def profile(root: Path) -> None:
    """The ten costliest functions (cumulative) of one in-process ``gather`` at ``root``."""
    import cProfile
    import pstats

    from assay.release.gather import gather

    profiler = cProfile.Profile()
    profiler.runcall(gather, root)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000, help="labelled pairs in the project (default 100000)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--seed", type=int, default=35, help="the generator's seed (default 35)")
    parser.add_argument("--before", type=Path, help="a src folder holding another assay library, timed alongside")
    parser.add_argument("--profile", action="store_true", help="also profile one gather() of this library in process")
    args = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONPATH")}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", DVC_NO_ANALYTICS="1", GIT_AUTHOR_NAME="bench",
               GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="b@b")
    with tempfile.TemporaryDirectory(prefix="bench-gate-") as tmp:
        root = Path(tmp) / "p"
        subprocess.run([str(BIN / "assay"), "init", "--parts", "core,judge", str(root)], check=True, env=env,
                       capture_output=True)
        pairs = root / "data/pairs.jsonl"
        templates = [json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = generated_pairs(templates, args.pairs, args.seed)
        pairs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(f"project: {args.pairs} pairs ({pairs.stat().st_size / 1e6:.1f} MB); dvc repro ...", flush=True)
        started = time.perf_counter()
        subprocess.run([str(BIN / "dvc"), "repro", "-q"], cwd=root, check=True, env=env, capture_output=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", "outputs"], cwd=root, check=True, env=env)
        print(f"dvc repro: {time.perf_counter() - started:.0f} s wall")
        if args.profile:
            profile(root)
        full = gate(root, env)
        sides = {"now": env}
        if args.before is not None:
            sides["before"] = {**env, "PYTHONPATH": str(args.before.resolve())}
            params = root / "params.yaml"
            params.write_text("".join(line for line in params.read_text(encoding="utf-8").splitlines(keepends=True)
                                      if not line.startswith("  duplicates:")), encoding="utf-8")
        totals = {name: [0.0, 0.0] for name in sides}
        tables: dict[str, set[str]] = {name: set() for name in sides}
        for _ in range(args.rounds):
            for name, side_env in sides.items():
                cpu, wall, table = gate(root, side_env, "--skip-dvc-status")
                totals[name][0] += cpu
                totals[name][1] += wall
                tables[name].add(table)
        for name, (cpu, wall) in totals.items():
            print(f"{name}: {cpu / args.rounds:.2f} CPU-s, {wall / args.rounds:.2f} s wall per gate (--skip-dvc-status)")
        print(f"now, full `assay gate`: {full[0]:.2f} CPU-s, {full[1]:.2f} s wall, {full[2].splitlines()[-1]}")
        if "before" in totals:
            print(f"now / before: {totals['now'][0] / totals['before'][0]:.2f}x CPU")
            if tables["now"] != tables["before"] or len(tables["now"]) != 1:
                print("the two libraries printed different verdict tables", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
