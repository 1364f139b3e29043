"""The received-evidence lock and the checks a study stage runs on the evidence files it reads."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from assay.core.errors import AssayError
from assay.study.protocol import load_study
from assay.study.received import (EvidenceChanged, current_lock, lock_differences, read_lock, received_names,
                                  require_produced, require_received, take_in, update_entry)
from study_helpers import make_split

REPO = Path(__file__).resolve().parents[1]
RECEIVED = ["development/decisions.jsonl", "development/judgments_A.jsonl", "development/judgments_B.jsonl",
            "opening.json", "sealed_holdout/decisions.jsonl", "sealed_holdout/judgments_A.jsonl",
            "sealed_holdout/judgments_B.jsonl"]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def vault(tmp_path, monkeypatch):
    """A secret-looking root with the development split only (the sealed holdout not handed in, not opened)."""
    monkeypatch.chdir(tmp_path)
    root = make_split(tmp_path / "vault-5e1c9a", "development")
    return load_study(REPO / "data/relevance/study.yaml"), root


def test_the_lock_holds_every_received_file_by_hash_or_absent_and_nothing_else(vault):
    study, root = vault
    lock, changed = take_in(study, root, "lock.json")
    assert changed == RECEIVED  # no lock before: every entry is new
    dev = root.path / "development"
    assert lock == {
        "decisions": {"development/decisions.jsonl": sha(dev / "decisions.jsonl"), "sealed_holdout/decisions.jsonl": "absent"},
        "inputs": {},  # the demo study's corpus and queries are in the repository, hashed by DVC itself
        "judgments": {"development/judgments_A.jsonl": sha(dev / "judgments_A.jsonl"),
                      "development/judgments_B.jsonl": sha(dev / "judgments_B.jsonl"),
                      "sealed_holdout/judgments_A.jsonl": "absent", "sealed_holdout/judgments_B.jsonl": "absent"},
        "opening": {"opening.json": "absent"}}
    text = Path("lock.json").read_text()
    assert json.loads(text) == lock and root.path.name not in text
    again, changed = take_in(study, root, "lock.json")
    assert changed == [] and Path("lock.json").read_text() == text  # byte-stable


def test_study_paths_under_the_root_are_locked_as_inputs(vault):
    study, _ = vault
    real = study.model_copy(update={"queries": "$ASSAY_EVIDENCE_ROOT/queries.jsonl"})
    assert received_names(real)["inputs"] == ["queries.jsonl"]
    assert received_names(study)["inputs"] == []


def test_lock_differences_name_changed_added_and_removed_paths():
    before = {"judgments": {"a": "1", "b": "2", "gone": "3"}, "opening": {"o": "absent"}}
    after = {"judgments": {"a": "1", "b": "22", "new": "absent"}, "opening": {"o": "absent"}}
    assert lock_differences(before, after) == ["b", "gone", "new"]
    assert lock_differences(after, after) == []


def test_a_changed_missing_or_new_received_file_fails_with_the_intake_fix_and_no_root(vault):
    study, root = vault
    take_in(study, root, "lock.json")
    require_received(study, root, ("judgments", "decisions", "opening"), "lock.json")  # all as locked
    dev = root.path / "development"
    (dev / "judgments_A.jsonl").write_text((dev / "judgments_A.jsonl").read_text().replace('"relevance": 2', '"relevance": 1', 1))
    (dev / "decisions.jsonl").unlink()
    (root.path / "opening.json").write_text("{}")
    with pytest.raises(EvidenceChanged) as caught:
        require_received(study, root, ("judgments", "decisions", "opening"), "lock.json")
    lines = str(caught.value).splitlines()
    fix = "(fix: run `assay study intake`, then `dvc repro`)"
    assert lines == [
        f"$ASSAY_EVIDENCE_ROOT/development/decisions.jsonl: is missing, but lock.json records its SHA-256 {fix}",
        f"$ASSAY_EVIDENCE_ROOT/development/judgments_A.jsonl: differs from the SHA-256 in lock.json {fix}",
        f"$ASSAY_EVIDENCE_ROOT/opening.json: exists, but lock.json records it as absent {fix}"]
    assert caught.value.exit_code == 2 and str(root.path) not in str(caught.value)
    require_received(study, root, ("inputs",), "lock.json")  # a stage reading other groups is not stopped
    real = study.model_copy(update={"queries": "$ASSAY_EVIDENCE_ROOT/queries.jsonl"})
    with pytest.raises(EvidenceChanged, match=r"\$ASSAY_EVIDENCE_ROOT/queries.jsonl: is not listed in lock.json"):
        require_received(real, root, ("inputs",), "lock.json")  # the study file moved its queries under the root


def test_no_lock_is_refused_with_the_intake_fix(vault):
    study, root = vault
    with pytest.raises(EvidenceChanged, match=r"absent.json: not found: no received evidence is locked yet \(fix: run "
                                              r"`assay study intake`"):
        require_received(study, root, ("judgments",), "absent.json")
    Path("broken.json").write_text("[1, 2]")
    with pytest.raises(EvidenceChanged, match="expected {group: {path: sha256}}"):
        read_lock("broken.json")


def test_update_entry_sets_one_entry_and_leaves_the_others(vault):
    study, root = vault
    assert update_entry(root, "opening", "opening.json", "lock.json") is False  # no lock: nothing written
    assert not Path("lock.json").exists()
    take_in(study, root, "lock.json")
    (root.path / "opening.json").write_text('{"thresholds_sha256": "x"}\n')
    judgments = root.path / "development/judgments_B.jsonl"
    judgments.write_text(judgments.read_text() + "\n")  # an unreviewed change the opening must not accept
    assert update_entry(root, "opening", "opening.json", "lock.json") is True
    assert lock_differences(read_lock("lock.json"), current_lock(study, root)) == ["development/judgments_B.jsonl"]
    assert read_lock("lock.json")["opening"] == {"opening.json": sha(root.path / "opening.json")}


def test_files_a_stage_wrote_are_checked_against_its_record(vault):
    _, root = vault
    records = Path("records")
    records.mkdir()
    pool = root.path / "development/pool.jsonl"
    (records / "pool.json").write_text(json.dumps({"evidence": {"development/pool.jsonl": sha(pool),
                                                                "sealed_holdout/pool.jsonl": None}}))
    (records / "evaluation.json").write_text(json.dumps({"evidence": {}}))
    require_produced(root, {"pool": ["development/pool.jsonl", "sealed_holdout/pool.jsonl"]}, records)
    pool.write_text(pool.read_text() + "\n")
    (root.path / "sealed_holdout").mkdir()
    (root.path / "sealed_holdout/pool.jsonl").write_text("")
    with pytest.raises(EvidenceChanged) as caught:
        require_produced(root, {"pool": ["development/pool.jsonl", "sealed_holdout/pool.jsonl"],
                                "bundle": ["development/bundle.jsonl"], "evaluation": ["development/x.json"]}, records)
    assert str(caught.value).splitlines() == [
        "$ASSAY_EVIDENCE_ROOT/development/pool.jsonl: differs from the SHA-256 in records/pool.json "
        "(fix: write it again: `dvc repro -f -s study_pool`)",
        "$ASSAY_EVIDENCE_ROOT/development/x.json: is not listed in records/evaluation.json "
        "(fix: write it again: `dvc repro -f -s study_evaluate`)",
        "$ASSAY_EVIDENCE_ROOT/sealed_holdout/pool.jsonl: exists, but records/pool.json records it as absent "
        "(fix: write it again: `dvc repro -f -s study_pool`)",
        "records/bundle.json: missing or unreadable (fix: write it again: `dvc repro -f -s study_bundle`)"]
    assert str(root.path) not in str(caught.value)


def test_record_step_refuses_before_the_step_runs_and_writes_nothing(tmp_path, monkeypatch):
    from assay.study.records import record_step, stage_record

    monkeypatch.chdir(tmp_path)
    (tmp_path / "data/relevance").mkdir(parents=True)
    text = (REPO / "data/relevance/study.yaml").read_text().replace("synthetic: true", "synthetic: false")
    (tmp_path / "data/relevance/study.yaml").write_text(text.split("demo_evidence:")[0])
    root = make_split(tmp_path / "vault-0b7d", "development")
    monkeypatch.setenv("ASSAY_EVIDENCE_ROOT", str(root.path))
    study = load_study("data/relevance/study.yaml")
    take_in(study, root, "data/relevance/received.json")
    ran = []
    (tmp_path / "reports/relevance/study").mkdir(parents=True)
    done = stage_record(study, groups=1)  # a record has the study's head (a bare dict is refused by StudyRecord)
    record = record_step("check", lambda s, r: ran.append(1) or done, received=("judgments",))
    assert record == done and ran == [1]
    assert json.loads((tmp_path / "reports/relevance/study/check.json").read_text()) == done
    (root.path / "development/judgments_A.jsonl").write_text("")
    with pytest.raises(AssayError, match=r"\$ASSAY_EVIDENCE_ROOT/development/judgments_A.jsonl: differs") as caught:
        record_step("check", lambda s, r: ran.append(2) or {**done, "groups": 2}, received=("judgments",))
    assert ran == [1] and str(root.path) not in str(caught.value)
    assert json.loads((tmp_path / "reports/relevance/study/check.json").read_text()) == done


def test_opening_is_once_a_rewritten_opening_record_is_not_relocked(vault, tmp_path):
    from assay.study.evidence import OPENING
    from assay.study.opening import open_holdout

    study, root = vault
    thresholds = REPO / "data/relevance/thresholds.yaml"
    open_holdout(root, "CRD-01", "rc frozen", thresholds)
    lock, _ = take_in(study, root, "lock.json")
    locked = lock["opening"][OPENING]
    assert locked != "absent"
    # the red team: new thresholds and their hash written into the opening record, then the intake again
    record = json.loads((root.path / OPENING).read_text())
    record["thresholds"]["min_ndcg"] = {"direction": ">=", "value": 0.01}
    record["thresholds_sha256"] = "0" * 64
    (root.path / OPENING).write_text(json.dumps(record))
    before = Path("lock.json").read_bytes()
    with pytest.raises(EvidenceChanged) as info:
        take_in(study, root, "lock.json")
    assert info.value.exit_code == 2 and "$ASSAY_EVIDENCE_ROOT/opening.json" in str(info.value)
    assert "opened once" in str(info.value) and root.path.name not in str(info.value)
    assert Path("lock.json").read_bytes() == before  # nothing written
    (root.path / OPENING).unlink()  # deleting the record is no way round either
    with pytest.raises(EvidenceChanged):
        take_in(study, root, "lock.json")
