"""assay as a user installs it, for tests and benchmarks: the wheel built from the files git holds, a fresh
virtual environment with only that wheel (its dependencies borrowed from the running environment through a
.pth file, no download), a user's environment variables, and the actions of the generated workflow emulated
for tests/github_actions.py (a venv cache hit, DVC's cache restored or not, each save recorded)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sh(cmd: list[str], cwd: Path, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def build_wheel(src: Path, out: Path) -> Path:
    """The wheel `pip wheel` builds from a copy (in ``src``) of the files git would hold (no build/ or egg-info
    left in the repository), written to ``out``; both folders are made when missing."""
    src.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("pyproject.toml", "README.md", "src", "stages", "data"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(ROOT / name, src / name)
    sh([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(src)], src, dict(os.environ))
    (built,) = out.glob("assay_eval-*.whl")
    return built


def wheel_venv(wheel: Path, env_dir: Path) -> Path:
    """A fresh virtual environment at ``env_dir`` with ``wheel`` installed (assay comes from the wheel only).

    Its third-party dependencies are the running environment's, made importable by a .pth file so
    nothing is downloaded again; the editable install of this repository is not (its .pth hook lives
    in the running environment's site-packages and is not processed from another one). ``bin/dvc``
    runs DVC under the new environment's interpreter.
    """
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(env_dir)], check=True)
    py = env_dir / "bin" / "python"
    sh([str(py), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], env_dir, dict(os.environ))
    site = Path(sh([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env_dir,
                   dict(os.environ)).stdout.strip())
    (site / "_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    (env_dir / "bin" / "dvc").write_text(f"#!{py}\nimport sys\nfrom dvc.cli import main\nsys.exit(main())\n",
                                         encoding="utf-8")
    (env_dir / "bin" / "dvc").chmod(0o755)
    return env_dir


def user_env(venv: Path, home: Path) -> dict:
    """A user's environment: only ``venv``'s bin and the system's on PATH, a home of its own, git's identity."""
    return {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "DVC_NO_ANALYTICS": "1",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def emulate(venv: Path, dvc_cache: Path | None, saved: list[str] | None = None):
    """The workflow's actions: a venv cache hit (this venv), DVC's cache restored from ``dvc_cache`` (a miss
    when ``None``); every save is recorded in ``saved`` by path."""
    def checkout(with_: dict, workspace: Path) -> dict:
        assert with_.get("fetch-depth") == 0
        return {}

    def setup_python(with_: dict, workspace: Path) -> dict:
        assert str(with_["python-version"]) == "3.11"
        return {}

    def restore(with_: dict, workspace: Path) -> dict:
        key = {"cache-primary-key": with_["key"]}
        if with_["path"] == ".venv":
            assert "hashFiles('requirements.txt', 'constraints.txt')" in with_["key"]
            (workspace / ".venv").symlink_to(venv, target_is_directory=True)
            return {"cache-hit": "true", **key}
        if dvc_cache is not None:
            shutil.copytree(dvc_cache, workspace / ".dvc/cache", symlinks=True)
            return {"cache-hit": "true", **key}
        return {"cache-hit": "false", **key}

    def save(with_: dict, workspace: Path) -> dict:
        assert (workspace / with_["path"]).exists() and with_["key"].startswith("${{ steps.")
        (saved if saved is not None else []).append(with_["path"])
        return {}

    return {"actions/checkout": checkout, "actions/setup-python": setup_python, "actions/cache/restore": restore,
            "actions/cache/save": save}
