"""The retrieve stage: one process runs every mode of relevance.modes and writes each mode's run and side file;
dvc.yaml makes it one stage whose output is the runs folder score_retrieval reads."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys

import pytest
import yaml

from assay.pipeline.generate import dvc_yaml
from assay.pipeline.parts import PARTS
from assay.relevance.manifest import build_manifest
from assay.relevance.modes.runner import run_mode
from assay.relevance.params import RelevanceParams
from assay.artifacts.registry import RETRIEVAL_RUNS
from assay.relevance.scoring import read_modes
from assay.relevance.corpus import load_documents, load_queries
from assay.relevance.trec import read_run, write_run

from conftest import ROOT

RUNS = RETRIEVAL_RUNS.template

TOPICS = ["router swap fee", "esim activation time", "roaming day pack price", "student discount proof",
          "number port form", "outage credit amount"]


def _project(tmp_path, modes):
    docs = [{"doc_id": f"d{i}", "family": f"f{i}", "kind": "policy", "title": topic, "valid_from": "2025-01-01",
             "text": f"The {topic} policy. Ask about the {topic} in the app or at a shop."}
            for i, topic in enumerate(TOPICS)]
    queries = [{"query_id": f"q{i}", "task": "current", "text": f"What is the {topic}?",
                "acceptable_citation_ids": [f"d{i}"]} for i, topic in enumerate(TOPICS)]
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    relevance = {"corpus": "corpus.jsonl", "queries": "queries.jsonl", "modes": modes, "depth": 10,
                 "semantic": {"components": 4}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"relevance": relevance}), encoding="utf-8")
    return RelevanceParams.model_validate(relevance, context={"root": tmp_path})


def _round_trip(result, path):
    """``result``'s run written to ``path`` and read back, as score_retrieval reads the stage's runs."""
    write_run(path, result.run)
    return read_run(path)


@pytest.mark.parametrize("modes", [["lexical", "semantic", "hybrid", "reranked", "graph"], ["graph", "lexical"]])
def test_one_run_writes_every_listed_mode_and_only_those(tmp_path, monkeypatch, modes):
    params = _project(tmp_path, modes)
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(ROOT / "stages/retrieve.py"), run_name="retrieve")["main"]()
    written = sorted(p.name for p in (tmp_path / RUNS).iterdir())
    assert written == sorted(f"{m}.{ext}" for m in modes for ext in ("json", "trec"))
    # each mode's run is what run_mode gives on its own, and every side file carries the one manifest
    documents, queries = load_documents("corpus.jsonl"), load_queries("queries.jsonl")
    manifest = build_manifest("corpus.jsonl", "queries.jsonl", params.model_dump(mode="json"))
    for mode, got in read_modes(modes).items():
        alone = run_mode(mode, params, documents, queries)
        assert got.run.table.equals(_round_trip(alone, tmp_path / f"{mode}.alone.trec").table), mode
        assert got.side["mode"] == mode and got.side["manifest"] == manifest
        assert got.side["latency_ms"] == alone.latency_ms and got.side["heuristic"] == alone.heuristic


def test_the_stage_takes_no_mode_argument(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "stages/retrieve.py"), "lexical"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and "usage: python stages/retrieve.py" in proc.stderr


def test_dvc_yaml_has_one_retrieve_stage_whose_folder_score_retrieval_reads():
    stages = yaml.safe_load(dvc_yaml(PARTS, "source"))["stages"]
    assert not [name for name in stages if name.startswith("retrieve@")] and "foreach" not in stages["retrieve"]
    assert stages["retrieve"]["cmd"] == "python stages/retrieve.py"
    assert stages["retrieve"]["outs"] == [RUNS] and RUNS in stages["score_retrieval"]["deps"]
    assert stages["retrieve"]["params"] == ["relevance"]  # each mode's manifest hashes the whole section
