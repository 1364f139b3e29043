"""The TREC line checks in bulk: the same file:line messages as a reader going line by line from the top."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.core.errors import MAX_PROBLEMS, InputError
from assay.relevance.trec import read_qrels, read_run
from assay.relevance.trec_lines import check_lines, first_bad_line, line_problems

DEEP = 87_654  # the bad line's number in the large files below (100,000 lines)


def large(tmp_path, name, good, bad, lines=100_000):
    """A file of ``lines`` lines, ``good(i)`` each (bytes, with its newline), but ``bad`` as line DEEP."""
    body = b"".join(good(i) for i in range(1, DEEP)) + bad + b"".join(good(i) for i in range(DEEP + 1, lines + 1))
    path = tmp_path / name
    path.write_bytes(body)
    return path


def qrels_line(i):
    return f"q{i // 20} 0 d{i} {i % 3}\n".encode()


def run_line(i):
    return f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i % 100}.5 bench\n".encode()


# (kind, bad line as bytes, the message after "<file>:87654: "); each message written out by hand
QRELS_BAD = [
    ("too long", b"q1 0 " + b"x" * 70_000 + b" 1\n",
     "line is longer than 65536 bytes (fix: write one short 'qid ... docno ...' line per judgment or retrieved document)"),
    ("not UTF-8", b"q1 0 d\xe9 1\n",
     "not valid UTF-8: byte(s) e9 at byte 7 of the line (invalid continuation byte) (fix: save the file as UTF-8 "
     "(for example `iconv -f latin1 -t utf-8`), or remove the byte)"),
    ("NUL", b"q1 0 d\x001 1\n",
     "holds a NUL or control character ('\\x00') at character 7 (fix: remove it: ids and docnos are plain text)"),
    ("escape", b"q1\x1b 0 d1 1\n",
     "holds a NUL or control character ('\\x1b') at character 3 (fix: remove it: ids and docnos are plain text)"),
    ("DEL", "q1 0 dé\x7f 1\n".encode(),  # after a two-byte character: counted in characters, not bytes
     "holds a NUL or control character ('\\x7f') at character 8 (fix: remove it: ids and docnos are plain text)"),
    ("three fields", b"q1 0 d1\n",
     "has 3 fields, expected 4 (fix: write qid iter docno grade, for example 'q-001 0 doc-014 2')"),
    ("grade not an integer", b"q1 0 dx 1.5\n",
     "field 'grade': '1.5' is not an integer (fix: use an integer grade such as 2, 1, 0 or -1)"),
    ("grade out of range", b"q1 0 dx 101\n",
     "field 'grade': '101' is outside -1 to 100 (fix: use a grade from -1 (misleading) to 100, such as 2, 1 or 0)"),
    ("docno twice", b"q0 0 d3 1\n",
     "field 'docno': 'd3' appears twice in query 'q0' (first on line 3) (fix: keep one judgment per document and query)"),
]


RUN_BAD = [
    ("NUL", b"q1 Q0 d1 1 2.5 t\x00g\n",
     "holds a NUL or control character ('\\x00') at character 17 (fix: remove it: ids and docnos are plain text)"),
    ("score not finite", b"q1 Q0 dx 1 inf bench\n",
     "field 'score': 'inf' is not a finite number (fix: give every retrieved document a numeric score)"),
    ("five fields", b"q1 Q0 dx 1 2.5\n",
     "has 5 fields, expected 6 (fix: write qid Q0 docno rank score tag, for example 'q-001 Q0 doc-014 1 12.5 lexical')"),
]


BAD = [("qrels", *b) for b in QRELS_BAD] + [("run", *b) for b in RUN_BAD]
READERS = {"qrels": (read_qrels, qrels_line), "run": (read_run, run_line)}


@pytest.mark.parametrize("what, kind, bad, message", BAD, ids=[f"{b[0]}: {b[1]}" for b in BAD])
def test_a_bad_line_deep_in_a_large_file_is_named_at_its_line(tmp_path, what, kind, bad, message):
    read, good = READERS[what]
    path = large(tmp_path, f"{what}.trec", good, bad)
    with pytest.raises(InputError) as error:
        read(path)
    assert str(error.value) == f"{path}:{DEEP}: {message}"


def test_every_bad_line_after_the_first_is_named_too_each_once_in_line_order(tmp_path):
    lines = [b"q 0 d%d 1\n" % i for i in range(1, 41)]
    lines[4] = b"q 0 d\x005 1\n"  # line 5: a NUL
    lines[2] = b"q 0 d\xff3 1\n"  # line 3: not UTF-8
    lines[9] = b"q 0 " + b"x" * 100 + b"\x00 1\n"  # line 10: too long (and a NUL: one problem, the first that applies)
    lines[30] = b"\xff\x01\n"  # line 31: not UTF-8 before the control character
    path = tmp_path / "q.trec"
    path.write_bytes(b"".join(lines))
    with pytest.raises(InputError) as error:
        check_lines(str(path), path.read_bytes(), max_line_bytes=64)
    assert [(p.line, p.message.split(" ")[0]) for p in error.value.problems] == [
        (3, "not"), (5, "holds"), (10, "line"), (31, "not")]


def test_problems_stop_at_the_cap_from_the_first_bad_line(tmp_path):
    path = tmp_path / "q.trec"
    path.write_bytes(b"q 0 d 1\n" * 1000 + b"q 0 d\x00 1\n" * (MAX_PROBLEMS + 5))
    with pytest.raises(InputError) as error:
        check_lines(str(path), path.read_bytes())
    assert [p.line for p in error.value.problems] == list(range(1001, 1001 + MAX_PROBLEMS))


def test_a_byte_order_mark_opening_the_file_is_dropped_and_a_line_at_the_limit_passes(tmp_path):
    data = "\ufeffq 0 d 1\n".encode() + b"x" * 64 + b"\n" + b"y" * 64
    assert first_bad_line(data, max_line_bytes=64) is None
    assert first_bad_line(data + b"y", max_line_bytes=64) == data.rfind(b"\n") + 1  # 65 bytes on the last line
    path = tmp_path / "q.trec"
    path.write_bytes(data)
    assert check_lines(str(path), data, max_line_bytes=64)


def old_data_flag(data: bytes) -> bool:
    """The rule as the line reader applied it: some line neither blank nor starting with '#' once stripped."""
    lines = data.decode("utf-8").removeprefix("\ufeff").split("\n")
    return any(line.strip() and not line.lstrip().startswith("#") for line in lines)


PIECES = [b"q1", b" ", b"\t", b"0", b"d\xc3\xa9", b"#", b"\n", b"\r\n", b"\x00", b"\x1f", b"\x7f", b"\xff", b"\xe9",
          b"\xc3", b"\xef\xbb\xbf", "\u3000".encode(), "\u0985\u09bf".encode(), b"x" * 9]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_bulk_checks_name_what_the_line_reader_from_the_top_names(tmp_path_factory, pieces):
    data = b"".join(pieces)
    path = tmp_path_factory.mktemp("lines") / "f.trec"
    path.write_bytes(data)
    expected = line_problems(str(path), max_line_bytes=16)  # the reader going line by line from line 1
    if expected:
        with pytest.raises(InputError) as error:
            check_lines(str(path), data, max_line_bytes=16)
        assert error.value.problems == expected
        first = expected[0].line
        for window in (1, 5, 64):  # windows that split lines, characters and the bad bytes
            assert data.count(b"\n", 0, first_bad_line(data, 16, window)) + 1 == first
    else:
        assert check_lines(str(path), data, max_line_bytes=16) == old_data_flag(data)
        assert all(first_bad_line(data, 16, window) is None for window in (1, 5, 64))
