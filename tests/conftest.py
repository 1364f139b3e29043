"""Shared fixtures: small valid inputs written to a temporary folder."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import norm

ROOT = Path(__file__).resolve().parents[1]
Z95 = float(norm.ppf(0.975))


def hand_wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson (1927) by hand, the oracle for proportion intervals:
    (p + z^2/2n -/+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)."""
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return ((centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n))


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def case(id: str, **over) -> dict:
    """A valid answer case; override any field."""
    row = {"id": id, "question": f"How long is the trial for plan {id}?", "task": "lookup", "set": "golden",
           "lang": "en", "expect": "answer", "doc_ids": ["doc-a"], "facts": ["14 days"], "why": "checks the trial length"}
    row.update(over)
    return row


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "doc-a.md").write_text("---\ntitle: Trial\nlang: en\nupdated: 2026-01-01\n---\nThe trial lasts 14 days.\n", encoding="utf-8")
    (folder / "doc-b.md").write_text("---\ntitle: Old trial\nlang: en\nupdated: 2025-01-01\nsuperseded_by: doc-a\n---\n"
                                     "The trial lasted 7 days.\n", encoding="utf-8")
    return folder


@pytest.fixture
def committed_repo(tmp_path: Path) -> Path:
    """What the repository commits for the gate, copied to ``tmp_path / "repo"``: params.yaml, the data
    inputs (not data/derived/, whose split and run tables DVC keeps out of git), metrics/ and
    reports/provenance/."""
    import shutil

    dest = tmp_path / "repo"
    shutil.copytree(ROOT / "data", dest / "data", ignore=shutil.ignore_patterns("derived"))
    shutil.copytree(ROOT / "metrics", dest / "metrics")
    shutil.copytree(ROOT / "reports" / "provenance", dest / "reports" / "provenance")
    shutil.copy(ROOT / "params.yaml", dest / "params.yaml")
    return dest


# ---- end-to-end helpers: the real dvc CLI in a temporary git repository ----
import os
import shutil
import subprocess
import sys
from collections.abc import Callable

from filelock import FileLock

BIN = Path(sys.executable).parent


def project_files() -> list[str]:
    """Files a fresh clone would have (tracked plus untracked-but-not-ignored), minus outputs DVC makes."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.split("\n")
    return [f for f in out if f and (ROOT / f).is_file()]


def run(cmd: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "DVC_NO_ANALYTICS": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    if "--skip-dvc-status" in cmd:  # refused under CI=true (tests/test_gate_trust.py); these tests check the rest
        env.pop("CI", None)
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def changed_stages(root: Path) -> set[str]:
    """Stages `dvc status` lists at ``root`` (no stage is always changed: a clean pipeline lists none)."""
    return set(json.loads(run([str(BIN / "dvc"), "status", "--json"], root).stdout or "{}"))


def make_clone(dest: Path) -> Path:
    """Copy the project's files into ``dest`` and commit them in a new git repository."""
    for f in project_files():
        target = dest / f
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, target)
    run(["git", "init", "-q"], dest)
    run(["git", "add", "-A"], dest)
    run(["git", "commit", "-qm", "clone"], dest)
    return dest


def built_once(tmp_path_factory: pytest.TempPathFactory, worker_id: str, name: str,
               build: Callable[[Path], None]) -> Path:
    """A folder ``build(folder)`` filled once per test session, shared by every pytest-xdist worker.

    Under xdist the first worker that asks builds it under the session's shared temporary folder,
    holding a file lock; the others wait for it and reuse it (the pattern pytest-xdist documents for
    session fixtures). A failed build is recorded, so a waiting worker fails with the same message
    rather than building again. Without xdist (``worker_id == "master"``) it is built in this
    session's own temporary folder. Treat the folder as read-only: copy it before changing anything.
    """
    if worker_id == "master":
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent
    folder, done, failed = shared / name, shared / f"{name}.done", shared / f"{name}.failed"
    with FileLock(str(shared / f"{name}.lock")):
        if failed.exists():
            raise AssertionError(f"building {name} failed in another worker:\n{failed.read_text(encoding='utf-8')}")
        if not done.exists():
            folder.mkdir()
            try:
                build(folder)
            except BaseException as error:
                failed.write_text(str(error), encoding="utf-8")
                raise
            done.touch()
    return folder


