"""assay.study.manifest: every hash and step checked; the sealed holdout needs --allow-sealed and an opening."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from assay.core.errors import InputError
from assay.core.io import write_json
from assay.study.manifest import FILES, ManifestBroken, validate_manifest
from assay.study.opening import HoldoutRefused, open_holdout
from study_helpers import adjudicate, make_split

THRESHOLDS = Path(__file__).resolve().parents[1] / "data/relevance/thresholds.yaml"


def study_in(tmp_path, monkeypatch, split="development"):
    """A fully adjudicated split under tmp_path/root with its manifest; the repository (and working
    directory) is tmp_path/repo."""
    repo = tmp_path / "repo"
    (repo / "data").mkdir(parents=True)
    monkeypatch.chdir(repo)
    (repo / "data/corpus.jsonl").write_text('{"doc_id": "pol-1"}\n')
    (repo / "data/relevance").mkdir()
    shutil.copy(THRESHOLDS, repo / "data/relevance/thresholds.yaml")  # registered where a project without a study file has it
    root = make_split(tmp_path / "root", split)
    adjudicate(root, split, "data/corpus.jsonl", str(repo / "data/relevance/thresholds.yaml"))
    return root, repo


def test_a_complete_development_manifest_validates(tmp_path, monkeypatch):
    root, repo = study_in(tmp_path, monkeypatch)
    lines = validate_manifest(root.file("development", "manifest.json"), repo=repo)
    assert sum(line.startswith("sha256 ok") for line in lines) == len(FILES) + 1
    assert [line.split()[-1] for line in lines if line.startswith("step ok")] == ["packets", "judgments", "receipt",
                                                                                 "adjudication", "qrels"]
    data = json.loads(root.file("development", "manifest.json").read_text())
    assert sorted(data["thresholds"]) == sorted(["recall_at_10", "ndcg_at_10", "mrr_at_10", "citation_provenance_accuracy",
                                                 "stale_answer_rate_max", "abstention_quality", "p95_latency_ms"])
    assert data["protocol_version"] == "assay-relevance-study/1" and data["runtime"]["python"]


@pytest.mark.parametrize("name", ["judgments_A.jsonl", "qrels.trec", "decisions.jsonl", "queries.jsonl"])
def test_a_changed_file_breaks_the_manifest(tmp_path, monkeypatch, name):
    root, repo = study_in(tmp_path, monkeypatch)
    path = root.file("development", name)
    path.write_bytes(path.read_bytes() + b"\n")
    with pytest.raises(ManifestBroken) as err:
        validate_manifest(root.file("development", "manifest.json"), repo=repo)
    assert err.value.exit_code == 2
    assert f"$ASSAY_EVIDENCE_ROOT/development/{name}: SHA-256 differs" in str(err.value)
    assert str(tmp_path) not in str(err.value)


def test_a_missing_file_and_a_changed_corpus_break_the_manifest(tmp_path, monkeypatch):
    root, repo = study_in(tmp_path, monkeypatch)
    root.file("development", "bundle.jsonl").unlink()
    (repo / "data/corpus.jsonl").write_text('{"doc_id": "pol-2"}\n')
    with pytest.raises(ManifestBroken) as err:
        validate_manifest(root.file("development", "manifest.json"), repo=repo)
    assert "bundle.jsonl: missing" in str(err.value) and "corpus data/corpus.jsonl" in str(err.value)


def test_an_incomplete_step_is_refused_even_when_the_hashes_match(tmp_path, monkeypatch):
    root, repo = study_in(tmp_path, monkeypatch)
    path = root.file("development", "qrels_frozen.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[1]["relevance"]["final"] = 2  # a=0, b=1, c=1: a forged final grade
    rows[6]["temporal_classification"]["final"] = "historical"  # a=current, b=historical, c=current
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    manifest = json.loads(root.file("development", "manifest.json").read_text())
    manifest["files"]["qrels_frozen.jsonl"] = hashlib.sha256(path.read_bytes()).hexdigest()
    write_json(root.file("development", "manifest.json"), manifest)
    with pytest.raises(InputError) as err:
        validate_manifest(root.file("development", "manifest.json"), repo=repo)
    assert "qrels_frozen.jsonl:2: field 'relevance.final': 2 is neither the agreed value nor the arbiter's" in str(err.value)
    assert "qrels_frozen.jsonl:7: field 'temporal_classification.final': 'historical' is neither" in str(err.value)


def test_sealed_manifest_is_refused_without_the_flag_and_before_opening(tmp_path, monkeypatch):
    root, repo = study_in(tmp_path, monkeypatch, "sealed_holdout")
    manifest = root.file("sealed_holdout", "manifest.json")
    with pytest.raises(HoldoutRefused) as err:
        validate_manifest(manifest, repo=repo)
    assert err.value.exit_code == 2 and "sealed holdout" in str(err.value) and "--allow-sealed" in str(err.value)
    with pytest.raises(HoldoutRefused, match="has not been opened"):
        validate_manifest(manifest, allow_sealed=True, repo=repo)
    assert not (root.path / "access.log").exists()
    open_holdout(root, "CRD-01", "release candidate frozen", repo / "data/relevance/thresholds.yaml")
    assert validate_manifest(manifest, allow_sealed=True, repo=repo)
    log = [json.loads(line) for line in (root.path / "access.log").read_text().splitlines()]
    assert [(e["by"], e["file"]) for e in log] == [("open-holdout", "opening.json"),
                                                   ("validate --allow-sealed", "sealed_holdout/manifest.json")]
    validate_manifest(manifest, allow_sealed=True, repo=repo)
    assert len((root.path / "access.log").read_text().splitlines()) == 3  # appended, never rewritten


@pytest.mark.parametrize(("edit", "named"), [
    ({"thresholds": {"recall_at_10": 0.1}}, "thresholds.recall_at_10: 0.1 is not the registered 0.8"),
    ({"thresholds": {"p95_latency_ms": "900"}}, "thresholds.p95_latency_ms: '900' is not the registered"),
    ({"status": "draft"}, "status 'draft' is not 'adjudicated'"),
    ({"thresholds_sha256": "0" * 64}, "thresholds_sha256 '0000000000000000'... is not the SHA-256 of the registered"),
])
def test_a_manifest_with_other_thresholds_or_status_is_refused(tmp_path, monkeypatch, edit, named):
    # each of these printed "valid" before the manifest's values were checked (issue 31)
    root, repo = study_in(tmp_path, monkeypatch)
    path = root.file("development", "manifest.json")
    manifest = json.loads(path.read_text())
    for key, value in edit.items():
        manifest[key] = {**manifest[key], **value} if isinstance(value, dict) else value
    write_json(path, manifest)
    with pytest.raises(ManifestBroken) as err:
        validate_manifest(path, repo=repo)
    assert named in str(err.value) and err.value.exit_code == 2


def test_the_registered_thresholds_are_the_study_files(tmp_path, monkeypatch):
    # a study file naming another thresholds file: the manifest is checked against that one
    root, repo = study_in(tmp_path, monkeypatch)
    path = root.file("development", "manifest.json")
    other = repo / "data/relevance/other.yaml"
    other.write_text((repo / "data/relevance/thresholds.yaml").read_text().replace("value: 0.80", "value: 0.85"))
    with pytest.raises(ManifestBroken, match="recall_at_10: 0.8 is not the registered 0.85"):
        validate_manifest(path, repo=repo, thresholds=other)
    assert validate_manifest(path, repo=repo, thresholds=repo / "data/relevance/thresholds.yaml")
