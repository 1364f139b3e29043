"""Naming where a committed output first differs from its recomputation."""

import json

from hypothesis import given, strategies as st

from assay.release.difference import first_difference, json_difference, line_difference

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=10)


def test_first_differing_key_in_sorted_order_with_nested_paths():
    committed = {"usable": 1, "by_kind": {"self": {"agreement": 0.9}, "cite": {"agreement": 0.5}}, "n": 42}
    recomputed = {"usable": 0, "by_kind": {"self": {"agreement": 0.0}, "cite": {"agreement": 0.5}}, "n": 42}
    # keys are visited sorted: by_kind < n < usable, so the nested slice comes first
    assert first_difference("metrics/calibration.json", json.dumps(committed).encode(), json.dumps(recomputed).encode()) \
        == "key 'by_kind.self.agreement': committed 0.9, recomputed 0.0"
    del committed["by_kind"], recomputed["by_kind"]
    assert first_difference("m.json", json.dumps(committed).encode(), json.dumps(recomputed).encode()) \
        == "key 'usable': committed 1, recomputed 0"


def test_types_count_and_absent_keys_are_named():
    assert json_difference({"a": True}, {"a": 1}) == (("a",), True, 1)  # Python says True == 1; JSON does not
    assert json_difference({"a": 1}, {"a": 1.0}) == (("a",), 1, 1.0)
    assert first_difference("x.json", b'{"a": 1}', b'{"a": 1, "b": "s"}') == "key 'b': committed (absent), recomputed \"s\""
    assert first_difference("x.json", b'{"a": [1, 2]}', b'{"a": [1]}') == "key 'a[1]': committed 2, recomputed (absent)"


def test_formatting_only_and_unparseable_json():
    assert first_difference("x.json", b'{"a": 1}', b'{\n  "a": 1\n}\n') == "bytes differ, JSON values are equal (formatting)"
    assert first_difference("x.json", b"{not json\n", b'{"a": 1}\n') == "line 1: committed '{not json', recomputed '{\"a\": 1}'"


def test_lines_and_long_values_are_cut():
    assert line_difference("a\nb\nc\n", "a\nb\n") == "line 3: committed 'c', recomputed (end of file)"
    long = "x" * 200
    detail = first_difference("r.md", long.encode(), b"y")
    assert detail == f"line 1: committed {'x' * 77 + '...'!r}, recomputed 'y'"
    assert first_difference("r.md", b"same\n", b"same\n") is None
    assert first_difference("r.md", b"a\nb", b"a\nb\n") == "bytes differ, lines are equal (line endings or a final newline)"


@given(JSON, JSON)
def test_json_difference_is_none_exactly_when_the_canonical_texts_agree(a, b):
    same = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert (json_difference(a, b) is None) == same
