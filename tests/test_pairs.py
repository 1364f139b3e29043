"""Labelled pairs: every bad row reported in one run; empty files and blank text refused."""

import json

import pytest

from assay.core.errors import InputError
from assay.data.pairs import load_pairs


def pair(id: str, **over) -> dict:
    row = {"id": id, "case_question": "How long is the trial?", "facts": ["14 days"], "a": "14 days.", "b": "7 days.",
           "kind": "clear", "lang": "en", "ann1": "a", "ann2": "a", "final": "a"}
    row.update(over)
    return row


def test_good_pairs(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(pair(i)) + "\n" for i in ("p1", "p2")), encoding="utf-8")
    assert [p.id for p in load_pairs(path)] == ["p1", "p2"]


def test_every_bad_row_in_one_run(tmp_path):
    path = tmp_path / "pairs.jsonl"
    rows = [json.dumps(pair("p1")).encode(), json.dumps(pair("p2")).encode().replace(b"trial", b"tri\xc3(al"),
            b"{not json", json.dumps(pair("p4", a="   ")).encode(), json.dumps(pair("p5", facts=[""], final="A")).encode(),
            json.dumps(pair("p1")).encode(), b'{"id": "p7", "x": Infinity}']
    path.write_bytes(b"\n".join(rows) + b"\n")
    with pytest.raises(InputError) as err:
        load_pairs(path)
    found = [(p.line, p.field, p.message.split(":")[0].split(" (")[0]) for p in err.value.problems]
    assert found == [(2, None, "not valid UTF-8"), (3, None, "not valid JSON"), (4, "a", "is empty or only whitespace"),
                     (5, "facts.0", "is empty or only whitespace"), (5, "final", "'A' is not one of a, b, tie"),
                     (6, "id", "duplicate id 'p1'"), (7, None, "Infinity is not valid JSON")]


@pytest.mark.parametrize("text", ["", "\n\n"])
def test_an_empty_pairs_file_is_refused(tmp_path, text):
    path = tmp_path / "pairs.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_pairs(path)
    assert str(err.value) == f"{path}: holds no pairs (fix: add at least one labelled pair, one JSON object per line)"


def test_equal_content_is_kept_when_shared_and_named_with_both_lines_when_refused(tmp_path):
    path = tmp_path / "pairs.jsonl"
    rows = [pair("p1"), pair("p2", a="13 days."), pair("p1-copy", final="b"),  # p1's content, other labels
            pair("p1-swapped", a="7 days.", b="14 days.", ann1="b", ann2="b", final="b"), pair("p5", facts=["7 days"])]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert [p.id for p in load_pairs(path)] == ["p1", "p2", "p1-copy", "p1-swapped", "p5"]  # share: the default
    with pytest.raises(InputError) as err:
        load_pairs(path, duplicates="refuse")
    assert str(err.value).splitlines() == [
        f"{path}:3: field 'id': pair 'p1-copy' holds the same question, facts and answers as pair 'p1' on line 1, "
        "and judge.duplicates is refuse (fix: remove one of lines 1 and 3, or set judge.duplicates: share in "
        "params.yaml to ask the judge once and give both pairs its reply)",
        f"{path}:4: field 'id': pair 'p1-swapped' holds the same question, facts and answers as pair 'p1' on line 1 "
        "(answers a and b in the other order), and judge.duplicates is refuse (fix: remove one of lines 1 and 4, or "
        "set judge.duplicates: share in params.yaml to ask the judge once and give both pairs its reply)"]


def test_pairs_share_one_fields_set_and_a_copy_does_not_touch_it(tmp_path):
    rows = [{"id": f"p{i}", "case_question": "q", "facts": [], "a": f"x{i}", "b": "y", "kind": "tie", "lang": "en",
             "ann1": "tie", "ann2": "tie", "final": "tie", **({"note": "n"} if i == 2 else {})} for i in range(3)]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    first, second, noted = load_pairs(path)
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__  # one set, not one per pair
    assert noted.model_fields_set == first.model_fields_set | {"note"}
    copy = first.model_copy(update={"note": "edited"})
    assert copy.note == "edited" and "note" not in second.model_fields_set
    assert first.model_dump(exclude_unset=True) == rows[0]
