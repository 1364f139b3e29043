"""`assay calibration-status`: exit 0 and one line when current; exit 2 naming every change when stale."""

import hashlib
import json
import runpy
import shutil

import pytest

from assay.cli import main

from conftest import ROOT

PARAMS = """inputs:
  pairs: data/pairs.jsonl
  prompts: data/prompts
judge:
  kind: fake
  preset: mixed
  prompt_version: 2
  swap: true
  min_kappa: 0.6
  min_slice_agreement: 0.6
"""
FIX = "fix: run `dvc repro calibrate` to calibrate again\n"

# The hashes the status line names, restated with hashlib from their documented definitions rather
# than from assay's own hash functions.
# Judge settings: the judge's identity (the mixed preset's fields), swap and the usability rule with
# the defaults PARAMS leaves in place, as sorted-key compact JSON.
MIXED_SETTINGS = {
    "judge": {"kind": "fake", "preset": "mixed", "position": 0.15, "verbosity": 0.2, "self_pref": 0.2,
              "bangla_blind": True, "margin": 0.1},
    "swap": True,
    "rule": {"min_pairs": 30, "min_kappa": 0.6, "min_slice_agreement": 0.6, "min_slice_n": 5, "max_invalid_share": 0.05,
             "max_flip_share": 0.2, "usability": "conservative", "interval": "wilson"},
}
# Labels: every field of a pair in this order, one row per pair sorted by id, as compact JSON.
PAIR_FIELDS = ["id", "case_question", "facts", "a", "b", "kind", "lang", "ann1", "ann2", "final", "note"]


def file_sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def settings_sha(settings: dict) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def labels_sha(path) -> str:
    pairs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = sorted([p.get(f) for f in PAIR_FIELDS] for p in pairs)  # ids are unique, so this sorts by id
    text = json.dumps({"fields": PAIR_FIELDS, "rows": rows}, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "data" / "prompts", tmp_path / "data" / "prompts")
    shutil.copy(ROOT / "data" / "pairs.jsonl", tmp_path / "data" / "pairs.jsonl")
    (tmp_path / "params.yaml").write_text(PARAMS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(ROOT / "stages" / "judge.py"), run_name="__main__")  # writes the stored replies
    runpy.run_path(str(ROOT / "stages" / "calibrate.py"), run_name="__main__")  # writes metrics/calibration.json
    return tmp_path


def status(capsys, *args):
    code = main(["calibration-status", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_current(workspace, capsys):
    sha = file_sha(workspace / "data" / "prompts" / "pairwise_v2.md")
    labels = labels_sha(workspace / "data" / "pairs.jsonl")
    assert status(capsys) == (0, f"reports/provenance/calibrate.json is current: prompt pairwise v2 sha {sha[:10]}, "
                                 f"judge settings {settings_sha(MIXED_SETTINGS)[:10]}, labels {labels[:10]}\n", "")


def test_stage_outputs(workspace):
    record = json.loads((workspace / "metrics" / "calibration.json").read_text(encoding="utf-8"))
    # kappa 10/28 = 0.357: derived in test_calibration.py::test_demo_kappa_and_bn_slice_from_a_restated_judge
    assert (record["n"], record["usable"], round(record["kappa"], 3)) == (42, 0, 0.357)
    csv_lines = (workspace / "reports" / "plots" / "confusion_judge.csv").read_text(encoding="utf-8").splitlines()
    assert csv_lines[0] == "final,judge" and len(csv_lines) == 43
    assert len((workspace / "reports" / "judge_dimensions.jsonl").read_text(encoding="utf-8").splitlines()) == 42
    assert "**Not usable.**" in (workspace / "reports" / "calibration.md").read_text(encoding="utf-8")


def test_one_word_prompt_edit_is_stale(workspace, capsys):
    f = workspace / "data" / "prompts" / "pairwise_v2.md"
    old = file_sha(f)
    f.write_text(f.read_text(encoding="utf-8").replace("short sentence", "brief sentence"), encoding="utf-8")
    assert status(capsys) == (2, "", "assay calibration-status: reports/provenance/calibrate.json is stale:\n"
                                     f"  prompt pairwise v2 sha {old[:10]} -> {file_sha(f)[:10]}\n" + FIX)


def test_editing_an_unused_prompt_version_is_not_stale(workspace, capsys):
    f = workspace / "data" / "prompts" / "pairwise_v1.md"
    f.write_text(f.read_text(encoding="utf-8").replace("short sentence", "brief sentence"), encoding="utf-8")
    code, out, _ = status(capsys)
    assert code == 0 and "is current" in out


def test_changed_setting_is_stale(workspace, capsys):
    (workspace / "params.yaml").write_text(PARAMS.replace("swap: true", "swap: false"), encoding="utf-8")
    assert status(capsys) == (2, "", "assay calibration-status: reports/provenance/calibrate.json is stale:\n"
                                     "  judge settings: swap True -> False\n" + FIX)


def test_changed_label_is_stale(workspace, capsys):
    f = workspace / "data" / "pairs.jsonl"
    old = labels_sha(f)
    lines = f.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[0] = lines[0].replace('"final": "a"', '"final": "tie"')
    f.write_text("".join(lines), encoding="utf-8")
    new = labels_sha(f)
    assert status(capsys) == (2, "", "assay calibration-status: reports/provenance/calibrate.json is stale:\n"
                                     f"  labels {old[:10]} -> {new[:10]}\n" + FIX)


def test_reordered_pairs_are_still_current(workspace, capsys):
    f = workspace / "data" / "pairs.jsonl"
    f.write_text("".join(reversed(f.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8")
    assert status(capsys)[0] == 0


def test_missing_record(workspace, capsys):
    (workspace / "reports" / "provenance" / "calibrate.json").unlink()
    assert status(capsys) == (
        2, "", "assay calibration-status: reports/provenance/calibrate.json not found (fix: run `dvc repro calibrate`)\n")


def test_paths_are_relative_to_root_not_to_the_working_directory(workspace, capsys, tmp_path_factory, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    code, out, err = status(capsys, "--root", str(workspace))
    assert (code, err) == (0, "") and "is current" in out


def test_the_prompts_folder_and_pairs_file_come_from_inputs(workspace, capsys):
    (workspace / "data" / "prompts").rename(workspace / "judge_prompts")
    (workspace / "data" / "pairs.jsonl").rename(workspace / "labels.jsonl")
    moved = PARAMS.replace("pairs: data/pairs.jsonl", "pairs: labels.jsonl").replace("prompts: data/prompts",
                                                                                      "prompts: judge_prompts")
    (workspace / "params.yaml").write_text(moved, encoding="utf-8")
    code, out, _ = status(capsys)
    assert code == 0 and "is current" in out
