"""End-to-end: `assay ci` on a project made by `assay init` and reproduced with the real dvc.

It recomputes every stage in a scratch copy and runs the gate there, in one process: on an honest
project its exit code is the gate's (0 or 1), and a forged metric committed with `dvc commit -f`
beside a forged `.assay/verified.json` (issue 31, attack 5: the record the old `assay verify` left for
the gate was one function call to write; `assay gate` under CI=true now believes no record and never
passes on its own) is exit 2 naming the file: `assay ci` reads no record. Each `assay ci` here costs about 25 CPU-seconds (one recompute of the minimal
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
    (project / ".assay").mkdir(exist_ok=True)  # the record the old `assay verify` left, forged in one call
    (project / ".assay/verified.json").write_text('{"workspace": "0", "stages": ["every"], "compared": 51}\n')
    monkeypatch.setenv("CI", "true")
    assert main(["gate", "--root", str(project)]) != 0  # the gate under CI=true believes no record: it never passes
    capsys.readouterr()
    code = main(["ci", "--root", str(project)])
    out = capsys.readouterr().out
    assert code == 2, out
    assert "DIFFERS   metrics/rag/mine.json: key 'holdout.answer_correct.value': committed 1.0, recomputed " in out
    assert "dvc status" not in out  # no gate table: the verdict is never reached on forged outputs
    assert out.endswith("assay ci: exit 2 (an input or verification problem)\n")
