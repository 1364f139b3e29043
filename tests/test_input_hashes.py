"""Freshness inputs (assay.release.input_hashes.current_inputs) in process, on a copy of the committed
repository: each hash restated with hashlib and checked against the committed provenance files, paths
taken from params `inputs`, missing inputs, per-version answers files, no dependence on the working
directory."""

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml

from assay.core.errors import AssayError
from assay.release.input_hashes import current_inputs

from conftest import ROOT


def file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_sha(folder: Path) -> str:
    """The documented tree hash: for every non-hidden file, sorted by relative path,
    ``relative/path NUL hex-sha256 LF``, all hashed together."""
    lines = b"".join(f.relative_to(folder).as_posix().encode() + b"\0" + file_sha(f).encode() + b"\n"
                     for f in sorted(folder.rglob("*")) if f.is_file() and not f.name.startswith("."))
    return hashlib.sha256(lines).hexdigest()


def recorded(stage: str) -> dict[str, str]:
    """The inputs the committed provenance file of ``stage`` names."""
    return json.loads((ROOT / "reports" / "provenance" / f"{stage}.json").read_text(encoding="utf-8"))["inputs"]


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """Run from a folder that is not the repository: nothing may be read relative to it."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def test_hashes_restated_and_as_the_committed_stages_recorded_them(committed_repo, elsewhere):
    inputs = current_inputs(committed_repo)
    data = committed_repo / "data"
    assert set(inputs) == {"plan", "cases_file", "corpus", "sources", "pairs", "guidelines", "tools", "split", "cases",
                           "labels", "prompt", "run_baseline", "run_candidate", "evaluate_baseline:source",
                           "evaluate_candidate:source", "review_demo:snapshot", "review_compare_demo:snapshot",
                           "judge_compare:replies", "metrics/calibration.json"}
    expected = {"plan": file_sha(data / "plan.yaml"), "metrics/calibration.json": file_sha(committed_repo / "metrics/calibration.json"), "cases_file": file_sha(data / "cases.jsonl"),
                "review_demo:snapshot": file_sha(data / "reviews" / "demo.jsonl"),
                "corpus": tree_sha(data / "corpus"), "sources": tree_sha(data / "sources"),
                "pairs": file_sha(data / "pairs.jsonl"), "guidelines": file_sha(data / "guidelines.md"),
                "tools": file_sha(data / "tools.yaml"),
                "cases": "f7b73613f42c0d1ce611212de82eb0ba2f27882e1da4f7416a2aacd4586958ab"}  # test_dataset.py
    assert {name: inputs[name]() for name in expected} == expected
    committed = {**recorded("plan"), **recorded("validate"), **recorded("leakage"), **recorded("agreement")}
    assert {k: expected[k] for k in committed} == committed
    # the judge's inputs, as probe and calibrate recorded them: the prompt in use (judge.prompt_version 2)
    # is the SHA-256 of its bytes; the label set's hash is order-independent (test_calibration restates it)
    assert inputs["prompt"]() == file_sha(data / "prompts" / "pairwise_v2.md") == recorded("probe")["prompt"]
    assert inputs["labels"]() == recorded("probe")["labels"] == recorded("calibrate")["labels"]
    assert recorded("review_demo") == {"snapshot": expected["review_demo:snapshot"]}


def test_paths_come_from_the_inputs_params(committed_repo, elsewhere):
    moved = committed_repo / "elsewhere" / "the-plan.yaml"
    moved.parent.mkdir()
    shutil.move(committed_repo / "data" / "plan.yaml", moved)
    params = yaml.safe_load((committed_repo / "params.yaml").read_text(encoding="utf-8"))
    params["inputs"]["plan"] = "elsewhere/the-plan.yaml"
    (committed_repo / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    assert current_inputs(committed_repo)["plan"]() == recorded("plan")["plan"]


def test_a_missing_input_raises_when_asked_for_and_only_then(committed_repo, elsewhere):
    inputs = current_inputs(committed_repo)  # data/derived/ is not committed: no split or run tables
    with pytest.raises((AssayError, OSError)):
        inputs["split"]()
    with pytest.raises((AssayError, OSError)):
        inputs["run_candidate"]()
    (committed_repo / "data" / "derived").mkdir()
    (committed_repo / "data" / "derived" / "split.parquet").write_bytes(b"table")
    assert inputs["split"]() == hashlib.sha256(b"table").hexdigest()


def test_each_version_source_is_hashed_for_that_version_only(tmp_path, elsewhere):
    (tmp_path / "answers.jsonl").write_text('{"id": "g01"}\n', encoding="utf-8")
    plugin = tmp_path / "plugin"
    (plugin / "__pycache__").mkdir(parents=True)
    (plugin / "mod.py").write_text("def answer(r):\n    return ''\n", encoding="utf-8")
    (plugin / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"compiled")
    (tmp_path / "params.yaml").write_text(
        "rag:\n  versions:\n    mine:\n      answers: answers.jsonl\n      source: answers.jsonl\n"
        "    fn:\n      source: plugin\n    reference:\n      system: reference\n",
        encoding="utf-8")
    inputs = current_inputs(tmp_path)
    assert {k for k in inputs if k.startswith(("run_", "evaluate_"))} == {
        "run_mine", "run_fn", "run_reference", "evaluate_mine:source", "evaluate_fn:source"}
    assert inputs["evaluate_mine:source"]() == file_sha(tmp_path / "answers.jsonl")
    # a folder: relative name and file hash per line, sorted, __pycache__ left out (written on import)
    line = b"mod.py\0" + file_sha(plugin / "mod.py").encode() + b"\n"
    assert inputs["evaluate_fn:source"]() == hashlib.sha256(line).hexdigest()


def test_probe_inputs_follow_the_judge_params_under_root(committed_repo, elsewhere):
    params = yaml.safe_load((committed_repo / "params.yaml").read_text(encoding="utf-8"))
    params["judge"]["prompt_version"] = 1
    (committed_repo / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    inputs = current_inputs(committed_repo)
    assert inputs["prompt"]() == file_sha(committed_repo / "data" / "prompts" / "pairwise_v1.md")
    (committed_repo / "data" / "pairs.jsonl").unlink()
    with pytest.raises((AssayError, OSError)):
        inputs["labels"]()


def counted(monkeypatch, module, name: str) -> list[int]:
    """Count the calls of ``module.name`` (still calling it); the list grows by one per call."""
    calls: list[int] = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *args, **kwargs: calls.append(1) or real(*args, **kwargs))
    return calls


def test_the_gate_takes_the_recorded_label_hash_while_the_pairs_bytes_match_and_still_catches_a_change(
        committed_repo, monkeypatch):
    import assay.judge.calibration as calibration
    from assay.release.gather import gather

    pairs = committed_repo / "data/pairs.jsonl"
    probe = committed_repo / "reports/provenance/probe.json"
    record = json.loads(probe.read_text(encoding="utf-8"))
    record["inputs"]["pairs"] = file_sha(pairs)  # what the probe stage records now (the committed demo output predates it)
    probe.write_text(json.dumps(record), encoding="utf-8")
    parsed = counted(monkeypatch, calibration, "labels_hash")

    fresh = {c.name: c for c in gather(committed_repo)[0] if c.name.startswith("fresh")}
    assert parsed == []  # the pairs' bytes are as probe recorded them: their labels are not parsed again
    assert [fresh[n].status for n in ("fresh calibrate", "fresh probe", "fresh judge calibration")] == ["pass"] * 3

    rows = pairs.read_text(encoding="utf-8").splitlines()
    row = json.loads(rows[3])
    row["final"] = {"a": "b", "b": "tie", "tie": "a"}[row["final"]]  # one human label changed
    rows[3] = json.dumps(row, ensure_ascii=False)
    pairs.write_text("\n".join(rows) + "\n", encoding="utf-8")
    fresh = {c.name: c for c in gather(committed_repo)[0] if c.name.startswith("fresh")}
    assert parsed == [1]  # the bytes changed: parsed once, for every check that needs the labels
    assert (fresh["fresh calibrate"].status, fresh["fresh calibrate"].detail) == ("stale", "changed since the last run: labels")
    assert (fresh["fresh probe"].status, fresh["fresh probe"].detail) == ("stale", "changed since the last run: labels, pairs")
    assert fresh["fresh judge calibration"].status == "stale" and "labels" in fresh["fresh judge calibration"].detail


def test_records_that_disagree_about_a_content_hash_prove_nothing():
    from assay.release.input_hashes import recorded_first

    calls: list[str] = []
    now = {"pairs": lambda: calls.append("pairs") or "p1", "labels": lambda: calls.append("labels") or "L-now",
           "cases_file": lambda: calls.append("cases_file") or "c1", "cases": lambda: calls.append("cases") or "C-now"}
    # probe and an edited record both match the bytes but name different label sets: the labels are computed
    fast = recorded_first({"probe": {"pairs": "p1", "labels": "L1"}, "edited": {"pairs": "p1", "labels": "L9"},
                           "split": {"cases": "C-old"}}, now)
    assert fast["labels"]() == "L-now" and fast["labels"]() == "L-now" and fast["pairs"]() == "p1"
    assert fast["cases"]() == "C-now"  # no record pairs the dataset hash with the cases file's bytes
    assert calls == ["pairs", "labels", "cases"]  # each computed once; cases_file never needed
