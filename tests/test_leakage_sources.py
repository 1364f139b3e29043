import json

import pytest

from assay.core.errors import MAX_PROBLEMS, InputError
from assay.data.leakage.sources import SourceFolder, load_sources


def chunks(folder, **kw):
    return [(c.source, c.first, c.texts) for c in SourceFolder(folder, **kw).chunks()]


def test_text_and_jsonl_units_are_numbered_across_chunks(tmp_path):
    (tmp_path / "prompt.txt").write_text("Q: one\n\n  A: two\r\nthree\x0cfour\n", encoding="utf-8")
    (tmp_path / "earlier.jsonl").write_text('{"question": "q1"}\n\n{"question": "q2", "x": 1}\n{"question": "q3"}\n',
                                            encoding="utf-8")
    # units: labels stripped, blank lines skipped, a form feed splits a line as str.splitlines does
    assert chunks(tmp_path, chunk_lines=2) == [("earlier", 1, ["q1", "q2"]), ("earlier", 3, ["q3"]),
                                               ("prompt", 1, ["one", "two"]), ("prompt", 3, ["three", "four"])]
    assert load_sources(tmp_path) == {"earlier": ["q1", "q2", "q3"], "prompt": ["one", "two", "three", "four"]}


def test_every_bad_line_is_named_then_one_error(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"ok\n" + b"x" * 50 + b"\nbin\x00ary\n\xc3\x28 bad utf8\nok again\n")
    (tmp_path / "b.jsonl").write_bytes(b'{"question": "fine"}\n[1]\n{"question": ""}\nnot json\n')
    with pytest.raises(InputError) as error:
        chunks(tmp_path, max_line_bytes=40)
    assert [(p.path.rsplit("/", 1)[-1], p.line) for p in error.value.problems] == [
        ("a.txt", 2), ("a.txt", 3), ("a.txt", 4), ("b.jsonl", 2), ("b.jsonl", 3), ("b.jsonl", 4)]
    text = str(error.value)
    assert "a.txt:2: line longer than 40 bytes (fix: split it, remove it, or raise leakage.max_line_bytes)" in text
    assert "a.txt:3: NUL byte: this looks like a binary file" in text
    assert "a.txt:4: not valid UTF-8 (byte 1 of the line)" in text
    assert "b.jsonl:3: field 'question': '' is not a non-empty string" in text


def test_a_line_without_end_is_not_read_into_memory_whole(tmp_path):
    (tmp_path / "dump.txt").write_bytes(b"y" * (5 << 20) + b"\nafter\n")
    with pytest.raises(InputError, match=r"dump\.txt:1: line longer than 1000 bytes") as error:
        chunks(tmp_path, max_line_bytes=1000)
    assert len(error.value.problems) == 1  # the rest of the long line was skipped, "after" is fine


def test_reading_stops_at_the_cap(tmp_path):
    (tmp_path / "bin.dat").write_bytes(b"\x00\n" * 1000)
    with pytest.raises(InputError) as error:
        chunks(tmp_path)
    problems = error.value.problems
    assert len(problems) == MAX_PROBLEMS
    assert problems[-1].message == f"stopped reading after {MAX_PROBLEMS - 1} bad lines"


def test_no_chunk_is_handed_out_after_a_bad_line(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"one\n\x00\ntwo\nthree\n")
    got = []
    with pytest.raises(InputError):
        for chunk in SourceFolder(tmp_path, chunk_lines=1).chunks():
            got.append(chunk.texts)
    assert got == [["one"]]


def test_missing_folder_and_name_clash(tmp_path):
    with pytest.raises(InputError, match="sources folder not found"):
        SourceFolder(tmp_path / "nope")
    (tmp_path / "a.txt").write_text("x\n", encoding="utf-8")
    (tmp_path / "a.jsonl").write_text(json.dumps({"question": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="source name 'a' is also used by a.jsonl"):
        SourceFolder(tmp_path)


def test_hidden_files_are_skipped(tmp_path):
    (tmp_path / ".DS_Store").write_bytes(b"\x00\x01")
    assert SourceFolder(tmp_path).names == []
