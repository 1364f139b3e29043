"""The declarations of non-metrics files (assay.artifacts.files): paths, atomic writes, rows validated both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.artifacts.base import BrokenArtifact
from assay.artifacts.files import CsvFile, Document, Folder, JsonFile, JsonlFile, Row, TextFile
from assay.artifacts.registry import DISAGREEMENTS, JUDGE_DIMENSIONS, PASS_BY_TASK, REVIEW_PAGE
from assay.core.errors import MissingArtifact


class Pair(Row):
    id: str
    n: int


ROOT = Path(__file__).resolve().parents[1]
ROWS = JsonlFile("reports/{name}.jsonl", Pair, "stage@{name}")


def test_paths_fill_the_template_and_name_the_stage_to_run(tmp_path):
    assert REVIEW_PAGE.relpath(name="demo") == "reports/review/demo.md"
    assert PASS_BY_TASK.path(tmp_path, side="baseline") == tmp_path / "reports/plots/pass_by_task_baseline.csv"
    assert ROWS.fix(name="x") == "dvc repro stage@x"


def test_jsonl_rows_round_trip_sorted_keys_in_the_given_order(tmp_path):
    ROWS.write([Pair(id="b", n=2), {"n": 1, "id": "a"}], tmp_path, name="x")
    assert (tmp_path / "reports/x.jsonl").read_text(encoding="utf-8") == '{"id": "b", "n": 2}\n{"id": "a", "n": 1}\n'
    assert ROWS.read(tmp_path, name="x") == [Pair(id="b", n=2), Pair(id="a", n=1)]


def test_a_row_the_model_refuses_is_not_written_and_the_old_file_stays(tmp_path):
    ROWS.write([{"id": "a", "n": 1}], tmp_path, name="x")
    with pytest.raises(BrokenArtifact, match=r"reports/x.jsonl: row 2: field 'extra'"):
        ROWS.write([{"id": "a", "n": 1}, {"id": "b", "n": 2, "extra": 1}], tmp_path, name="x")
    assert ROWS.read(tmp_path, name="x") == [Pair(id="a", n=1)]
    assert [p.name for p in (tmp_path / "reports").iterdir()] == ["x.jsonl"]  # no temporary file left


def test_reading_names_the_line_and_field_of_a_bad_row_and_the_fix(tmp_path):
    f = tmp_path / "reports/x.jsonl"
    f.parent.mkdir()
    f.write_text('{"id": "a", "n": 1}\n{"id": "b", "n": "two"}\n', encoding="utf-8")
    with pytest.raises(BrokenArtifact, match=r"^reports/x.jsonl:2: field 'n'.*dvc repro -f stage@x"):
        ROWS.read(tmp_path, name="x")
    f.write_text('{"id": "a", "n": 1}\nnot json\n', encoding="utf-8")
    with pytest.raises(BrokenArtifact, match=r"reports/x.jsonl"):
        ROWS.read(tmp_path, name="x")


def test_a_missing_file_says_which_stage_writes_it(tmp_path):
    with pytest.raises(MissingArtifact, match=r"reports/judge_dimensions.jsonl not found \(fix: run `dvc repro calibrate`\)"):
        JUDGE_DIMENSIONS.read(tmp_path)
    with pytest.raises(MissingArtifact, match="dvc repro review@q"):
        REVIEW_PAGE.read(tmp_path, name="q")


def test_the_committed_jsonl_reports_fit_their_row_models():
    assert len(DISAGREEMENTS.read(ROOT)) == 6  # wc -l reports/disagreements.jsonl
    assert {r.judge for r in JUDGE_DIMENSIONS.read(ROOT)} <= {"a", "b", "tie", None}


def test_json_documents_keep_their_content_and_refuse_another_type(tmp_path):
    doc = JsonFile("reports/d.json", Document, "s")
    doc.write(Document({"b": float("nan"), "a": (1, 2)}), tmp_path)
    assert (tmp_path / "reports/d.json").read_text(encoding="utf-8") == '{\n  "a": [\n    1,\n    2\n  ],\n  "b": null\n}\n'
    assert doc.read(tmp_path).root == {"a": [1, 2], "b": None}
    with pytest.raises(TypeError, match="holds Document"):
        doc.write({"a": 1}, tmp_path)  # type: ignore[arg-type]
    (tmp_path / "reports/d.json").write_text("[1]", encoding="utf-8")
    with pytest.raises(BrokenArtifact, match="reports/d.json: field"):
        doc.read(tmp_path)


def test_csv_header_is_the_declared_one_or_given_when_none_is_declared(tmp_path):
    fixed = CsvFile("reports/c.csv", "s", ("x", "y"))
    fixed.write([(1, "a")], tmp_path)
    assert (tmp_path / "reports/c.csv").read_text(encoding="utf-8") == "x,y\n1,a\n"
    with pytest.raises(ValueError, match="header"):
        fixed.write([], tmp_path, header=("z",))
    free = CsvFile("reports/{slug}.csv", "s")
    free.write([("lexical", 0.5)], tmp_path, header=("mode", "P@10"), slug="P_at_10")
    assert (tmp_path / "reports/P_at_10.csv").read_text(encoding="utf-8") == "mode,P@10\nlexical,0.5\n"
    with pytest.raises(ValueError, match="header"):
        free.write([], tmp_path, slug="x")


def test_text_pages_round_trip_with_newline_line_ends(tmp_path):
    page = TextFile("reports/p.md", "s")
    page.write("# title\n\nbody ৩৬৫\n", tmp_path)
    assert (tmp_path / "reports/p.md").read_bytes() == "# title\n\nbody ৩৬৫\n".encode()
    assert page.read(tmp_path) == "# title\n\nbody ৩৬৫\n"
    assert Folder("reports", "s").path(tmp_path) == tmp_path / "reports"
