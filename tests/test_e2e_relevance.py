"""End-to-end: the retrieve and score_retrieval stages under the real `dvc repro`: the demo's scores, and a
refusal on a copy of the small project (conftest.small_project)."""

import json
import sys

import pytest

from conftest import run

pytestmark = pytest.mark.e2e
MODES = ("lexical", "semantic", "hybrid", "reranked", "graph")


def test_every_mode_is_scored_on_synthetic_qrels(reproduced):
    for mode in MODES:
        assert (reproduced / f"data/derived/relevance/runs/{mode}.trec").stat().st_size > 0
        m = json.loads((reproduced / f"metrics/relevance/{mode}.json").read_text(encoding="utf-8"))
        assert m["synthetic_qrels"] == 1 and m["queries"]["scored"] == 74 and len(m["thresholds"]) == 7
    assert "Synthetic qrels" in (reproduced / "reports/relevance/summary.md").read_text(encoding="utf-8")


def test_a_mode_with_another_manifest_is_refused(small_copy):
    side = small_copy / "data/derived/relevance/runs/graph.json"
    data = json.loads(side.read_text(encoding="utf-8"))
    data["manifest"]["libraries"]["networkx"] = "0.0"
    side.write_text(json.dumps(data), encoding="utf-8")
    proc = run([sys.executable, "-m", "assay.stages.score_retrieval"], small_copy, check=False)
    assert proc.returncode == 2
    assert "mode 'graph' differs from 'hybrid' in libraries.networkx" in proc.stderr
