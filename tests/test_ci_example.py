"""examples/ci/assay.yml run step by step in a fresh clone with GitHub's step semantics (tests/github_actions.py).

The job must recompute every stage from the committed inputs and decide on the recomputed outputs
(`assay ci --base origin/main`), write its report (the gate's table) and the metrics diff to the job
summary and fail with the gate's exit code (1 on the demo data, whose gate fails by design). A forged metric failing the same workflow is shown on a
project made by `assay init` in tests/test_packaging.py.
"""

import os
import shutil
import sys
from pathlib import Path

import pytest

from conftest import BIN, ROOT, private_copy, run
from github_actions import evaluate, run_job

WORKFLOW = ROOT / "examples/ci/assay.yml"
VENV = Path(sys.prefix)  # the test's own environment, which has assay installed


def emulate_checkout(with_: dict, workspace: Path) -> dict:
    assert with_.get("fetch-depth") == 0  # the diff needs the base commit: a shallow clone would not have it
    return {}


def emulate_setup_python(with_: dict, workspace: Path, tools: Path) -> dict:
    """setup-python puts a bare Python of the asked version first on PATH (here: the test's base interpreter)."""
    assert str(with_["python-version"]) == f"{sys.version_info.major}.{sys.version_info.minor}"
    tools.mkdir(exist_ok=True)
    for name in ("python", "python3"):
        (tools / name).unlink(missing_ok=True)
        (tools / name).symlink_to(getattr(sys, "_base_executable", sys.executable))
    return {}


def emulate_cache_hit(with_: dict, workspace: Path, dvc_cache: Path) -> dict:
    """A cache hit restores .venv (here: the test's environment; a real install would take minutes), or
    .dvc/cache (here: the cache of the session's reproduced clone, as the main branch's job would have saved it)."""
    if with_["path"] == ".dvc/cache":
        assert "hashFiles('dvc.lock')" in with_["key"] and with_["restore-keys"]
        shutil.copytree(dvc_cache, workspace / ".dvc/cache", symlinks=True)
        return {"cache-hit": "true", "cache-primary-key": with_["key"]}
    assert with_["path"] == ".venv" and "hashFiles('pyproject.toml', 'constraints.txt')" in with_["key"]
    (workspace / ".venv").symlink_to(VENV, target_is_directory=True)
    return {"cache-hit": "true", "cache-primary-key": with_["key"]}


@pytest.fixture
def pull_request(reproduced, tmp_path):
    """A clone whose origin/main is the project as committed, and a PR commit that lowers a candidate setting
    and commits the outputs `dvc repro` gives for it, as a contributor does."""
    clone = private_copy(reproduced, tmp_path / "work")
    run(["git", "update-ref", "refs/remotes/origin/main", "HEAD"], clone)
    params = clone / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace("min_score: 0.3", "min_score: 0.25"), encoding="utf-8")
    run([str(BIN / "dvc"), "repro", "-q"], clone)
    run(["git", "add", "-A"], clone)
    run(["git", "commit", "-qm", "candidate: min_score 0.25"], clone)
    shutil.rmtree(clone / ".dvc" / "cache")  # a fresh checkout has no cache; the job restores it
    return clone


@pytest.mark.slow  # the whole demo twice (about 3 min); the same workflow template runs in the default suite on a
@pytest.mark.e2e   # project made by `assay init` (tests/test_packaging.py), including a forged metric
def test_the_example_workflow_reaches_the_gate_and_fails_with_its_exit_code(pull_request, reproduced, tmp_path):
    tools = tmp_path / "hostedtoolcache"
    actions = {"actions/checkout": emulate_checkout,
               "actions/cache/restore": lambda w, ws: emulate_cache_hit(w, ws, reproduced / ".dvc/cache"),
               "actions/cache/save": lambda w, ws: {},  # both caches were hits: the save steps are skipped
               "actions/setup-python": lambda w, ws: emulate_setup_python(w, ws, tools)}
    # a minimal PATH: the system tools (bash, git, coreutils) and setup-python's folder, nothing of the test's venv
    base_path = [str(tools), "/usr/local/bin", "/usr/bin", "/bin"]
    for tool in ("dvc", "assay"):
        assert shutil.which(tool, path=os.pathsep.join(base_path[1:])) is None, f"{tool} must come from the job's venv"
    env = {"HOME": str(tmp_path / "home"), "DVC_NO_ANALYTICS": "1", "LANG": "C.UTF-8"}
    job = run_job(WORKFLOW, "evaluate", pull_request, github={"event_name": "pull_request", "base_ref": "main", "event": {}},
                  base_path=base_path, actions=actions, env=env)
    outcomes = {s.name: s.outcome for s in job.steps}
    log = "\n".join(f"{s.name}: {s.outcome} {s.exit_code}\n{s.stdout[-2000:]}{s.stderr[-2000:]}" for s in job.steps)
    assert outcomes["Install"] == "skipped"  # the cache hit
    ci = next(s for s in job.steps if s.name == "Recompute every stage and decide")
    # the committed outputs matched their recomputation and the gate, run on the recomputed outputs, fails with 1 on
    # the demo data (not 2: nothing stale or forged); the job fails with that code
    assert "Verified: " in ci.stdout and ci.exit_code == job.exit_code == 1, log
    assert "POLICY" not in ci.stdout and "### Policy changes" not in job.summary  # the PR changed no policy
    assert outcomes["Metrics diff"] == "success", log  # it runs when the gate fails too
    # the gate failed, yet `assay ci` verified the outputs, so the DVC steps ran; both caches were exact hits, so
    # neither is saved again
    assert outcomes["Restore DVC's cache"] == outcomes["Reproduce the pipeline"] == "success", log
    assert outcomes["Save the virtual environment"] == outcomes["Save DVC's cache"] == "skipped", log
    assert "## Metrics changed against origin/main" in job.summary
    assert "metrics/rag/candidate.json" in job.summary  # the PR's change shows in the diff
    assert "## assay ci: exit 1 (a pre-registered threshold is unmet)" in job.summary
    assert "dvc status" in job.summary and "answer_correct (candidate, holdout)" in job.summary  # the gate's table
    assert job.summary.index("## assay ci") < job.summary.index("## Metrics changed")