def reproduce_demo(dest: Path) -> None:
    """A clone of this repository in ``dest`` on which `dvc repro -f` has run once.

    Forced, so every stage is recomputed from the committed inputs and
    ``test_committed_outputs_match_a_fresh_run`` compares every committed output, not only those of
    the stages whose tables a fresh clone lacks.
    """
    make_clone(dest)
    run([str(BIN / "dvc"), "repro", "-f", "-q"], dest)


@pytest.fixture(scope="session")
def reproduced(tmp_path_factory, worker_id) -> Path:
    """The whole demo, cloned and reproduced once per session (shared; copy it before changing anything).

    About 100 CPU-seconds; only tests about the demo's own numbers use it: a test that needs a
    reproduced project with every part uses ``small_project``.
    """
    return built_once(tmp_path_factory, worker_id, "demo", reproduce_demo)


#: every part `assay init` offers; the small project has them all
PARTS = "core,judge,queue,retrieval,study"


def reproduce_small_project(dest: Path) -> None:
    """`assay init --parts core,judge,queue,retrieval,study --example minimal` in ``dest``, committed,
    reproduced with `dvc repro` and committed again (so `git status` and `dvc status` are clean).

    The minimal example: 30 cases, 7 documents, 36 labelled pairs, the example's signed review
    snapshots and its synthetic study evidence; every seed comes from its params.yaml.
    """
    assay, dvc = str(BIN / "assay"), str(BIN / "dvc")
    run([assay, "init", str(dest), "--parts", PARTS, "--example", "minimal"], dest.parent)
    run(["git", "add", "-A"], dest)
    run(["git", "commit", "-qm", "assay init"], dest)
    run([dvc, "repro", "-q"], dest)
    run(["git", "add", "-A"], dest)
    run(["git", "commit", "-qm", "first evaluation"], dest)


@pytest.fixture(scope="session")
def small_project(tmp_path_factory, worker_id) -> Path:
    """A project `assay init` made with every part, reproduced once per session (shared; copy it with
    ``small_copy`` before changing anything)."""
    return built_once(tmp_path_factory, worker_id, "small", reproduce_small_project)


@pytest.fixture
def small_copy(small_project: Path, tmp_path: Path) -> Path:
    """A private copy of the reproduced small project (work tree, git history and DVC cache), safe to edit."""
    return private_copy(small_project, tmp_path / "small")


def private_copy(src: Path, dest: Path) -> Path:
    """Copy a clone (work tree, git history and DVC cache) to ``dest``; the copy is safe to edit."""
    shutil.copytree(src, dest, symlinks=True)
    return dest


@pytest.fixture
def repro_copy(reproduced: Path, tmp_path: Path) -> Path:
    """A private copy of the reproduced clone (with its DVC cache), safe to edit."""
    return private_copy(reproduced, tmp_path / "copy")


TINY_FIXTURE = ROOT / "tests" / "fixtures" / "tiny_corpus"


@pytest.fixture(scope="session")
def fixture_corpus():
    """tests/fixtures/tiny_corpus's documents, loaded once."""
    from assay.data.corpus import load_corpus

    return load_corpus(TINY_FIXTURE / "corpus")


@pytest.fixture(scope="session")
def fixture_cases(fixture_corpus):
    """tests/fixtures/tiny_corpus's six cases (t1-t6), loaded once."""
    from assay.data.cases import load_cases

    return load_cases(TINY_FIXTURE / "cases.jsonl", fixture_corpus)


def team_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> Path:
    """Write a team's system module ``name`` (``text``) into ``tmp_path``, make it importable, work there, log its
    calls to ``calls.log`` (``PLUGIN_LOG``) and run outside replay; pop the module from ``sys.modules`` after
    the test with :func:`forget_module`."""
    from assay.rag.reply_store import REPLAY_ENV

    (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PLUGIN_LOG", str(tmp_path / "calls.log"))
    monkeypatch.delenv(REPLAY_ENV, raising=False)
    return tmp_path


def logged_calls(folder: Path) -> list[str]:
    """The calls a team module wrote to ``folder / "calls.log"``, one word each (none when it was never called)."""
    log = folder / "calls.log"
    return log.read_text().split() if log.exists() else []
