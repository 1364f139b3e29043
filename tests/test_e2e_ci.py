"""End-to-end: `assay ci` on a project made by `assay init` and reproduced with the real dvc.

It recomputes every stage in a scratch copy and runs the gate there, in one process: on an honest
project its exit code is the gate's (0 or 1), and a forged metric committed with `dvc commit -f`
beside a forged `.assay/verified.json` (issue 31, attack 5: the record `assay verify` leaves for the
gate is one function call to write, and `assay gate` under CI=true believes it) is exit 2 naming the
file: `assay ci` reads no record. Each `assay ci` here costs about 25 CPU-seconds (one recompute of the minimal
example)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from assay.cli import main
from conftest import BIN, run

pytestmark = pytest.mark.e2e
ASSAY, DVC = str(BIN / "assay"), str(BIN / "dvc")


def commit(root, message="change"):
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", message], root)


@pytest.fixture(scope="module")
def reproduced_project(tmp_path_factory):
    top = tmp_path_factory.mktemp("e2e-ci")
    run([ASSAY, "init", str(top / "proj")], top)
    root = top / "proj"
    run([DVC, "repro", "-q"], root)
    commit(root, "first evaluation")
    return root


@pytest.fixture
def project(reproduced_project, tmp_path):
    dest = tmp_path / "proj"
    shutil.copytree(reproduced_project, dest, symlinks=True)
    return dest


def test_an_honest_project_ends_with_the_gates_verdict_computed_on_the_recomputed_outputs(project, capsys, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    gate = run([ASSAY, "gate"], project, check=False)
    assert gate.returncode in (0, 1), gate.stdout + gate.stderr
    code = main(["ci", "--root", str(project), "--markdown"])
    out = capsys.readouterr().out
    assert code == gate.returncode, out
    assert out.startswith(f"## assay ci: exit {code} (")
    assert "\nVerified: " in out and " committed files match a recomputation of " in out
    assert "### Release gate (on the recomputed outputs)" in out
    assert re.search(r"^dvc status +pass +pipeline up to date$", out, re.MULTILINE)  # in the scratch copy
    assert not (project / ".assay/verified.json").exists()  # no record is left for another step to believe
    assert run(["git", "status", "--porcelain"], project).stdout == ""  # nothing written in the repository


def test_attack_5_a_forged_verify_record_with_forged_metrics_is_exit_2_naming_the_file(project, capsys, monkeypatch):
    metrics = project / "metrics/rag/mine.json"
    data = json.loads(metrics.read_text(encoding="utf-8"))
    data["holdout"]["answer_correct"]["value"] = 1.0
    metrics.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    run([DVC, "commit", "-f", "-q"], project)
    commit(project, "forged")
    from assay.release.witness import witness_problem, workspace_key, write_witness

    write_witness(project, workspace_key(project), ["every"], 51)  # the record, forged in one call
    assert witness_problem(project) is None  # `assay gate` under CI=true would take it as proof of a recompute
    monkeypatch.setenv("CI", "true")
    code = main(["ci", "--root", str(project)])
    out = capsys.readouterr().out
    assert code == 2, out
    assert "DIFFERS   metrics/rag/mine.json: key 'holdout.answer_correct.value': committed 1.0, recomputed " in out
    assert "dvc status" not in out  # no gate table: the verdict is never reached on forged outputs
    assert out.endswith("assay ci: exit 2 (an input or verification problem)\n")
