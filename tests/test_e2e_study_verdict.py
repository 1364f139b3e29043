"""End-to-end: the whole human relevance study (receipt to verdict) under the real `dvc repro` on the demo's synthetic evidence."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import BIN, ROOT, run

pytestmark = pytest.mark.e2e
DEMO = "data/relevance/evidence.synthetic"
UP_TO_DATE = "Data and pipelines are up to date."
STUDY = ["study_split", "study_pool", "study_scan", "study_check", "study_receipt", "study_bundle", "study_qrels",
         "study_evaluate", "study_verdict"]


def ran(proc) -> set[str]:
    """The stages `dvc repro` ran, from its output."""
    return {line.split("'")[1] for line in proc.stdout.splitlines() if line.startswith("Running stage")}


def test_repro_runs_the_whole_study_byte_stably(repro_copy):
    # a private copy: git and dvc write lock files as they run, and the reproduced demo is shared by every worker
    reproduced = repro_copy
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
    # the committed outputs are current, so nothing changed and DVC has nothing left to do
    assert run(["git", "status", "--porcelain"], reproduced).stdout == ""
    assert run([str(BIN / "dvc"), "status"], reproduced).stdout.strip() == UP_TO_DATE


def test_an_unchanged_study_is_not_recomputed(repro_copy):
    proc = run([str(BIN / "dvc"), "repro"], repro_copy)
    assert ran(proc) == set()
    assert "Stage 'study_receipt' didn't change, skipping" in proc.stdout


def gate_row(root, monkeypatch) -> tuple[int, dict]:
    """`assay study verdict` with the evidence root set: exit code, status and detail."""
    monkeypatch.setenv("ASSAY_EVIDENCE_ROOT", str(root / DEMO))
    proc = run([str(BIN / "assay"), "relevance", "verdict"], root, check=False)
    said = proc.stdout + proc.stderr
    status = said.split("relevance study verdict: ", 1)[1].split(":", 1)[0] if "relevance study verdict: " in said else None
    return proc.returncode, {"status": status, "detail": said}


def test_a_changed_judgment_is_stale_until_the_intake_then_reruns_check_and_what_follows(repro_copy, monkeypatch):
    code, row = gate_row(repro_copy, monkeypatch)
    assert row["status"] == "fail"  # the synthetic verdict, current
    path = repro_copy / DEMO / "development/judgments_A.jsonl"
    lines = path.read_text().splitlines()
    lines[0] = json.dumps(json.loads(lines[0]), separators=(",", ":"))  # other bytes, the same judgment
    path.write_text("".join(line + "\n" for line in lines))
    check = run([str(BIN / "assay"), "relevance", "intake", "--check"], repro_copy, check=False)
    assert check.returncode == 1 and "$ASSAY_EVIDENCE_ROOT/development/judgments_A.jsonl: differs" in check.stderr
    code, row = gate_row(repro_copy, monkeypatch)
    assert code == 2 and row["status"] == "stale" and "development/judgments_A.jsonl" in row["detail"]
    assert str(repro_copy / DEMO) not in row["detail"]
    run([str(BIN / "assay"), "relevance", "intake"], repro_copy)
    proc = run([str(BIN / "dvc"), "repro"], repro_copy)
    assert ran(proc) == set(STUDY[3:])  # check and what depends on it, nothing before, never the release gate
    assert run([str(BIN / "dvc"), "status"], repro_copy).stdout.strip() == UP_TO_DATE
    code, row = gate_row(repro_copy, monkeypatch)
    assert row["status"] == "fail"


def test_a_changed_grade_reaches_the_arbiter_step(repro_copy):
    path = repro_copy / DEMO / "development/judgments_B.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    a = {(r["query_id"], r["document_id"]): r["relevance"]
         for r in map(json.loads, (repro_copy / DEMO / "development/judgments_A.jsonl").read_text().splitlines())}
    i = next(i for i, r in enumerate(rows) if a[(r["query_id"], r["document_id"])] == r["relevance"] == 2)
    rows[i]["relevance"] = 0  # a new disagreement the arbiter never saw
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    run([str(BIN / "assay"), "relevance", "intake"], repro_copy)
    proc = run([str(BIN / "dvc"), "repro", "study_qrels"], repro_copy, check=False)
    assert proc.returncode != 0
    assert ran(proc) == {"study_check", "study_receipt", "study_bundle", "study_qrels"}
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
    # one dvc call runs the six stages in the order given, each alone (-s), as `assay verify` does
    outputs = [run([str(BIN / "dvc"), "repro", "-f", "-s", *STUDY[3:]], repro_copy)]
    assert ran(outputs[0]) == set(STUDY[3:])
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
    log = [json.loads(line) for line in (secret / "access.log").read_text().splitlines()]
    assert {"study_evaluate", "validate --allow-sealed"} <= {e["by"] for e in log}
    assert all(e["file"].startswith("sealed_holdout/") for e in log)
