"""assay as a user installs it: the wheel holds what assay needs at run time, and a project made by
`assay init` from that wheel, in a fresh virtual environment outside this repository, runs, decides,
diffs, passes its own CI workflow and fails it on a forged metric, and grows by `assay add`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
import tomllib

from conftest import ROOT
from github_actions import run_job

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_package_list_is_every_package_under_src_plus_the_stages_and_the_demo():
    found = {p.parent.relative_to(ROOT / "src").as_posix().replace("/", ".") for p in (ROOT / "src").rglob("__init__.py")}
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    assert listed == found | {"assay.stages", "assay._demo"}
    assert PYPROJECT["project"]["name"] == "assay-eval"  # `assay` on PyPI is another project


def sh(cmd: list[str], cwd: Path, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel `pip wheel` builds from a copy of the files git would hold (no build/ or egg-info left here)."""
    src = tmp_path_factory.mktemp("wheel-src")
    for name in ("pyproject.toml", "README.md", "src", "stages", "data"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    sh([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(src)], src, dict(os.environ))
    (built,) = out.glob("assay_eval-*.whl")
    return built


def test_the_wheel_holds_the_runtime_files_and_nothing_derived(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("assay/stages/gate.py", "assay/pipeline/templates/pipeline.yaml", "assay/project/templates/params.yaml",
                   "assay/project/templates/workflow.yml", "assay/project/examples/minimal/data/cases.jsonl",
                   "assay/project/examples/minimal/systems/my_rag.py", "assay/_demo/plan.yaml",
                   "assay/_demo/relevance/evidence.synthetic/opening.json", "assay/queue/static/app.js",
                   "assay/_demo/prompts/pairwise_v2.md"):
        assert needed in names, needed
    assert not [n for n in names if "/derived/" in n or "__pycache__" in n or n.endswith("holdout_ledger.jsonl")]
    assert wheel.stat().st_size < 10 * 2**20


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel installed (assay comes from the wheel only).

    Its third-party dependencies are this test environment's, made importable by a .pth file so the
    suite does not download them again; the editable install of this repository is not (its .pth
    hook lives in this environment's site-packages and is not processed from another one).
    """
    env_dir = tmp_path_factory.mktemp("user") / "venv"
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
    return {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "DVC_NO_ANALYTICS": "1",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def test_assay_runs_from_the_wheel_alone(venv, tmp_path):
    env = user_env(venv, tmp_path)
    where = sh(["python", "-c", "import assay, assay.stages.gate; print(assay.__file__)"], tmp_path, env).stdout
    assert where.startswith(str(venv)) and str(ROOT) not in where
    assert "init" in sh(["assay", "--help"], tmp_path, env).stdout


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


@pytest.mark.e2e
def test_a_user_project_from_the_wheel_runs_diffs_passes_its_ci_and_fails_it_when_forged(wheel, venv, tmp_path):
    """From the wheel in a fresh venv: `assay --version`, the pin of the wheel (copied into wheels/), the
    constraints file, `main` as the branch, the workflow's job on the first commit, then a forged metric."""
    env = user_env(venv, tmp_path / "home")
    version = wheel.name.split("-")[1]
    assert sh(["assay", "--version"], tmp_path, env).stdout == f"assay {version}\n"
    root = tmp_path / "my-eval"
    said = sh(["assay", "init", str(root)], tmp_path, env).stdout
    assert "uses core, judge" in said and "ran      git init -b main" in said and "ran      dvc init" in said
    # installed from a local wheel: the wheel is copied into the project and pinned through --find-links
    assert f"note:    assay was installed from the local file {wheel.name}: it is copied to wheels/{wheel.name}" in said
    assert (root / "wheels" / wheel.name).read_bytes() == wheel.read_bytes()
    assert (root / "requirements.txt").read_text(encoding="utf-8").endswith(
        f"--find-links wheels\n-c constraints.txt\nassay-eval=={version}\n")
    dry = sh(["python", "-m", "pip", "install", "--dry-run", "--no-index", "--no-deps", "--ignore-installed", "-r",
              "requirements.txt"], root, env)
    assert f"Would install assay-eval-{version}" in dry.stdout  # the pin resolves from wheels/, no index needed
    pinned = sh(["python", "-c", "import dvc, pydantic, importlib.metadata as m; print(m.version('dvc'), m.version('pydantic'))"],
                root, env).stdout.split()
    constraints = (root / "constraints.txt").read_text(encoding="utf-8")
    assert f"\ndvc=={pinned[0]}\n" in constraints and f"\npydantic=={pinned[1]}\n" in constraints
    assert "\nassay-eval==" not in constraints
    assert sh(["git", "symbolic-ref", "--short", "HEAD"], root, env).stdout == "main\n"
    sh(["dvc", "repro", "-q"], root, env)
    gate = sh(["assay", "gate"], root, env, check=False)
    assert gate.returncode in (0, 1), gate.stdout + gate.stderr
    sh(["git", "add", "-A"], root, env)
    sh(["git", "commit", "-qm", "first evaluation"], root, env)

    # the workflow assay init wrote, run step by step on the first commit (no HEAD~1): it recomputes before
    # the gate decides, the metrics diff says there is no base and passes, and DVC's cache is saved
    workflow = root / ".github/workflows/assay.yml"
    clone = tmp_path / "ci"
    sh(["git", "clone", "-q", str(root), str(clone)], tmp_path, env)
    ci_env = {"HOME": str(tmp_path / "home"), "LANG": "C.UTF-8", "DVC_NO_ANALYTICS": "1", "CI": "true"}  # as GitHub sets
    base_path = [str(venv / "bin"), "/usr/bin", "/bin"]
    saved: list[str] = []
    job = run_job(workflow, "evaluate", clone, github={"event_name": "push", "base_ref": "", "event": {}}, base_path=base_path,
                  actions=emulate(venv, None, saved), env=ci_env)
    log = "\n".join(f"{s.name}: {s.outcome} {s.exit_code}\n{s.stdout[-1500:]}{s.stderr[-1500:]}" for s in job.steps)
    outcomes = {s.name: s.outcome for s in job.steps}
    ci = next(s for s in job.steps if s.name == "Recompute every stage and decide")
    assert ci.exit_code == gate.returncode == job.exit_code, log  # the gate's verdict, on the recomputed outputs
    assert "Stored judge replies re-asked" not in ci.stdout  # no judge key among the secrets: no spot check
    assert f"## assay ci: exit {gate.returncode}" in job.summary and "### Release gate" in job.summary
    assert outcomes["Metrics diff"] == "success", log
    assert "## Metrics: no base commit to diff against (HEAD~1 does not exist: the first commit)" in job.summary
    assert outcomes["Install"] == "skipped" and outcomes["Save the virtual environment"] == "skipped"  # a cache hit
    # `assay ci` recomputes in a scratch copy and needs no DVC cache; once it has verified the committed outputs the
    # steps that restore, fill and save it run whatever the gate says (a miss here: `dvc repro` fills it)
    assert outcomes["Reproduce the pipeline"] == "success" and saved == [".dvc/cache"], log

    params = root / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace("min_score: 0.2", "min_score: 0.4"), encoding="utf-8")
    sh(["dvc", "repro", "-q"], root, env)
    sh(["git", "add", "-A"], root, env)
    sh(["git", "commit", "-qm", "baseline: min_score 0.4"], root, env)
    diff = sh(["dvc", "metrics", "diff", "HEAD~1", "--md"], root, env).stdout
    assert "metrics/rag/baseline.json" in diff
    assert sh(["git", "status", "--porcelain"], root, env).stdout == ""

    # a forged metric, committed with `dvc commit -f`, and DVC's cache restored: the job fails, naming the file
    forged = root / "metrics/rag/mine.json"
    forged.write_text(_forge(forged.read_text(encoding="utf-8")), encoding="utf-8")
    sh(["dvc", "commit", "-f", "-q"], root, env)
    sh(["git", "add", "-A"], root, env)
    sh(["git", "commit", "-qm", "forged"], root, env)
    clone2 = tmp_path / "ci2"
    sh(["git", "clone", "-q", str(root), str(clone2)], tmp_path, env)
    job = run_job(workflow, "evaluate", clone2, github={"event_name": "push", "base_ref": "", "event": {}}, base_path=base_path,
                  actions=emulate(venv, root / ".dvc/cache"), env=ci_env)
    ci = next(s for s in job.steps if s.name == "Recompute every stage and decide")
    assert ci.outcome == "failure" and job.exit_code == 2, ci.stdout + ci.stderr
    assert "metrics/rag/mine.json: key 'holdout." in ci.stdout
    assert "metrics/rag/mine.json" in job.summary and "### Release gate" not in job.summary  # no verdict on forged outputs
    outcomes = {s.name: s.outcome for s in job.steps}
    assert outcomes["Restore DVC's cache"] == outcomes["Reproduce the pipeline"] == "skipped"  # nothing of it runs

    # a part added afterwards
    sh(["git", "reset", "-q", "--hard", "HEAD~1"], root, env)
    # with the example's signed snapshots: without --example the queue part starts with none, and dvc repro then
    # stops at the gate (tests/test_project.py keeps that gap as a strict xfail)
    said = sh(["assay", "add", "queue", "--example", "minimal"], root, env).stdout
    assert "uses core, judge, queue" in said
    sh(["dvc", "repro", "-q"], root, env)
    assert sh(["assay", "gate"], root, env, check=False).returncode in (0, 1)


def _forge(text: str) -> str:
    """Every holdout pass rate of the candidate set to 1.0, as the red team did."""
    import json

    data = json.loads(text)

    def lift(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("value", "ci_low", "ci_high") and isinstance(value, (int, float)):
                    node[key] = 1.0
                else:
                    lift(value)

    lift(data["holdout"])
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


@pytest.mark.slow
@pytest.mark.e2e
def test_the_demo_with_every_part_from_the_wheel_reproduces_verifies_and_decides(venv, tmp_path):
    """`assay init --example demo` with every part: the whole demo runs from the wheel, the study is
    reported on its own, and `assay verify` recomputes every committed file (make test-all)."""
    env = user_env(venv, tmp_path / "home")
    root = tmp_path / "nodinet"
    sh(["assay", "init", str(root), "--parts", "core,judge,queue,retrieval,study", "--example", "demo"], tmp_path, env)
    denv = {**env, "ASSAY_EVIDENCE_ROOT": str(root / "data/relevance/evidence.synthetic")}
    sh(["assay", "study", "intake"], root, denv)
    sh(["dvc", "repro", "-q"], root, denv)
    assert sh(["assay", "gate"], root, env, check=False).returncode == 1  # the demo fails by design
    assert sh(["assay", "study", "verdict"], root, denv, check=False).returncode == 1  # synthetic evidence
    sh(["git", "add", "-A"], root, env)
    sh(["git", "commit", "-qm", "demo"], root, env)
    verified = sh(["assay", "verify"], root, env)
    assert "verified:" in verified.stdout
    sh(["dvc", "repro", "-q"], root, denv)
    assert sh(["git", "status", "--porcelain"], root, env).stdout == ""
