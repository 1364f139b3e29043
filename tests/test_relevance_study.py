"""The study files: the committed demo is valid and regenerates byte for byte; bad rows are named."""

import json
import subprocess
import sys
from collections import Counter

import pytest

from assay.core.errors import InputError
from assay.relevance.corpus import load_documents, load_queries
from assay.relevance.trec import read_qrels

from conftest import ROOT

DEMO = ROOT / "data/relevance"


def test_demo_has_the_promised_shape():
    docs, queries = load_documents(str(DEMO / "corpus.jsonl")), load_queries(str(DEMO / "queries.jsonl"))
    assert len(docs) >= 300 and len(queries) >= 80
    assert set(Counter(q.task for q in queries)) == {"current", "historical", "trace", "abstain", "link"}
    assert all(d.valid_to is not None for d in docs if d.superseded_by)
    qrels = read_qrels(DEMO / "qrels.synthetic.trec")
    assert set(qrels.table["grade"]) == {-1, 0, 1, 2}
    assert (DEMO / "qrels.synthetic.trec").read_text().startswith("# SYNTHETIC")


def test_generator_is_deterministic(tmp_path):
    before = {p.name: p.read_bytes() for p in DEMO.glob("*") if p.suffix in (".jsonl", ".trec")}
    subprocess.run([sys.executable, str(DEMO / "make_demo.py")], check=True, capture_output=True)
    after = {p.name: p.read_bytes() for p in DEMO.glob("*") if p.suffix in (".jsonl", ".trec")}
    assert before == after


def test_bad_rows_are_named(tmp_path):
    p = tmp_path / "q.jsonl"
    rows = [{"query_id": "a", "task": "current", "text": "y", "acceptable_citation_ids": ["d"]},
            {"query_id": "a", "task": "current", "text": "y", "acceptable_citation_ids": ["d"]},
            {"query_id": "b", "task": "abstain", "text": "x", "acceptable_citation_ids": ["d"]}]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError) as e:
        load_queries(str(p))
    assert f"{p}:2: field 'query_id'" in str(e.value)
    assert f"{p}:3: acceptable_citation_ids must be empty exactly when task is abstain" in str(e.value)
    c = tmp_path / "c.jsonl"
    c.write_text(json.dumps({"doc_id": "d", "family": "f", "kind": "note", "title": "t", "text": "x",
                             "valid_from": "2025-01-01", "mentions": ["ghost"]}) + "\n")
    with pytest.raises(InputError, match=r"c.jsonl:1: field 'mentions': 'ghost' is not a document id"):
        load_documents(str(c))
