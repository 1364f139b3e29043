"""assay.study.opening: one recorded opening, the access log, and thresholds frozen at opening."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from assay.study.evidence import EvidenceRoot
from assay.study.opening import HoldoutRefused, check_preregistration, open_holdout, record_access, require_open

THRESHOLDS = Path(__file__).resolve().parents[1] / "data/relevance/thresholds.yaml"
NOON = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def setup(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(THRESHOLDS, tmp_path / "thresholds.yaml")
    return EvidenceRoot(root), tmp_path / "thresholds.yaml"


def test_opening_records_who_why_when_and_the_thresholds_hash(setup):
    root, thresholds = setup
    assert check_preregistration(root, thresholds) is None  # sealed: nothing to compare yet
    record = open_holdout(root, "CRD-01", "release candidate rc-3 frozen", thresholds, now=NOON)
    stored = json.loads((root.path / "opening.json").read_text())
    assert stored == record
    assert stored["decided_by"] == "CRD-01" and stored["opened_at"] == "2026-12-01T12:00:00+00:00"
    assert stored["thresholds_sha256"] == hashlib.sha256(thresholds.read_bytes()).hexdigest()
    assert stored["thresholds"]["p95_latency_ms"] == {"direction": "<=", "value": 1500.0}
    assert check_preregistration(root, thresholds)["decided_by"] == "CRD-01"
    assert require_open(root, "evaluate")["reason"] == "release candidate rc-3 frozen"


def test_opening_twice_is_refused(setup):
    root, thresholds = setup
    open_holdout(root, "CRD-01", "rc frozen", thresholds, now=NOON)
    with pytest.raises(HoldoutRefused, match="already opened on 2026-12-01T12:00:00"):
        open_holdout(root, "CRD-01", "again", thresholds)


@pytest.mark.parametrize("who, why, message", [("Maria Petrenko", "rc", "not a pseudonym"),
                                               ("CRD-01", "  ", "--reason is empty")])
def test_opening_needs_a_pseudonym_and_a_reason(setup, who, why, message):
    root, thresholds = setup
    with pytest.raises(HoldoutRefused, match=message):
        open_holdout(root, who, why, thresholds)
    assert not (root.path / "opening.json").exists()


@pytest.mark.parametrize("who", ["ANN-A01", "ANN-B01", "ARB-C01"])
def test_only_the_coordinator_may_open_the_holdout(setup, who):
    root, thresholds = setup
    with pytest.raises(HoldoutRefused, match=f"{who}' is not the study's coordinator .CRD-01.*--decided-by CRD-01"):
        open_holdout(root, who, "rc frozen", thresholds, coordinator="CRD-01")
    assert not (root.path / "opening.json").exists()
    assert open_holdout(root, "CRD-01", "rc frozen", thresholds, now=NOON, coordinator="CRD-01")["decided_by"] == "CRD-01"


def test_changed_thresholds_after_opening_need_a_new_preregistration(setup):
    root, thresholds = setup
    open_holdout(root, "CRD-01", "rc frozen", thresholds, now=NOON)
    thresholds.write_text(thresholds.read_text().replace("value: 0.80", "value: 0.75"))
    with pytest.raises(HoldoutRefused) as err:
        check_preregistration(root, thresholds)
    assert err.value.exit_code == 2 and "new pre-registration is needed" in str(err.value)


def test_reading_before_opening_is_refused_and_reads_after_are_appended(setup):
    root, thresholds = setup
    with pytest.raises(HoldoutRefused, match="has not been opened"):
        require_open(root, "evaluate")
    open_holdout(root, "CRD-01", "rc frozen", thresholds, now=NOON)
    record_access(root, "study_evaluate", "sealed_holdout/qrels.trec", now=NOON)
    lines = [json.loads(x) for x in (root.path / "access.log").read_text().splitlines()]
    assert lines[-1] == {"by": "study_evaluate", "file": "sealed_holdout/qrels.trec", "time": "2026-12-01T12:00:00+00:00"}
    assert len(lines) == 2


def test_a_broken_opening_record_is_refused(setup):
    root, thresholds = setup
    (root.path / "opening.json").write_text("{}")
    with pytest.raises(HoldoutRefused, match="opening.json has no thresholds_sha256"):
        check_preregistration(root, thresholds)


QRELS = "a 0 d1 2\na 0 d2 0\n"
RUN = "a Q0 d2 1 2.0 t\na Q0 d1 2 1.0 t\n"


@pytest.mark.parametrize("layout", ["sealed_holdout is a symlink to vault", "vault is a symlink to sealed_holdout"])
def test_a_sealed_folder_reached_through_a_symlink_or_another_name_is_still_sealed_and_logged(tmp_path, monkeypatch,
                                                                                              capsys, layout):
    """The red team's escape (issue 31): ``sealed_holdout -> vault``, files read as ``vault/...``:
    ir-eval and study check read them without --allow-sealed and access.log stayed empty."""
    from assay.cli import main
    from assay.study.evidence import ACCESS_LOG

    root = tmp_path / "evidence"
    root.mkdir()
    real, link = ("vault", "sealed_holdout") if layout.startswith("sealed") else ("sealed_holdout", "vault")
    (root / real).mkdir()
    (root / link).symlink_to(root / real, target_is_directory=True)
    (root / real / "qrels.trec").write_text(QRELS)
    (root / real / "run.trec").write_text(RUN)
    (root / real / "packet_A.jsonl").write_text("")
    (root / real / "judgments_A.jsonl").write_text("")
    via = root / "vault"  # the other name, whichever of the two is the real folder
    monkeypatch.setenv("ASSAY_EVIDENCE_ROOT", str(root))
    ir_eval = ["ir-eval", str(via / "qrels.trec"), str(via / "run.trec")]
    check = ["study", "check", str(via / "judgments_A.jsonl"), "--packet", str(via / "packet_A.jsonl")]
    capsys.readouterr()
    for argv in (ir_eval, check):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "is sealed-holdout data" in err and "--allow-sealed" in err and str(root) not in err
    assert not (root / ACCESS_LOG).exists()
    thresholds = Path(__file__).resolve().parents[1] / "data/relevance/thresholds.yaml"
    open_holdout(EvidenceRoot(root), "CRD-01", "rc frozen", thresholds, now=NOON)
    assert main([*ir_eval, "--allow-sealed"]) == 0
    log = [json.loads(x) for x in (root / ACCESS_LOG).read_text().splitlines()]
    assert [(r["by"], r["file"]) for r in log[1:]] == [("ir-eval", "sealed_holdout/qrels.trec"),
                                                       ("ir-eval", "sealed_holdout/run.trec")]
    monkeypatch.delenv("ASSAY_EVIDENCE_ROOT")  # found from the folder above the files, without the variable too
    assert main(ir_eval) == 2 and "is sealed-holdout data" in capsys.readouterr().err
