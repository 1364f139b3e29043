"""`assay study receipt | validate | open-holdout | verdict`: exit codes, output, and the root never shown."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.cli import main
from study_helpers import adjudicate, make_split

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def study(tmp_path, monkeypatch):
    """A repository with a non-synthetic study file and a secret-looking evidence root with both splits."""
    repo = tmp_path / "repo"
    (repo / "data/relevance").mkdir(parents=True)
    text = (REPO / "data/relevance/study.yaml").read_text()
    text = text.replace("synthetic: true", "synthetic: false").split("demo_evidence:")[0]
    (repo / "data/relevance/study.yaml").write_text(text)
    shutil.copy(REPO / "data/relevance/thresholds.yaml", repo / "data/relevance/thresholds.yaml")
    (repo / "data/relevance/corpus.jsonl").write_text('{"doc_id": "pol-1"}\n')
    secret = tmp_path / "vault-7f3a"
    root = make_split(secret, "development")
    make_split(secret, "sealed_holdout")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("ASSAY_EVIDENCE_ROOT", str(secret))
    for split in ("development", "sealed_holdout"):
        adjudicate(root, split, "data/relevance/corpus.jsonl", "data/relevance/thresholds.yaml")
    return repo, secret


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_receipt_prints_both_measures_and_hides_the_root(study, capsys):
    _, secret = study
    code, out, err = run(capsys, "relevance", "receipt", "development", "--resamples", "200")
    assert code == 0
    assert "$ASSAY_EVIDENCE_ROOT/development/receipt.json: 8 pairs over 3 queries, 3 disagreement(s)" in out
    assert "Krippendorff's alpha, ordinal metric" in out and "Cohen's weighted kappa, quadratic weights" in out
    assert str(secret) not in out + err


def test_validate_development_then_sealed_without_and_with_the_flag(study, capsys):
    _, secret = study
    code, out, _ = run(capsys, "relevance", "validate", str(secret / "development/manifest.json"))
    assert code == 0 and out.rstrip().endswith("$ASSAY_EVIDENCE_ROOT/development/manifest.json: valid")
    code, out, err = run(capsys, "relevance", "validate", str(secret / "sealed_holdout/manifest.json"))
    assert code == 2 and "is the sealed holdout's manifest" in err and "--allow-sealed" in err
    code, _, err = run(capsys, "relevance", "validate", str(secret / "sealed_holdout/manifest.json"), "--allow-sealed")
    assert code == 2 and "has not been opened" in err
    code, _, err = run(capsys, "relevance", "open-holdout", "--decided-by", "ANN-A01", "--reason", "rc frozen")
    assert code == 2 and "'ANN-A01' is not the study's coordinator (CRD-01" in err
    code, out, _ = run(capsys, "relevance", "open-holdout", "--decided-by", "CRD-01", "--reason", "rc frozen")
    assert code == 0 and "sealed holdout opened by CRD-01" in out
    code, out, err = run(capsys, "relevance", "validate", str(secret / "sealed_holdout/manifest.json"), "--allow-sealed")
    assert code == 0, err
    assert "validate --allow-sealed" in (secret / "access.log").read_text()
    code, _, err = run(capsys, "relevance", "open-holdout", "--decided-by", "CRD-01", "--reason", "again")
    assert code == 2 and "already opened" in err
    assert str(secret) not in out + err


def test_validate_refuses_a_changed_judgment_file_with_exit_2(study, capsys):
    _, secret = study
    path = secret / "development/judgments_B.jsonl"
    path.write_text(path.read_text().replace('"relevance": 2', '"relevance": 1', 1))
    code, out, err = run(capsys, "relevance", "validate", str(secret / "development/manifest.json"))
    assert code == 2
    assert "$ASSAY_EVIDENCE_ROOT/development/judgments_B.jsonl: SHA-256 differs from the manifest" in err
    assert str(secret) not in out + err


def test_verdict_without_a_verdict_is_missing_and_changed_thresholds_after_opening_are_refused(study, capsys):
    repo, secret = study
    code, out, err = run(capsys, "relevance", "verdict")
    assert code == 2 and "not found: run dvc repro" in err
    run(capsys, "relevance", "open-holdout", "--decided-by", "CRD-01", "--reason", "rc frozen")
    thresholds = repo / "data/relevance/thresholds.yaml"
    thresholds.write_text(thresholds.read_text().replace("value: 0.70}", "value: 0.60}"))
    code, out, err = run(capsys, "relevance", "verdict")
    assert code == 2 and "new pre-registration is needed" in err
    assert str(secret) not in out + err


def test_every_study_subcommand_has_help(capsys):
    for name in ("intake", "receipt", "validate", "open-holdout", "verdict"):
        with pytest.raises(SystemExit) as done:
            main(["study", name, "--help"])
        assert done.value.code == 0
        assert len(capsys.readouterr().out) > 200


def test_intake_locks_the_received_files_and_check_lists_each_difference(study, capsys):
    repo, secret = study
    code, out, err = run(capsys, "relevance", "intake", "--check")
    assert code == 2 and "data/relevance/received.json: not found" in err and "assay study intake" in err
    code, out, _ = run(capsys, "relevance", "intake")
    assert code == 0 and out.splitlines()[-1] == "data/relevance/received.json: 7 received file(s) (1 absent), 7 changed; " \
                                                   "run `dvc repro`, then commit the lock and dvc.lock"
    lock = (repo / "data/relevance/received.json").read_bytes()
    code, out, _ = run(capsys, "relevance", "intake", "--check")
    assert code == 0 and "every received file matches" in out
    path = secret / "sealed_holdout/judgments_A.jsonl"
    path.write_text(path.read_text().replace('"relevance": 2', '"relevance": 1', 1))
    (secret / "development/decisions.jsonl").unlink()
    code, out, err = run(capsys, "relevance", "intake", "--check")
    assert code == 1 and err.splitlines() == [
        "$ASSAY_EVIDENCE_ROOT/development/decisions.jsonl: differs from data/relevance/received.json",
        "$ASSAY_EVIDENCE_ROOT/sealed_holdout/judgments_A.jsonl: differs from data/relevance/received.json",
        "2 received file(s) differ from data/relevance/received.json: run `assay study intake`, then `dvc repro`"]
    assert (repo / "data/relevance/received.json").read_bytes() == lock  # --check writes nothing
    code, out, _ = run(capsys, "relevance", "intake")
    assert code == 0 and "  changed: $ASSAY_EVIDENCE_ROOT/sealed_holdout/judgments_A.jsonl" in out
    assert "2 absent), 2 changed" in out
    assert str(secret) not in out + err and secret.name not in (repo / "data/relevance/received.json").read_text()


def test_open_holdout_updates_the_opening_entry_of_the_lock(study, capsys):
    repo, secret = study
    code, out, _ = run(capsys, "relevance", "open-holdout", "--decided-by", "CRD-01", "--reason", "rc frozen")
    assert code == 0 and "data/relevance/received.json not found: run `assay study intake`" in out
    (secret / "opening.json").unlink()
    run(capsys, "relevance", "intake")
    code, out, _ = run(capsys, "relevance", "open-holdout", "--decided-by", "CRD-01", "--reason", "rc frozen")
    assert code == 0 and "data/relevance/received.json: opening entry updated" in out
    code, _, _ = run(capsys, "relevance", "intake", "--check")
    assert code == 0
    assert str(secret) not in out

