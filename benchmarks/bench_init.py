"""Getting in: the wheel, `assay init` plus the first `dvc repro`, and the CI template's job on the demo.

Run: .venv/bin/python benchmarks/bench_init.py [--skip-demo] [--reuse-deps]

Times are wall clock and CPU (user + system of the child processes, from getrusage), on this machine.

1. Builds the wheel (`pip wheel`) and prints its size.
2. Installs it with its dependencies (pinned by constraints.txt, from pip's cache or PyPI) into a
   fresh virtual environment in a temporary folder, as a user would, and prints the install time.
   --reuse-deps installs the wheel alone and makes this environment's packages importable through a
   .pth file (as tests/test_packaging.py does): no download, the same library files.
3. From that environment, times `assay init my-eval` (the minimal example, parts core,judge) plus the
   first `dvc repro`, then `assay gate`; then `assay add queue` and `assay add retrieval` (without
   --example: no snapshot, the project's own corpus), each with its `dvc repro` and `assay gate`.
4. Unless --skip-demo: `assay init --example demo` with every part, its cold `dvc repro`, then the
   CI template's recomputation (`assay verify`) and the job's `dvc repro` in a fresh clone without
   DVC's cache, as the workflow runs them, and the ratio to the cold `dvc repro`; then the same with
   one forged metrics file committed after `dvc commit -f`, which must make verify exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from wheel_env import build_wheel, wheel_venv  # noqa: E402 - tests/ is put on the path above


CPU: list[float] = [0.0]  # CPU seconds of the last timed() call's child process tree


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], cwd: Path, env: dict, ok=(0,)) -> tuple[float, subprocess.CompletedProcess]:
    """Run ``cmd``; its wall seconds and the process (its CPU seconds are left in ``CPU[0]``)."""
    start, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    CPU[0] = _children_cpu() - cpu
    return time.perf_counter() - start, proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-demo", action="store_true", help="only the wheel and the minimal example")
    parser.add_argument("--reuse-deps", action="store_true",
                        help="install the wheel alone; this environment's packages are made importable (no download)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        base = dict(os.environ)
        wheel = build_wheel(work / "wheel-src", work / "dist")
        print(f"wheel: {wheel.name}, {wheel.stat().st_size / 2**20:.2f} MB")
        venv = work / "venv"
        if args.reuse_deps:
            wheel_venv(wheel, venv)
            print("the wheel alone installed into a fresh venv; dependencies from this environment (--reuse-deps)")
        else:
            subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(venv)], check=True)
            seconds, _ = timed([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "-c",
                                str(ROOT / "constraints.txt"), str(wheel)], work, base)
            print(f"pip install of the wheel and its dependencies into a fresh venv: {seconds:.1f} s")
        env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(work / "home"), "LANG": "C.UTF-8",
               "DVC_NO_ANALYTICS": "1", "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
               "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
        init, _ = timed(["assay", "init", "my-eval"], work, env)
        init_cpu = CPU[0]
        repro, _ = timed(["dvc", "repro", "-q"], work / "my-eval", env)
        repro_cpu = CPU[0]
        _, gate = timed(["assay", "gate"], work / "my-eval", env, ok=(0, 1))
        print(f"minimal example: assay init {init:.1f} s wall / {init_cpu:.1f} s CPU + first dvc repro {repro:.1f} s wall / "
              f"{repro_cpu:.1f} s CPU = {init + repro:.1f} s wall, {init_cpu + repro_cpu:.1f} s CPU "
              f"({os.cpu_count()} cores); assay gate exit {gate.returncode}")
        timed(["git", "add", "-A"], work / "my-eval", env)
        timed(["git", "commit", "-qm", "first"], work / "my-eval", env)
        for part in ("queue", "retrieval"):  # without --example: the team's own (empty queue, own corpus)
            add, _ = timed(["assay", "add", part], work / "my-eval", env)
            add_cpu = CPU[0]
            again, _ = timed(["dvc", "repro", "-q"], work / "my-eval", env)
            again_cpu = CPU[0]
            _, gate = timed(["assay", "gate"], work / "my-eval", env, ok=(0, 1))
            print(f"assay add {part} {add:.1f} s wall / {add_cpu:.1f} s CPU + dvc repro {again:.1f} s wall / {again_cpu:.1f} s "
                  f"CPU; assay gate exit {gate.returncode}")
        if args.skip_demo:
            return
        demo = work / "demo"
        timed(["assay", "init", str(demo), "--parts", "core,judge,queue,retrieval,study", "--example", "demo"], work, env)
        denv = {**env, "ASSAY_EVIDENCE_ROOT": str(demo / "data/relevance/evidence.synthetic")}
        timed(["assay", "relevance", "intake"], demo, denv)
        cold, _ = timed(["dvc", "repro", "-q"], demo, denv)
        timed(["git", "add", "-A"], demo, env)
        timed(["git", "commit", "-qm", "demo"], demo, env)
        print(f"demo, every part: cold dvc repro {cold:.1f} s")
        for forged in (False, True):
            if forged:
                path = demo / "metrics/rag/candidate.json"
                data = json.loads(path.read_text(encoding="utf-8"))
                data["holdout"]["answer_correct"]["value"] = 1.0
                path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
                timed(["dvc", "commit", "-f", "-q"], demo, denv)
                timed(["git", "commit", "-qam", "forged"], demo, env)
            clone = work / f"ci-{int(forged)}"
            timed(["git", "clone", "-q", str(demo), str(clone)], work, env)
            verify, proc = timed(["assay", "verify"], clone, env, ok=(0, 2))
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(("DIFFERS", "verified"))), "")
            if forged:
                print(f"forged metric: assay verify exit {proc.returncode} in {verify:.1f} s: {line}")
                continue
            rerun, _ = timed(["dvc", "repro", "-q"], clone, env)
            print(f"CI job on the demo (no DVC cache): assay verify {verify:.1f} s (exit {proc.returncode}) + dvc repro "
                  f"{rerun:.1f} s = {verify + rerun:.1f} s, {(verify + rerun) / cold:.2f}x the cold dvc repro")
        shutil.rmtree(work / "home", ignore_errors=True)


if __name__ == "__main__":
    main()
