"""End-to-end: the real `dvc repro` on a fresh copy of the repository.

The demo is reproduced once per session (conftest.reproduced) for the tests about its own numbers and
the committed outputs; tests about any reproduced project work on private copies of the small project
with every part (conftest.small_project), so only the stages downstream of a change re-run, on 30 cases.
"""

import json
from pathlib import Path

import pytest

from conftest import BIN, ROOT, run

pytestmark = pytest.mark.e2e
DVC = str(BIN / "dvc")


def metrics(root: Path, name: str) -> dict:
    return json.loads((root / "metrics" / name).read_text(encoding="utf-8"))


def test_repro_writes_the_foundation_metrics(reproduced):
    d = metrics(reproduced, "dataset.json")
    assert d["cases"] >= 150 and d["gaps"] == 0  # every task x set cell is filled
    prov = json.loads((reproduced / "reports/provenance/validate.json").read_text(encoding="utf-8"))
    assert len(prov["details"]["dataset_hash"]) == 64
    s = metrics(reproduced, "split.json")
    assert s["dev"] + s["holdout"] == d["cases"] and s["holdout"] > 0
    k = metrics(reproduced, "leakage.json")
    assert k["dev_holdout"] >= 1 and k["sources"] >= 2  # the demo plants a cross-split near-duplicate and source copies
    assert metrics(reproduced, "plan.json")["problems"] == 0
    report = json.loads((reproduced / "reports/leakage.json").read_text(encoding="utf-8"))
    assert "paraphrase" in report["limitation"]


def test_committed_outputs_match_a_fresh_run(reproduced):
    """Byte-stability: what the repository commits is exactly what a fresh `dvc repro` writes."""
    for folder in ("metrics", "reports"):
        for f in sorted((ROOT / folder).rglob("*")):
            if f.is_file():
                rel = f.relative_to(ROOT)
                assert (reproduced / rel).read_bytes() == f.read_bytes(), f"{rel} differs after a fresh dvc repro"


def test_second_repro_runs_nothing_and_status_is_clean(small_copy):
    """No stage is always changed (the relevance study's evidence outside the repository is locked in
    data/relevance/received.json), so a second repro runs nothing and `dvc status` is clean."""
    import yaml

    stages = yaml.safe_load((small_copy / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    assert [name for name, stage in stages.items() if stage.get("always_changed")] == []
    again = run([DVC, "repro"], small_copy)
    assert "Running stage" not in again.stdout
    assert run([DVC, "status"], small_copy).stdout.strip() == "Data and pipelines are up to date."
    assert run(["git", "status", "--porcelain", "--", "metrics", "reports", "dvc.lock"], small_copy).stdout == ""


def test_bad_case_row_fails_repro_and_leaves_outputs_untouched(small_copy):
    cases = small_copy / "data/cases.jsonl"
    before = {p: p.read_bytes() for p in (small_copy / "metrics").glob("*.json")}
    lines = cases.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[2])
    row["task"] = "lookups"
    lines[2] = json.dumps(row, ensure_ascii=False)
    lines.insert(5, "{broken")
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = run([DVC, "repro", "validate"], small_copy, check=False)
    assert proc.returncode != 0
    assert "data/cases.jsonl:6: not valid JSON" in proc.stderr + proc.stdout
    assert not list((small_copy / "metrics").glob(".*.tmp")) and not list((small_copy / "data/derived").glob(".*.tmp"))
    for p, data in before.items():  # the failing stage's own outputs too: they are persist: true
        assert p.read_bytes() == data


def test_strict_plan_fails_the_stage(small_copy):
    plan = small_copy / "data/plan.yaml"
    text = plan.read_text(encoding="utf-8")
    plan.write_text(text.replace("gate: block", "gate: report"), encoding="utf-8")
    params = small_copy / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace("strict: false", "strict: true"), encoding="utf-8")
    proc = run([DVC, "repro", "plan"], small_copy, check=False)
    assert proc.returncode != 0
    assert "problem(s) and plan.strict is true" in proc.stderr + proc.stdout


def _lists(value, path=""):
    if isinstance(value, list):
        yield path
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _lists(v, f"{path}.{k}")


def test_metrics_hold_scalars_and_nested_objects_only(reproduced):
    """DVC drops lists from metrics files; every list belongs in reports/."""
    files = sorted((reproduced / "metrics").rglob("*.json"))
    assert len(files) >= 12
    for f in files:
        assert list(_lists(json.loads(f.read_text(encoding="utf-8")))) == [], f.name
