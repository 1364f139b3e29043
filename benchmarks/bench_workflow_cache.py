"""The generated workflow on a failing gate: what the caches save on the second run.

Run: .venv/bin/python benchmarks/bench_workflow_cache.py [--install real|borrowed]

How the job is emulated: the project is `assay init my-eval` (the minimal example, whose gate fails
by design: exit 1) made from this checkout's wheel in a fresh virtual environment, reproduced and
committed. Its `.github/workflows/assay.yml` is then run step by step in a fresh clone by
tests/github_actions.py (GitHub's step semantics: `if:` conditions, `$GITHUB_PATH`, the summary),
with `actions/cache/restore` and `actions/cache/save` emulated by tests/wheel_env.py:

- run 1, nothing cached: the venv restore misses, so the Install step runs; DVC's cache misses;
- run 2, both caches restored: the venv restore hits (run 1's `.venv`, linked in place) and DVC's
  cache is the project's `.dvc/cache` copied in, so Install is skipped.

The saving is run 1 minus run 2, wall and CPU (user + system of every child process, getrusage).

``--install real`` (default) runs the Install step as written: `pip install -r requirements.txt -c
constraints.txt` into `.venv`, from the wheel under `wheels/` and the package index (network, pip's
cache). ``--install borrowed`` replaces that step's command by installing the wheel alone with the
running environment's packages made importable (no download): quick, but then the venv cache saves
only that stand-in, so its figure is not the real saving; the output says which mode ran.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from github_actions import run_job  # noqa: E402 - tests/ is put on the path above
from wheel_env import build_wheel, emulate, sh, user_env, wheel_venv  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def borrowed_workflow(workflow: Path, out: Path) -> Path:
    """A copy of ``workflow`` whose Install step installs the wheel alone and borrows this environment's packages."""
    import sysconfig

    import yaml

    spec = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    step = next(s for s in spec["jobs"]["evaluate"]["steps"] if s.get("name") == "Install")
    purelib = sysconfig.get_paths()["purelib"]
    step["run"] = ("python -m venv .venv\n"
                   ".venv/bin/python -m pip install --quiet --no-deps --no-index wheels/*.whl\n"
                   f".venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])' "
                   f"| xargs -I{{}} sh -c 'echo {purelib} > {{}}/_bench.pth'\n")
    out.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return out


def job(workflow: Path, clone: Path, venv: Path | None, dvc_cache: Path | None, base_path: list[str], home: Path):
    """Run the workflow's job in ``clone``; its wall and CPU seconds and the steps' outcomes."""
    actions = emulate(venv, dvc_cache) if venv is not None else _miss_actions(dvc_cache)
    env = {"HOME": str(home), "LANG": "C.UTF-8", "DVC_NO_ANALYTICS": "1", "CI": "true"}
    start, cpu = time.perf_counter(), _cpu()
    result = run_job(workflow, "evaluate", clone, github={"event_name": "push", "base_ref": "", "event": {}},
                     base_path=base_path, actions=actions, env=env)
    return time.perf_counter() - start, _cpu() - cpu, result


def _miss_actions(dvc_cache: Path | None) -> dict:
    """The actions of a first run: every cache restore misses (the venv too), saves are accepted."""
    base = emulate(Path("/nonexistent"), dvc_cache)

    def restore(with_: dict, workspace: Path) -> dict:
        if with_["path"] == ".venv":
            return {"cache-hit": "false", "cache-primary-key": with_["key"]}
        return base["actions/cache/restore"](with_, workspace)

    return {**base, "actions/cache/restore": restore}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--install", choices=["real", "borrowed"], default="real",
                        help="run the Install step as written (pip, network) or a no-download stand-in")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        wheel = build_wheel(work / "wheel-src", work / "dist")
        venv = wheel_venv(wheel, work / "venv")
        home = work / "home"
        env = user_env(venv, home)
        root = work / "my-eval"
        sh(["assay", "init", str(root)], work, env)
        sh(["dvc", "repro", "-q"], root, env)
        gate = sh(["assay", "gate"], root, env, check=False).returncode
        sh(["git", "add", "-A"], root, env)
        sh(["git", "commit", "-qm", "first evaluation"], root, env)
        workflow = root / ".github/workflows/assay.yml"
        if args.install == "borrowed":
            workflow = borrowed_workflow(workflow, work / "assay-borrowed.yml")
        base_path = [str(Path(sys.executable).parent), "/usr/bin", "/bin"]  # the runner's python (setup-python)
        runs = []
        for number in (1, 2):
            clone = work / f"ci-{number}"
            sh(["git", "clone", "-q", str(root), str(clone)], work, env)
            cached_venv = work / "ci-1" / ".venv" if number == 2 else None
            cache = root / ".dvc/cache" if number == 2 else None
            wall, cpu, result = job(workflow, clone, cached_venv, cache, base_path, home)
            ran = [s.name for s in result.steps if s.outcome != "skipped"]
            runs.append((wall, cpu))
            print(f"run {number} ({'both caches restored' if number == 2 else 'nothing cached'}): job exit "
                  f"{result.exit_code} (the gate said {gate}), {wall:.1f} s wall, {cpu:.1f} s CPU; steps run: {', '.join(ran)}")
        (w1, c1), (w2, c2) = runs
        print(f"saved by the caches on the second run ({args.install} install): {w1 - w2:.1f} s wall, {c1 - c2:.1f} s CPU "
              f"({(w1 - w2) / w1:.0%} of the first run's wall time)")
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
