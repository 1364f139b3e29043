"""TREC qrels and run files: strict reading with file:line problems, byte-stable writing."""

import pandas as pd
import pytest

from assay.core.errors import InputError
from assay.relevance.trec import Qrels, Run, read_qrels, read_run, write_qrels, write_run


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_run_reads_and_ignores_rank_column(tmp_path):
    p = write(tmp_path, "r.trec", "q1 Q0 d1 7 1.5 t\nq1\tQ0  d2 1 2.5 t\n\n")
    run = read_run(p)
    assert run.tag == "t" and list(run.table["docno"]) == ["d1", "d2"] and list(run.table["score"]) == [1.5, 2.5]


def test_duplicate_docno_in_a_ranking_names_file_and_line(tmp_path):
    p = write(tmp_path, "r.trec", "q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n")
    with pytest.raises(InputError) as e:
        read_run(p)
    assert str(e.value) == (f"{p}:3: field 'docno': 'd1' appears twice in query 'q1' (first on line 1) "
                            "(fix: keep one line per document and query)")


def test_every_bad_run_line_is_reported_once(tmp_path):
    p = write(tmp_path, "r.trec", "# a comment\nq1 Q0 d1 1 x t\nq1 Q0 d2 1\nq1 Q0 d3 1 nan t\nq1 Q0 d4 1 1 t\n")
    with pytest.raises(InputError) as e:
        read_run(p)
    lines = str(e.value).splitlines()
    assert [ln.split(": ")[0] for ln in lines] == [f"{p}:2", f"{p}:3", f"{p}:4"]
    assert "has 4 fields, expected 6" in lines[1] and "'nan' is not a finite number" in lines[2]


def test_qrels_grades_must_be_integers_and_unique(tmp_path):
    p = write(tmp_path, "q.txt", "q1 0 d1 2\nq1 0 d2 1.5\nq1 0 d1 0\n")
    with pytest.raises(InputError) as e:
        read_qrels(p)
    text = str(e.value)
    assert f"{p}:2: field 'grade': '1.5' is not an integer" in text and f"{p}:3: field 'docno'" in text


def test_qrels_comments_and_negative_grades(tmp_path):
    p = write(tmp_path, "q.txt", "# synthetic\nq1 0 d1 -1\nq1 0 d2 2\n")
    assert list(read_qrels(p).table["grade"]) == [-1, 2]


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_run(tmp_path / "nope.trec")


def test_round_trip_is_stable_and_keeps_ties(tmp_path):
    run = Run(pd.DataFrame({"qid": ["b", "a", "a"], "docno": ["x", "d1", "d2"], "score": [0.1, 1 / 3, 1 / 3]}), "m")
    write_run(tmp_path / "r.trec", run)
    text = (tmp_path / "r.trec").read_text()
    assert text.splitlines()[0] == f"a Q0 d2 1 {1 / 3!r} m"  # tie: docno descending
    back = read_run(tmp_path / "r.trec")
    write_run(tmp_path / "r2.trec", back)
    assert (tmp_path / "r2.trec").read_text() == text
    qrels = Qrels(pd.DataFrame({"qid": ["b", "a"], "docno": ["x", "y"], "grade": [1, -1]}))
    write_qrels(tmp_path / "q.txt", qrels, header="SYNTHETIC")
    assert (tmp_path / "q.txt").read_text() == "# SYNTHETIC\na 0 y -1\nb 0 x 1\n"
    assert read_qrels(tmp_path / "q.txt").table.equals(pd.DataFrame({"qid": ["a", "b"], "docno": ["y", "x"],
                                                                     "grade": [-1, 1]}))