@pytest.mark.parametrize("expression, failed, value", [
    ("success()", False, True), ("failure()", False, False), ("always()", True, True),
    ("steps.venv.outputs.cache-hit != 'true'", False, False), ("github.event_name == 'pull_request'", False, True),
    ("failure() && steps.repro.outcome == 'failure'", True, True), ("!(github.base_ref == 'main')", False, False),
    ("github.missing == ''", False, True),
])
def test_the_expression_emulator(expression, failed, value):
    context = {"github": {"event_name": "pull_request", "base_ref": "main"},
               "steps": {"venv": {"outputs": {"cache-hit": "true"}}, "repro": {"outcome": "failure"}}}
    assert evaluate(expression, context, failed) == value


def test_an_unknown_expression_is_refused():
    with pytest.raises(ValueError, match="not emulated"):
        evaluate("contains(github.ref, 'x')", {}, False)


@pytest.mark.parametrize("fake, code, shown", [
    # a refusal: the report on stdout reaches the summary whole
    ("echo 'assay ci: checking ...' >&2\nprintf '## assay ci: exit 2\\n\\nREFUSED a stage fails\\n'\nexit 2\n", 2,
     "REFUSED a stage fails"),
    # an error inside assay: its one line on stderr reaches the summary too (issue 30: it used to show an empty block)
    ("echo 'assay ci: internal error: KeyError x (assay/release/checks.py:1)' >&2\nexit 3\n", 3,
     "assay ci: internal error: KeyError x (assay/release/checks.py:1)"),
])
def test_the_job_summary_shows_what_assay_ci_said(tmp_path, fake, code, shown):
    import subprocess

    import yaml

    steps = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["evaluate"]["steps"]
    script = next(s["run"] for s in steps if s.get("id") == "ci")
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "assay").write_text(f"#!/bin/sh\n{fake}")
    (tools / "assay").chmod(0o755)
    summary, github_env = tmp_path / "summary.md", tmp_path / "github_env"
    path = os.pathsep.join([str(tools), str(Path(sys.executable).parent), os.environ["PATH"]])
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=tmp_path,
                          env={"PATH": path, "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_ENV": str(github_env)},
                          capture_output=True, text=True)
    assert proc.returncode == code, proc.stderr
    assert shown in summary.read_text(encoding="utf-8")
    assert github_env.read_text(encoding="utf-8") == f"ASSAY_CI_EXIT={code}\n"  # what the DVC steps' conditions read


@pytest.mark.parametrize("code, dvc_runs", [(0, True), (1, True), (2, False), (3, False)])
def test_the_dvc_cache_fills_and_is_saved_whatever_the_gate_says_once_the_outputs_are_verified(tmp_path, code,
                                                                                                dvc_runs):
    """Issue 31: the DVC steps used to run only after a passing gate, so a team with a failing gate (the normal
    state while improving a system) never had its cache saved. The whole job, with `assay` and `dvc` stand-ins."""
    tools, workspace = tmp_path / "bin", tmp_path / "work"
    tools.mkdir()
    workspace.mkdir()
    run(["git", "init", "-q"], workspace)
    calls = tmp_path / "dvc_calls"
    (tools / "assay").write_text(f"#!/bin/sh\nprintf '## assay ci: exit {code}\\n'\nexit {code}\n")
    (tools / "dvc").write_text(f'#!/bin/sh\necho "$*" >> {calls}\nmkdir -p .dvc/cache\n')
    for tool in ("assay", "dvc"):
        (tools / tool).chmod(0o755)
    (workspace / "reports").mkdir()
    (workspace / "reports/summary.md").write_text("the summary\n", encoding="utf-8")
    saved: list[str] = []

    def restore(with_: dict, ws: Path) -> dict:  # the venv: a hit; DVC's cache: a miss
        return {"cache-hit": "true" if with_["path"] == ".venv" else "false", "cache-primary-key": with_["key"]}

    actions = {"actions/checkout": emulate_checkout, "actions/setup-python": lambda w, ws: {},
               "actions/cache/restore": restore, "actions/cache/save": lambda w, ws: saved.append(w["path"]) or {}}
    job = run_job(WORKFLOW, "evaluate", workspace, github={"event_name": "push", "base_ref": "", "event": {}},
                  base_path=[str(tools), str(VENV / "bin"), "/usr/bin", "/bin"],  # python: exit 3's summary block
                  actions=actions, env={"HOME": str(tmp_path)})
    outcomes = {s.name: s.outcome for s in job.steps}
    assert job.exit_code == code
    dvc_steps = ("Restore DVC's cache", "Check out the cached outputs", "Reproduce the pipeline")
    assert [outcomes[name] for name in dvc_steps] == (["success"] * 3 if dvc_runs else ["skipped"] * 3), outcomes
    assert (calls.read_text().splitlines() if calls.exists() else []) == (
        ["checkout --allow-missing", "repro"] if dvc_runs else [])
    assert saved == ([".dvc/cache"] if dvc_runs else [])  # the venv was a hit: only DVC's cache is saved
