"""`assay init` and `assay add`: what a new project holds, what is refused, and that nothing the user
wrote is overwritten; the version pin refuses a stage under another installed assay."""

from __future__ import annotations

import json

import pytest
import yaml

from assay.cli import main
from assay.core.errors import AssayError
from assay.core.pin import VersionMismatch, check_pin, pinned_version
from assay.pipeline.parts import project_parts
from assay.project.init import ProjectError, add_part, init_project

from conftest import BIN, run


def test_a_minimal_core_judge_project_holds_exactly_its_parts(tmp_path):
    result = init_project(tmp_path / "p", ["judge"], "minimal", setup=False)
    root = result.root
    assert result.parts == ("core", "judge") and result.kept == []
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    assert params["parts"] == ["core", "judge"]
    assert set(params) == {"parts", "inputs", "plan", "split", "leakage", "agreement", "judge", "rag", "compare", "gate"}
    assert params["rag"]["versions"]["mine"] == {"system": "callable", "callable": "systems.my_rag:answer",
                                                 "source": "systems/my_rag.py", "settings": {"min_overlap": 1}}
    assert (root / "requirements.txt").read_text(encoding="utf-8").splitlines()[-1] == "assay-eval==" + pinned_version(root)
    assert "review_agreement" not in (root / "data/plan.yaml").read_text(encoding="utf-8")  # no queue part
    assert "#@" not in (root / "data/plan.yaml").read_text(encoding="utf-8")
    cases = (root / "data/cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(cases) == 30 and {json.loads(c)["lang"] for c in cases} == {"en", "bn"}
    stages = yaml.safe_load((root / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    assert "calibrate" in stages and "review" not in stages and "retrieve" not in stages
    workflow = (root / ".github/workflows/assay.yml").read_text(encoding="utf-8")
    assert "assay ci" in workflow and "pip install --quiet -r requirements.txt" in workflow and "-e ." not in workflow


def test_a_non_empty_folder_is_refused_and_force_keeps_every_existing_file(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "params.yaml").write_text("mine: true\n", encoding="utf-8")
    with pytest.raises(ProjectError, match=r"is not empty \(params.yaml\) \(fix: .*--force"):
        init_project(root, setup=False)
    assert (root / "params.yaml").read_text(encoding="utf-8") == "mine: true\n"
    result = init_project(root, force=True, setup=False)
    assert result.kept == ["params.yaml"] and "dvc.yaml" in result.written
    assert (root / "params.yaml").read_text(encoding="utf-8") == "mine: true\n"


def test_unknown_parts_and_examples_are_one_clean_line_from_the_command(tmp_path, capsys):
    assert main(["init", str(tmp_path / "p"), "--parts", "core,jugde"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("assay init: --parts: field 'parts': 'jugde' is not a part (fix: choose from core, judge")
    assert not (tmp_path / "p").exists()
    with pytest.raises(ProjectError, match="'tiny' is not an example"):
        init_project(tmp_path / "q", example="tiny", setup=False)


def test_add_appends_the_part_and_never_touches_the_users_data(tmp_path):
    root = init_project(tmp_path / "p", ["core"], "minimal", setup=False).root
    params = root / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace("holdout_share: 0.3", "holdout_share: 0.4"),
                      encoding="utf-8")
    (root / "data/cases.jsonl").write_text((root / "data/cases.jsonl").read_text(encoding="utf-8")[:400].rsplit("\n", 1)[0]
                                           + "\n", encoding="utf-8")
    mine = (root / "data/cases.jsonl").read_bytes()
    (root / "data").joinpath("rubric.yaml").write_text("# my rubric\n", encoding="utf-8")
    result = add_part(root, "queue", "demo")
    assert result.parts == ("core", "queue")
    assert "data/rubric.yaml" in result.kept and "data/reviews/demo.jsonl" in result.written
    assert (root / "data/rubric.yaml").read_text(encoding="utf-8") == "# my rubric\n"
    assert (root / "data/cases.jsonl").read_bytes() == mine
    data = yaml.safe_load(params.read_text(encoding="utf-8"))
    assert data["parts"] == ["core", "queue"] and data["split"]["holdout_share"] == 0.4 and "review" in data
    assert project_parts(params) == ("core", "queue")
    assert "review" in yaml.safe_load((root / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    assert add_part(root, "queue").written == []  # already there: nothing to do
    assert add_part(root, "study").parts == ("core", "queue", "retrieval", "study")


def test_the_study_access_log_is_ignored_by_git_in_a_study_project(tmp_path):
    root = init_project(tmp_path / "p", ["study"], "minimal").root
    log = root / "data/relevance/evidence.synthetic/access.log"
    assert not log.exists()  # the demo's log is never copied
    log.write_text('{"by": "study check"}\n', encoding="utf-8")
    assert run(["git", "check-ignore", "-q", str(log)], root, check=False).returncode == 0
    assert "access.log" not in run(["git", "status", "--porcelain", "--untracked-files=all"], root).stdout


def test_add_queue_without_example_wires_no_example_data(tmp_path, capsys):
    root = init_project(tmp_path / "p", ["core"], "minimal", setup=False).root
    assert main(["add", "queue", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "assay queue export NAME" in out and "data/reviews/NAME.jsonl" in out
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    assert params["review"]["snapshots"] == []
    assert sorted(p.name for p in (root / "data/reviews").iterdir()) == ["README.md"]
    assert not (root / "data/queues").exists() and (root / "data/rubric.yaml").exists()
    assert yaml.safe_load((root / "dvc.yaml").read_text(encoding="utf-8"))["stages"]["review"]["foreach"] == "${review.snapshots}"
    judged = init_project(tmp_path / "j", ["judge"], "minimal", setup=False).root
    add_part(judged, "queue")
    params = yaml.safe_load((judged / "params.yaml").read_text(encoding="utf-8"))
    assert params["review"]["snapshots"] == [] and params["ppi"]["reviews"] == [] and params["ppi"]["min_labelled"] == 10


@pytest.mark.e2e
@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="the gate stage depends on the folder metrics/review, which no stage writes while "
                          "review.snapshots is empty, so dvc repro stops at the gate (training and ppi pass)")
def test_add_queue_without_example_then_repro_leaves_the_training_files_empty(tmp_path):
    root = tmp_path / "p"
    run([str(BIN / "assay"), "init", str(root)], tmp_path)
    run([str(BIN / "assay"), "add", "queue"], root)
    run([str(BIN / "dvc"), "repro", "-q"], root)
    for name in ("sft.jsonl", "dpo.jsonl", "dpo_trl.jsonl"):
        assert (root / "reports/training" / name).read_text(encoding="utf-8") == ""
    assert json.loads((root / "metrics/ppi.json").read_text(encoding="utf-8"))


def test_a_study_project_starts_with_no_opening(tmp_path):
    root = init_project(tmp_path / "p", ["study"], "demo", setup=False).root
    evidence = root / "data/relevance/evidence.synthetic"
    assert (evidence / "development/manifest.json").exists() and not (evidence / "opening.json").exists()
    assert json.loads((root / "data/relevance/received.json").read_text(encoding="utf-8"))["opening"] == \
        {"opening.json": "absent"}
    added = init_project(tmp_path / "q", ["core"], "minimal", setup=False).root
    add_part(added, "study")
    assert not (added / "data/relevance/evidence.synthetic/opening.json").exists()


def test_add_refuses_a_dvc_yaml_that_assay_did_not_write(tmp_path):
    root = init_project(tmp_path / "p", ["core"], "minimal", setup=False).root
    (root / "dvc.yaml").write_text("stages: {}\n", encoding="utf-8")
    with pytest.raises(ProjectError, match="was not generated by assay"):
        add_part(root, "judge")


def test_a_stage_refuses_to_run_under_another_assay_version_than_the_pin(tmp_path):
    (tmp_path / "requirements.txt").write_text("assay-eval==0.0.1\n", encoding="utf-8")
    with pytest.raises(VersionMismatch, match=r"pins assay-eval==0.0.1 but assay .* is installed \(fix: `pip install"):
        check_pin(tmp_path)
    check_pin(tmp_path, installed="0.0.1")
    (tmp_path / "requirements.txt").write_text("numpy\n", encoding="utf-8")
    check_pin(tmp_path)  # no assay pin: nothing to compare (assay's own repository)
    assert isinstance(VersionMismatch("x"), AssayError) and VersionMismatch.exit_code == 2


@pytest.mark.e2e
def test_init_then_repro_gate_commit_and_a_second_repro_leave_git_clean(tmp_path):
    """The minimal example with the real git and dvc: the gate decides (0 or 1, never 2) right away."""
    root = tmp_path / "p"
    run([str(BIN / "assay"), "init", str(root)], tmp_path)
    assert (root / ".git").is_dir() and (root / ".dvc").is_dir()
    run([str(BIN / "dvc"), "repro", "-q"], root)
    gate = run([str(BIN / "assay"), "gate"], root, check=False)
    assert gate.returncode in (0, 1), gate.stdout + gate.stderr
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", "first evaluation"], root)
    run([str(BIN / "dvc"), "repro", "-q"], root)
    assert run(["git", "status", "--porcelain"], root).stdout == ""
    (root / "requirements.txt").write_text("assay-eval==0.0.1\n", encoding="utf-8")
    assert run([str(BIN / "dvc"), "status", "--json"], root).stdout.count("requirements.txt") >= 7  # every stage
    proc = run([str(BIN / "dvc"), "repro", "plan"], root, check=False)
    assert proc.returncode != 0 and "pins assay-eval==0.0.1" in proc.stdout + proc.stderr
    gate = run([str(BIN / "assay"), "gate", "--skip-dvc-status"], root, check=False)
    assert gate.returncode == 2 and "requirements.txt pins 0.0.1, assay" in gate.stdout


@pytest.mark.e2e
def test_a_study_project_opens_its_own_holdout_and_its_access_log_stays_out_of_git(tmp_path):
    """A fresh study project: verdict not stuck at 2, an annotator cannot open, the coordinator can;
    the sealed reads that follow go to access.log, and git stays clean after `dvc repro -f`."""
    root = tmp_path / "p"
    run([str(BIN / "assay"), "init", str(root), "--parts", "core,judge,study"], tmp_path)
    run([str(BIN / "dvc"), "repro", "-q"], root)
    verdict = run([str(BIN / "assay"), "study", "verdict"], root, check=False)
    assert verdict.returncode in (1, 3) and "holdout_opened" in verdict.stdout, verdict.stdout + verdict.stderr
    refused = run([str(BIN / "assay"), "study", "open-holdout", "--decided-by", "ANN-A01", "--reason", "rc"], root,
                  check=False)
    assert refused.returncode == 2 and "not the study's coordinator (CRD-01" in refused.stderr
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", "first"], root)
    run([str(BIN / "assay"), "study", "open-holdout", "--decided-by", "CRD-01", "--reason", "rc frozen"], root)
    run([str(BIN / "dvc"), "repro", "-q"], root)
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", "opened"], root)
    run([str(BIN / "dvc"), "repro", "-f", "-q"], root)
    assert (root / "data/relevance/evidence.synthetic/access.log").read_text(encoding="utf-8").count("\n") >= 2
    assert run(["git", "status", "--porcelain"], root).stdout == ""
