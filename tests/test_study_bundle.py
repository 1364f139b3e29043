"""assay.study.bundle: the blind disagreement bundle and every kind of bad decision."""

from __future__ import annotations

import json

import pytest

from assay.core.errors import InputError
from assay.study.evidence import EvidenceRoot
from assay.study.bundle import build_bundle, check_decisions, write_bundle
from assay.study.receipt import build_receipt, write_receipt
from study_helpers import DECISIONS, jsonl, make_split


def ready(tmp_path, **kw):
    root = make_split(tmp_path, **kw)
    write_receipt(root, "development", build_receipt(root, "development", resamples=200))
    write_bundle(root, "development", build_bundle(root, "development"))
    return root


def test_bundle_holds_only_disagreements_in_packet_order_with_unattributed_values(tmp_path):
    root = ready(tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "development" / "bundle.jsonl").read_text().splitlines()]
    assert [(r["query_id"], r["document_id"]) for r in rows] == list(DECISIONS)
    # each field's two values sorted on its own, never (A, B); agreed fields left out
    assert [r["disputed"] for r in rows] == [
        {"relevance": [0, 1]},
        {"relevance": [0, 2], "acceptable_citation_ids": [[], ["doc-00000000b3"]]},  # A: 2 and [b3]; B: 0 and []
        {"temporal_classification": ["current", "historical"]},  # A: current, B: historical
        {"relevance": [-1, 0]}]
    assert rows[1]["cited_documents"] == [{"document_id": "doc-00000000b3", "title": "title doc-00000000b3",
                                           "text": "text of doc-00000000b3"}]
    assert rows[0]["cited_documents"] == []
    assert set(rows[0]) == {"query_id", "query", "document_id", "title", "text", "disputed", "cited_documents"}
    decisions = check_decisions(root, "development")
    assert decisions[("q-002", "doc-00000000b3")].reason == "scope"
    assert decisions[("q-002", "doc-00000000b3")].decided() == {"relevance": 2,
                                                                "acceptable_citation_ids": ("doc-00000000b3",)}


def test_citation_sets_in_another_order_are_not_a_disagreement(tmp_path):
    root = make_split(tmp_path)
    folder = tmp_path / "development"
    for who in "AB":
        rows = [json.loads(line) for line in (folder / f"judgments_{who}.jsonl").read_text().splitlines()]
        ids = ["doc-00000000a1", "doc-00000000a3"]
        rows[0]["acceptable_citation_ids"] = ids if who == "A" else [*reversed(ids), ids[0]]
        jsonl(folder / f"judgments_{who}.jsonl", rows)
    write_receipt(root, "development", build_receipt(root, "development", resamples=200))
    assert ("q-001", "doc-00000000a1") not in {(r.query_id, r.document_id) for r in build_bundle(root, "development")}


def test_bundle_is_the_same_whoever_said_what(tmp_path):
    ready(tmp_path)
    first = (tmp_path / "development" / "bundle.jsonl").read_bytes()
    folder = tmp_path / "development"
    a, b = (folder / "judgments_A.jsonl").read_bytes(), (folder / "judgments_B.jsonl").read_bytes()
    (folder / "judgments_A.jsonl").write_bytes(b)
    (folder / "judgments_B.jsonl").write_bytes(a)
    root = EvidenceRoot(tmp_path)
    write_receipt(root, "development", build_receipt(root, "development", resamples=200))
    write_bundle(root, "development", build_bundle(root, "development"))
    assert (folder / "bundle.jsonl").read_bytes() == first


def test_bundle_fields_do_not_pair_up_across_fields(tmp_path):
    """Swapping one field's values between A and B on a row disputed on two fields leaves the bundle as it was."""
    ready(tmp_path)
    folder = tmp_path / "development"
    first = (folder / "bundle.jsonl").read_bytes()
    rows = {who: [json.loads(line) for line in (folder / f"judgments_{who}.jsonl").read_text().splitlines()]
            for who in "AB"}
    i = 5  # (q-002, b3): A 2 and [b3], B 0 and []; now A 2 and [], B 0 and [b3]
    rows["A"][i]["acceptable_citation_ids"], rows["B"][i]["acceptable_citation_ids"] = [], ["doc-00000000b3"]
    for who in "AB":
        jsonl(folder / f"judgments_{who}.jsonl", rows[who])
    root = EvidenceRoot(tmp_path)
    write_receipt(root, "development", build_receipt(root, "development", resamples=200))
    write_bundle(root, "development", build_bundle(root, "development"))
    assert (folder / "bundle.jsonl").read_bytes() == first


