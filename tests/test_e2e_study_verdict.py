"""End-to-end: the whole human relevance study (receipt to verdict) under the real `dvc repro` on the demo's synthetic evidence."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import BIN, ROOT, run

pytestmark = pytest.mark.e2e
DEMO = "data/relevance/evidence.synthetic"


def test_repro_runs_the_whole_study_byte_stably(reproduced):
    for name in ("metrics/relevance/verdict.json", "reports/relevance/verdict.md", "reports/relevance/study/receipt.json",
                 "reports/relevance/study/qrels.json", "reports/relevance/study/evaluation.json"):
        assert (reproduced / name).read_bytes() == (ROOT / name).read_bytes(), name
    verdict = json.loads((reproduced / "metrics/relevance/verdict.json").read_text())
    assert verdict["passed"] == 0 and verdict["synthetic"] == 1 and verdict["holdout_opened"] == 1
    assert verdict["conditions"] == {"judgments_and_receipt": 1, "adjudicated": 1, "hashes_verified": 1, "holdout_opened": 1,
                                     "human_evidence": 0, "same_runtime": 1, "all_published": 1}
    assert sorted(verdict["sealed_holdout"]) == ["graph", "hybrid", "lexical", "reranked", "semantic"]
    page = (reproduced / "reports/relevance/verdict.md").read_text()
    assert "**Synthetic evidence.**" in page and "**Verdict: NOT PASSED**" in page and "Unmet thresholds:" in page
    # committed evidence outputs are rewritten with the same bytes; the access log is ignored
    assert run(["git", "status", "--porcelain"], reproduced).stdout == ""
    log = [json.loads(line) for line in (reproduced / DEMO / "access.log").read_text().splitlines()]
    assert {"study_evaluate", "validate --allow-sealed"} <= {e["by"] for e in log}
    assert all(e["file"].startswith("sealed_holdout/") for e in log)


def test_an_unchanged_study_is_not_recomputed_downstream(repro_copy):
    proc = run([str(BIN / "dvc"), "repro"], repro_copy)
    assert "Stage 'study_verdict' didn't change, skipping" in proc.stdout
    assert "Running stage 'study_receipt'" in proc.stdout  # it reads the evidence, so it always runs


def test_a_changed_judgment_reaches_the_arbiter_step(repro_copy):
    path = repro_copy / DEMO / "development/judgments_B.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    a = {(r["query_id"], r["document_id"]): r["relevance"]
         for r in map(json.loads, (repro_copy / DEMO / "development/judgments_A.jsonl").read_text().splitlines())}
    i = next(i for i, r in enumerate(rows) if a[(r["query_id"], r["document_id"])] == r["relevance"] == 2)
    rows[i]["relevance"] = 0  # a new disagreement the arbiter never saw
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    proc = run([str(BIN / "dvc"), "repro"], repro_copy, check=False)
    assert proc.returncode != 0
    assert "Running stage 'study_receipt'" in proc.stdout and "Running stage 'study_bundle'" in proc.stdout
    said = proc.stdout + proc.stderr
    assert "has no decision in decisions.jsonl" in said and "return the decisions file to the arbiter" in said


def test_thresholds_changed_after_opening_make_the_verdict_refuse(repro_copy):
    path = repro_copy / "data/relevance/thresholds.yaml"
    path.write_text(path.read_text().replace("value: 0.95", "value: 0.50"))
    proc = run([str(BIN / "dvc"), "repro", "study_verdict"], repro_copy, check=False)
    assert proc.returncode != 0
    said = proc.stdout + proc.stderr
    assert "stage study_verdict:" in said and "a new pre-registration is needed" in said
    cli = run([str(BIN / "assay"), "relevance", "verdict"], repro_copy, check=False)
    assert cli.returncode == 2 and "new pre-registration is needed" in cli.stderr


def test_the_evidence_root_never_reaches_a_file_or_an_output(repro_copy, tmp_path, monkeypatch):
    secret = tmp_path / "vault-9c41d7e2b5"
    shutil.copytree(repro_copy / DEMO, secret)
    shutil.rmtree(repro_copy / DEMO)
    monkeypatch.setenv("ASSAY_EVIDENCE_ROOT", str(secret))
    outputs = [run([str(BIN / "dvc"), "repro", "-f", "-s", stage], repro_copy)
               for stage in ("study_check", "study_receipt", "study_bundle", "study_qrels", "study_evaluate", "study_verdict")]
    outputs.append(run([str(BIN / "assay"), "relevance", "validate", str(secret / "sealed_holdout/manifest.json")],
                       repro_copy, check=False))
    outputs.append(run([str(BIN / "assay"), "relevance", "verdict"], repro_copy, check=False))
    assert outputs[-2].returncode == 2 and outputs[-1].returncode == 1
    for proc in outputs:
        assert str(secret) not in proc.stdout + proc.stderr
    for f in repro_copy.rglob("*"):
        if f.is_file() and ".git" not in f.parts and ".dvc" not in f.parts:
            assert str(secret).encode() not in f.read_bytes(), f
    assert (repro_copy / "metrics/relevance/verdict.json").read_bytes() == (ROOT / "metrics/relevance/verdict.json").read_bytes()
