"""assay.study.qrels: A, B and the arbiter side by side, the final grade in TREC form, originals untouched."""

from __future__ import annotations

import hashlib
import json

import pytest

from assay.core.errors import InputError
from assay.relevance.trec import read_qrels
from assay.study.bundle import build_bundle, write_bundle
from assay.study.qrels import frozen_rows, write_frozen
from assay.study.receipt import build_receipt, write_receipt
from study_helpers import jsonl, make_split


def adjudicated(tmp_path):
    root = make_split(tmp_path)
    write_receipt(root, "development", build_receipt(root, "development", resamples=200))
    write_bundle(root, "development", build_bundle(root, "development"))
    return root


def test_frozen_rows_keep_every_grade_and_the_trec_file_the_final_one(tmp_path):
    root = adjudicated(tmp_path)
    folder = tmp_path / "development"
    originals = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("judgments_*.jsonl")}
    originals["decisions.jsonl"] = hashlib.sha256((folder / "decisions.jsonl").read_bytes()).hexdigest()
    write_frozen(root, "development", frozen_rows(root, "development"))
    rows = [json.loads(line) for line in (folder / "qrels_frozen.jsonl").read_text().splitlines()]
    assert len(rows) == 8
    by_pair = {(r["query_id"], r["document_id"]): r for r in rows}
    assert by_pair[("q-001", "doc-00000000a1")] == {
        "query_id": "q-001", "document_id": "doc-00000000a1", "doc_id": "pol-1", "reason": None,
        "relevance": {"a": 2, "b": 2, "c": None, "final": 2},
        "abstention_correct": {"a": False, "b": False, "c": None, "final": False},
        "acceptable_citation_ids": {"a": ["doc-00000000a1"], "b": ["doc-00000000a1"], "c": None,
                                    "final": ["doc-00000000a1"]},
        "temporal_classification": {"a": "current", "b": "current", "c": None, "final": "current"}}
    # A: 2 and cites b3, B: 0 and cites nothing; the arbiter decided both fields
    b3 = by_pair[("q-002", "doc-00000000b3")]
    assert (b3["doc_id"], b3["reason"]) == ("pol-6", "scope")
    assert b3["relevance"] == {"a": 2, "b": 0, "c": 2, "final": 2}
    assert b3["acceptable_citation_ids"] == {"a": ["doc-00000000b3"], "b": [], "c": ["doc-00000000b3"],
                                             "final": ["doc-00000000b3"]}
    assert b3["temporal_classification"] == {"a": "current", "b": "current", "c": None, "final": "current"}
    # a pair disputed on its temporal class only: relevance agreed, the arbiter's class is final
    c1 = by_pair[("q-003", "doc-00000000c1")]
    assert c1["temporal_classification"] == {"a": "current", "b": "historical", "c": "current", "final": "current"}
    assert c1["relevance"] == {"a": 1, "b": 1, "c": None, "final": 1} and c1["reason"] == "temporal"
    assert by_pair[("q-003", "doc-00000000c2")]["relevance"]["final"] == -1
    qrels = read_qrels(folder / "qrels.trec").table
    assert dict(zip(qrels["docno"], qrels["grade"], strict=True)) == {"pol-1": 2, "pol-2": 1, "pol-3": -1, "pol-4": 1, "pol-5": 0,
                                                         "pol-6": 2, "pol-7": 1, "pol-8": -1}
    assert (folder / "qrels.trec").read_text().startswith("# frozen qrels of the development split")
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("judgments_*.jsonl")}
    after["decisions.jsonl"] = hashlib.sha256((folder / "decisions.jsonl").read_bytes()).hexdigest()
    assert after == originals


def test_a_pool_key_without_judgments_is_refused(tmp_path):
    root = adjudicated(tmp_path)
    pool = tmp_path / "development" / "pool.jsonl"
    rows = [json.loads(line) for line in pool.read_text().splitlines()]
    rows.append({"query_id": "q-003", "document_id": "doc-00000000c9", "doc_id": "pol-9", "position": 3})
    jsonl(pool, rows)
    with pytest.raises(InputError, match=r"pool.jsonl:9: field 'document_id': pair \('q-003', 'doc-00000000c9'\) has no judgments"):
        frozen_rows(root, "development")


def test_frozen_qrels_need_a_decision_for_every_disagreement(tmp_path):
    root = adjudicated(tmp_path)
    jsonl(tmp_path / "development" / "decisions.jsonl", [])
    with pytest.raises(InputError, match="has no decision"):
        frozen_rows(root, "development")
