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


def test_bundle_holds_only_disagreements_in_packet_order_with_unattributed_grades(tmp_path):
    root = ready(tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "development" / "bundle.jsonl").read_text().splitlines()]
    assert [(r["query_id"], r["document_id"]) for r in rows] == list(DECISIONS)
    assert [r["grades"] for r in rows] == [[0, 1], [0, 2], [-1, 0]]  # sorted, not (A, B)
    assert set(rows[0]) == {"query_id", "query", "document_id", "title", "text", "grades"}
    assert check_decisions(root, "development")[("q-002", "doc-00000000b3")].reason == "scope"


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


def test_no_bundle_before_the_receipt(tmp_path):
    root = make_split(tmp_path)
    with pytest.raises(InputError, match="no agreement receipt"):
        build_bundle(root, "development")


BASE = [{"query_id": q, "document_id": d, "relevance": g, "reason": r} for (q, d), (g, r) in DECISIONS.items()]


@pytest.mark.parametrize("edit, expected", [
    (lambda rows: rows[0].pop("reason"), "decisions.jsonl:1: field 'reason': is required but missing"),
    (lambda rows: rows[1].update(reason="taste"), "decisions.jsonl:2: field 'reason'"),
    (lambda rows: rows[1].update(reason=""), "decisions.jsonl:2: field 'reason'"),
    (lambda rows: rows[2].update(relevance=5), "decisions.jsonl:3: field 'relevance'"),
    (lambda rows: rows[2].update(who="ARB-C01"), "decisions.jsonl:3: field 'who'"),
    (lambda rows: rows[0].update(document_id="doc-00000000zz"), "decisions.jsonl:1: field 'document_id': pair ('q-001', 'doc-00000000zz') is not in the bundle"),
    (lambda rows: rows.append(dict(rows[0])), "decisions.jsonl:4: field 'document_id': pair ('q-001', 'doc-00000000a2') is decided twice (first on line 1)"),
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
    with pytest.raises(InputError, match=r"decisions.jsonl:4: not valid JSON"):
        check_decisions(root, "development")
