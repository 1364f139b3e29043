"""Judgments against their packet: every bad kind at file:line, and a complete file accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.core.errors import InputError
from assay.study.judgments import FAULTS, VERDICT, IncompleteJudgments, check_judgments, require_complete

D1, D2, D3 = "doc-00000000a1", "doc-00000000b2", "doc-00000000c3"
PAIRS = [("q-001", D1), ("q-001", D2), ("q-002", D3)]


def packet(tmp_path: Path) -> Path:
    rows = [{"query_id": q, "query": f"question {q}", "document_id": d, "title": "t", "text": "body"} for q, d in PAIRS]
    p = tmp_path / "packet_A.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


def row(q: str, d: str, **over) -> dict:
    r = {"query_id": q, "document_id": d, "relevance": 2, "abstention_correct": False,
         "acceptable_citation_ids": [d], "temporal_classification": "current"}
    r.update(over)
    return r


def judgments(tmp_path: Path, rows: list, name: str = "judgments_A.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return p


def check(tmp_path, rows):
    return check_judgments(str(judgments(tmp_path, rows)), str(packet(tmp_path)), show=lambda p: Path(p).name)


def faults(checked) -> list[tuple[str, str]]:
    return [(kind, f"{p.path}:{p.line}") for kind, p in checked.faults]


def test_a_complete_file_passes_and_one_query_may_repeat_across_documents(tmp_path):
    checked = check(tmp_path, [row(q, d) for q, d in PAIRS])
    assert checked.complete and len(require_complete(checked, "j")) == 3
    assert checked.counts() == dict.fromkeys(FAULTS, 0)


def test_the_seed_example_row_is_accepted_as_is(tmp_path):
    seed = '{"query_id":"q-001","document_id":"doc-014","relevance":2,"abstention_correct":false,' \
           '"acceptable_citation_ids":["doc-014"],"temporal_classification":"current"}'
    p = tmp_path / "packet.jsonl"
    p.write_text(json.dumps({"query_id": "q-001", "query": "q", "document_id": "doc-014", "title": "t", "text": "x"})
                 + "\n", encoding="utf-8")
    # the packet's document id is not in the opaque form, so the packet is refused; the row itself is valid
    with pytest.raises(InputError, match="document_id"):
        check_judgments(str(judgments(tmp_path, [seed])), str(p))
    from assay.study.formats import JudgmentRow

    assert JudgmentRow.model_validate_json(seed).relevance == 2


def test_a_missing_row_is_named_at_the_packet_line(tmp_path):
    checked = check(tmp_path, [row(*PAIRS[0]), row(*PAIRS[2])])
    assert faults(checked) == [("missing", "packet_A.jsonl:2")]
    assert "('q-001', 'doc-00000000b2') has no judgment in judgments_A.jsonl" in checked.faults[0][1].message


def test_a_repeated_pair_is_named_at_the_later_line(tmp_path):
    checked = check(tmp_path, [row(*PAIRS[0]), row(*PAIRS[1]), row(*PAIRS[2]), row(*PAIRS[0], relevance=1, acceptable_citation_ids=[])])
    assert faults(checked) == [("repeated", "judgments_A.jsonl:4")]
    assert "already judged on line 1" in checked.faults[0][1].message
    assert [line for line, _ in checked.rows] == [1, 2, 3]  # the first row stands, the repeat is not used


def test_an_unknown_pair_is_named(tmp_path):
    checked = check(tmp_path, [row(*p) for p in PAIRS] + [row("q-002", D1)])
    assert faults(checked) == [("invalid", "judgments_A.jsonl:4"), ("unknown", "judgments_A.jsonl:4")]
    # the citation of D1 under q-002 is also outside the packet's documents of q-002


@pytest.mark.parametrize("field,value", [
    ("relevance", 3), ("relevance", -2), ("relevance", "2"), ("relevance", 1.5), ("relevance", True),
    ("relevance", None), ("temporal_classification", "stale"), ("temporal_classification", "Current"),
    ("abstention_correct", "false"), ("abstention_correct", 0), ("acceptable_citation_ids", "doc-00000000a1"),
])
def test_a_value_outside_its_set_is_named_with_its_field(tmp_path, field, value):
    rows = [row(*p) for p in PAIRS]
    rows[1][field] = value
    checked = check(tmp_path, rows)
    assert [k for k, _ in checked.faults] == ["invalid"]
    problem = checked.faults[0][1]
    assert (problem.path, problem.line, problem.field.split(".")[0]) == ("judgments_A.jsonl", 2, field)


def test_a_missing_field_and_an_extra_field_are_invalid(tmp_path):
    rows = [row(*p) for p in PAIRS]
    del rows[0]["temporal_classification"]
    rows[2]["mode"] = "lexical"
    checked = check(tmp_path, rows)
    assert [(k, p.line, p.field) for k, p in checked.faults] == [("invalid", 1, "temporal_classification"),
                                                                 ("invalid", 3, "mode")]


def test_a_citation_outside_the_querys_documents_is_invalid(tmp_path):
    rows = [row(*p) for p in PAIRS]
    rows[2]["acceptable_citation_ids"] = [D1]  # D1 belongs to q-001, not q-002
    checked = check(tmp_path, rows)
    assert [(k, p.line, p.field) for k, p in checked.faults] == [("invalid", 3, "acceptable_citation_ids")]


def test_an_unreadable_line_is_named_and_its_pair_counts_as_missing(tmp_path):
    rows = [row(*PAIRS[0]), '{"query_id": "q-001", "document_id": ', row(*PAIRS[2])]
    checked = check(tmp_path, rows)
    assert faults(checked) == [("unreadable", "judgments_A.jsonl:2"), ("missing", "packet_A.jsonl:2")]


def test_every_fault_at_once_then_the_verdict(tmp_path):
    rows = [row(*PAIRS[0], relevance=5), row(*PAIRS[0]), row("q-009", D3), "not json"]
    checked = check(tmp_path, rows)
    assert {k for k, _ in checked.faults} == set(FAULTS)
    with pytest.raises(IncompleteJudgments) as error:
        require_complete(checked, "judgments_A.jsonl")
    text = str(error.value)
    assert text.endswith(f"judgments_A.jsonl: {VERDICT}")
    assert "judgments_A.jsonl:1: field 'relevance'" in text and "packet_A.jsonl:2:" in text
    assert error.value.exit_code == 1


def test_the_check_never_edits_either_file(tmp_path):
    j = judgments(tmp_path, [row(*PAIRS[0]), "oops"])
    p = packet(tmp_path)
    before = (j.read_bytes(), p.read_bytes())
    check_judgments(str(j), str(p))
    assert (j.read_bytes(), p.read_bytes()) == before


def test_a_broken_packet_is_the_coordinators_error(tmp_path):
    p = packet(tmp_path)
    p.write_text(p.read_text(encoding="utf-8") + p.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="repeats line 1"):
        check_judgments(str(judgments(tmp_path, [row(*q) for q in PAIRS])), str(p))
