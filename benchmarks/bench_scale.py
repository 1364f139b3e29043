"""The scale run: a project made by ``assay init``, grown to N labelled pairs, each judge-part stage timed.

Run: ``.venv/bin/python benchmarks/bench_scale.py --labels 10000 100000 [1000000]``

For every size it writes a fresh project with ``assay init --parts core,judge,queue`` (the minimal
example) into a temporary folder, replaces its ``data/pairs.jsonl`` with N generated pairs
(:func:`pair_rows`), then runs the stages that read the pairs, in pipeline order, each as the
project's dvc.yaml runs it (``python -m assay.stages.NAME``, here without DVC around it):
agreement, judge (the fake judge of the example's params), probe, calibrate and sensitivity. Each
stage is one child process, waited for with ``os.wait4``, so its wall time, user+system CPU and
peak resident memory are its own. It prints one table row per stage and size, then the growth
exponent of CPU and peak memory between consecutive sizes (``log(cpu2 / cpu1) / log(n2 / n1)``: 1 is
linear). ``--json FILE`` also writes the figures; ``--keep DIR`` keeps the projects under DIR.
``--src CHECKOUT`` runs another checkout's stages instead (``python CHECKOUT/stages/NAME.py`` with
``CHECKOUT/src`` first on ``PYTHONPATH``), for a before/after table on the same machine, e.g. of
``git archive <commit> | tar -x -C /tmp/before``.

The generator is seeded (``--seed``) and deterministic: pair ``i`` is one of the six seed kinds
(``i mod 6``), with a fact of 2-90 days, answers that differ per pair (no two pairs hold the same
content), the winner alternating between a and b, and two annotators who agree with the final label
except on about 10% of pairs (where the second annotator picks another label), so the agreement
stage has disagreements to list. Cases and corpus stay the example's: none of these stages reads them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

STAGES = ("agreement", "judge", "probe", "calibrate", "sensitivity")
KINDS = ("clear", "verbose_tie", "padded_wrong", "cite", "tie", "self")
PAD = " We are always happy to help, and you can find more details in the app at any time."


def pair_rows(n: int, seed: int = 0) -> Iterator[dict]:
    """``n`` labelled pairs as JSON-ready dicts (see the module docstring), ids ``p0000000``, ...

    Every answer holds the pair's number, so no two pairs share content. Deterministic in ``seed``.
    """
    from assay.judge.fake import SELF_MARK  # the fake judge's house style, for the `self` pairs

    rng = random.Random(seed)
    for i in range(n):
        days = rng.randint(2, 90)
        fact, cite = f"{days} days", f" [source: kb-doc-{i % 40}]"
        right, bad = f"You have {days} days to ask about request {i}.", f"You have {days} weeks to ask about request {i}."
        kind = KINDS[i % 6]
        a, b, final = {
            "clear": (right + cite, bad + cite, "a"),
            "verbose_tie": (right, right + PAD * 2, "tie"),
            "padded_wrong": (bad + PAD * 2, right, "b"),
            "cite": (right + cite, right, "a"),
            "tie": (right, f"Within {days} days you can ask about request {i}.", "tie"),
            "self": (f"{SELF_MARK} {right}", right + cite, "b"),
        }[kind]
        if i % 2:  # balance the winners between a and b
            a, b, final = b, a, {"a": "b", "b": "a", "tie": "tie"}[final]
        other = final if rng.random() >= 0.1 else rng.choice([x for x in ("a", "b", "tie") if x != final])
        yield {"id": f"p{i:07d}", "case_question": f"How long do I have for request {i}?", "facts": [fact],
               "a": a, "b": b, "kind": kind, "lang": "en", "ann1": final, "ann2": other, "final": final}


def write_pairs(path: Path, n: int, seed: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for row in pair_rows(n, seed):
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def run_stage(project: Path, stage: str, src: Path | None = None) -> dict:
    """Run one stage as a child process; its wall seconds, CPU seconds (user + system) and peak RSS in MB.

    ``src``: a checkout whose ``stages/NAME.py`` and ``src/`` to run instead of the installed assay.
    """
    command = [sys.executable, "-m", f"assay.stages.{stage}"]
    env = dict(os.environ)
    if src is not None:
        command = [sys.executable, str(src / "stages" / f"{stage}.py")]
        env["PYTHONPATH"] = os.pathsep.join([str(src / "src"), *filter(None, [env.get("PYTHONPATH")])])
    start = time.perf_counter()
    with open(project / f".bench_{stage}.log", "wb") as log:
        child = subprocess.Popen(command, cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if child.returncode != 0:
        tail = (project / f".bench_{stage}.log").read_text(encoding="utf-8", errors="replace")[-2000:]
        raise SystemExit(f"bench_scale: stage {stage} exited {child.returncode}:\n{tail}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024}


def make_project(root: Path, n: int, seed: int) -> Path:
    project = root / f"scale_{n}"
    subprocess.run([str(Path(sys.executable).with_name("assay")), "init", str(project), "--parts", "core,judge,queue"],
                   check=True, stdout=subprocess.DEVNULL)
    write_pairs(project / "data" / "pairs.jsonl", n, seed)
    return project


def exponent(small: float, big: float, n_small: int, n_big: int) -> float:
    """The growth exponent between two sizes: 1.0 is linear; nan when a figure is not positive."""
    if small <= 0 or big <= 0:
        return math.nan
    return math.log(big / small) / math.log(n_big / n_small)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, nargs="+", default=[10_000, 100_000], help="numbers of labelled pairs")
    parser.add_argument("--stages", nargs="+", default=list(STAGES), choices=STAGES, help="stages to time, in order")
    parser.add_argument("--seed", type=int, default=0, help="the generator's seed")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--keep", type=Path, help="make the projects under this folder and keep them")
    parser.add_argument("--src", type=Path, help="run this checkout's stages and library instead of the installed ones")
    args = parser.parse_args()
    figures: dict[int, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory(prefix="bench_scale_") as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        print(f"{'stage':<12} {'labels':>9} {'wall s':>8} {'CPU s':>8} {'peak MB':>9}", flush=True)
        for n in args.labels:
            project = make_project(root, n, args.seed)
            figures[n] = {}
            for stage in args.stages:
                f = figures[n][stage] = run_stage(project, stage, args.src and args.src.resolve())
                print(f"{stage:<12} {n:>9,} {f['wall_s']:>8.1f} {f['cpu_s']:>8.1f} {f['peak_mb']:>9,.0f}", flush=True)
    sizes = sorted(figures)
    for lo, hi in zip(sizes, sizes[1:], strict=False):
        print(f"\nexponents {lo:,} -> {hi:,} labels (1.0 is linear)")
        for stage in args.stages:
            a, b = figures[lo][stage], figures[hi][stage]
            print(f"{stage:<12} CPU {exponent(a['cpu_s'], b['cpu_s'], lo, hi):5.2f}   "
                  f"peak memory {exponent(a['peak_mb'], b['peak_mb'], lo, hi):5.2f}")
    if args.json:
        args.json.write_text(json.dumps({str(n): v for n, v in figures.items()}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