def test_no_bundle_before_the_receipt(tmp_path):
    root = make_split(tmp_path)
    with pytest.raises(InputError, match="no agreement receipt"):
        build_bundle(root, "development")


BASE = [{"query_id": q, "document_id": d, **decided} for (q, d), decided in DECISIONS.items()]


@pytest.mark.parametrize("edit, expected", [
    (lambda rows: rows[0].pop("reason"), "decisions.jsonl:1: field 'reason': is required but missing"),
    (lambda rows: rows[1].update(reason="taste"), "decisions.jsonl:2: field 'reason'"),
    (lambda rows: rows[1].update(reason=""), "decisions.jsonl:2: field 'reason'"),
    (lambda rows: rows[3].update(relevance=5), "decisions.jsonl:4: field 'relevance'"),
    (lambda rows: rows[3].update(relevance=True), "decisions.jsonl:4: field 'relevance': True is not one of 2, 1, 0, -1"),
    (lambda rows: rows[2].update(temporal_classification="recent"), "decisions.jsonl:3: field 'temporal_classification'"),
    (lambda rows: rows[1].update(acceptable_citation_ids="doc-00000000b3"),
     "decisions.jsonl:2: field 'acceptable_citation_ids'"),
    (lambda rows: rows[1].update(acceptable_citation_ids=["doc-00000000c1"]),
     "decisions.jsonl:2: field 'acceptable_citation_ids': 'doc-00000000c1' is not a document of query 'q-002'"),
    (lambda rows: rows[1].pop("acceptable_citation_ids"),
     "decisions.jsonl:2: field 'acceptable_citation_ids': A and B disagree on acceptable_citation_ids of pair "
     "('q-002', 'doc-00000000b3') and the decision gives no final value"),
    (lambda rows: rows[2].update(temporal_classification=None),
     "decisions.jsonl:3: field 'temporal_classification': A and B disagree"),
    (lambda rows: rows[0].update(abstention_correct=True),
     "decisions.jsonl:1: field 'abstention_correct': A and B agreed on abstention_correct of pair "
     "('q-001', 'doc-00000000a2'): only disputed fields are decided"),
    (lambda rows: rows[0].update(abstention_correct="yes"), "decisions.jsonl:1: field 'abstention_correct'"),
    (lambda rows: rows[3].update(who="ARB-C01"), "decisions.jsonl:4: field 'who'"),
    (lambda rows: rows[0].update(document_id="doc-00000000zz"), "decisions.jsonl:1: field 'document_id': pair ('q-001', 'doc-00000000zz') is not in the bundle"),
    (lambda rows: rows.append(dict(rows[0])), "decisions.jsonl:5: field 'document_id': pair ('q-001', 'doc-00000000a2') is decided twice (first on line 1)"),
    (lambda rows: rows.pop(1), "bundle.jsonl:2: pair ('q-002', 'doc-00000000b3') has no decision"),
])
def test_every_bad_decision_is_refused_at_its_line(tmp_path, edit, expected):
    root = ready(tmp_path)
    rows = [dict(r) for r in BASE]
    edit(rows)
    jsonl(tmp_path / "development" / "decisions.jsonl", rows)
    with pytest.raises(InputError) as err:
        check_decisions(root, "development")
    assert expected in str(err.value)
    assert "$ASSAY_EVIDENCE_ROOT/development/" in str(err.value) and str(tmp_path) not in str(err.value)


def test_a_decisions_line_that_is_not_json_is_refused(tmp_path):
    root = ready(tmp_path)
    path = tmp_path / "development" / "decisions.jsonl"
    path.write_text(path.read_text() + "{not json\n")
    with pytest.raises(InputError, match=r"decisions.jsonl:5: not valid JSON"):
        check_decisions(root, "development")
