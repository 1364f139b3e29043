"""What DVC costs around the stages: the generated pipeline against the hand-kept one (56d6527).

Run: .venv/bin/python benchmarks/bench_dvc.py [--baseline-rev 56d6527] [--repeats 3] [--no-op-only]

Measures CPU seconds (user + system of the child processes, which the machine's load moves less
than wall time) for:

1. a no-op ``dvc repro`` in this checkout and, side by side, in a worktree of ``--baseline-rev``
   whose DVC-cached outputs are checked out from this checkout's cache (the tables are the same
   bytes), so both are truly up to date;
2. a cold ``dvc repro -f`` of this checkout against running the same stage scripts directly, one
   after another in the order dvc.lock lists them, in one run (minutes of CPU: ``--no-op-only`` skips it).

The no-op figures need this checkout up to date (``dvc status`` clean): a stale stage would run.

The baseline runs in the environment its own constraints.txt pins: a package this checkout pins and
the baseline's does not (today ruamel.yaml.clib, the C YAML parser DVC picks up when it is installed)
is hidden from the baseline's processes (``--same-env`` gives the baseline this environment instead;
both figures are worth knowing: the first is what a user of the old commit paid, the second how much
of the saving is the pipeline's shape rather than the parser).

Also prints the line counts of dvc.yaml plus dvc.lock in both. Writes nothing to the repository.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def env() -> dict:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "DVC_NO_ANALYTICS": "1",
            "ASSAY_EVIDENCE_ROOT": str(ROOT / "data/relevance/evidence.synthetic")}


def cpu(cmd: list[str], cwd: Path, extra: dict | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one command and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env={**env(), **(extra or {})}, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


#: import names of pinned packages DVC uses when present, by distribution name
OPTIONAL_SPEEDUPS = {"ruamel.yaml.clib": "_ruamel_yaml"}


def pinned(rev: str) -> set[str]:
    """Distribution names the constraints.txt of ``rev`` pins (lower-case)."""
    text = subprocess.run(["git", "show", f"{rev}:constraints.txt"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout
    return {line.split("==")[0].strip().lower() for line in text.splitlines() if "==" in line}


def hiding(modules: list[str], folder: Path) -> dict:
    """Environment that makes ``modules`` unimportable (a sitecustomize on PYTHONPATH), or {} for none."""
    if not modules:
        return {}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text("import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules))
    return {"PYTHONPATH": str(folder)}


def lines(root: Path) -> int:
    return sum(len((root / f).read_text(encoding="utf-8").splitlines()) for f in ("dvc.yaml", "dvc.lock"))


def stage_commands(root: Path) -> list[str]:
    lock = yaml.safe_load((root / "dvc.lock").read_text(encoding="utf-8"))["stages"]
    return [stage["cmd"] for stage in lock.values()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-rev", default="56d6527", help="the hand-kept pipeline to compare with")
    parser.add_argument("--repeats", type=int, default=3, help="no-op runs of each, the median is shown")
    parser.add_argument("--no-op-only", action="store_true", help="measure the no-op repro only, not the cold one")
    parser.add_argument("--same-env", action="store_true",
                        help="run the baseline in this checkout's environment, not the one its constraints.txt pins")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(old), args.baseline_rev], cwd=ROOT, check=True)
        try:
            shutil.copytree(ROOT / ".dvc/cache", old / ".dvc/cache", symlinks=True)
            subprocess.run([str(BIN / "dvc"), "checkout", "-q"], cwd=old, env=env(), check=False, capture_output=True)
            new_lines, old_lines = lines(ROOT), lines(old)
            print(f"dvc.yaml + dvc.lock lines: {new_lines} now, {old_lines} at {args.baseline_rev} "
                  f"({new_lines / old_lines:.0%})")
            hidden = [] if args.same_env else [m for d, m in OPTIONAL_SPEEDUPS.items() if d not in pinned(args.baseline_rev)]
            extra = {"now": {}, args.baseline_rev: hiding(hidden, Path(tmp) / "hide")}
            if hidden:
                print(f"{args.baseline_rev} runs without {', '.join(hidden)} (not in its constraints.txt)")
            medians = {}
            for name, where in (("now", ROOT), (args.baseline_rev, old)):
                runs = sorted(cpu([str(BIN / "dvc"), "repro"], where, extra[name]) for _ in range(args.repeats))
                medians[name] = runs[len(runs) // 2][0]
                print(f"no-op dvc repro, {name}: {medians[name]:.2f} CPU-s "
                      f"(wall {runs[len(runs) // 2][1]:.2f} s, median of {args.repeats})")
            print(f"no-op ratio: {medians['now'] / medians[args.baseline_rev]:.0%} of {args.baseline_rev}")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False)
        if args.no_op_only:
            return
        work = Path(tmp) / "work"
        files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
        for f in files:
            (work / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, work / f)
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        dvc_cpu, dvc_wall = cpu([str(BIN / "dvc"), "repro", "-f", "-q"], work)
        direct_cpu = direct_wall = 0.0
        for command in stage_commands(work):
            c, w = cpu(["bash", "-c", command], work)
            direct_cpu, direct_wall = direct_cpu + c, direct_wall + w
        print(f"cold dvc repro -f: {dvc_cpu:.1f} CPU-s (wall {dvc_wall:.1f} s); the same stage scripts run directly: "
              f"{direct_cpu:.1f} CPU-s (wall {direct_wall:.1f} s); ratio {dvc_cpu / direct_cpu:.2f}x")


if __name__ == "__main__":
    main()
