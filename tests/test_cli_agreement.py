"""Tests for `assay agreement`: exact output for good files, exit code and message for bad ones."""

from __future__ import annotations

import json

import pytest

from assay.cli import build_parser, main

ANN1 = ["a", "a", "b", "b", "tie", "tie", "a", "b"]
ANN2 = ["a", "b", "b", "b", "tie", "a", "a", "b"]


@pytest.fixture
def labels_jsonl(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps({"id": f"p{i}", "ann1": x, "ann2": y}) + "\n"
                            for i, (x, y) in enumerate(zip(ANN1, ANN2, strict=True), start=1)))
    return path


def test_table_output_for_seed_exercise(labels_jsonl, capsys):
    assert main(["agreement", str(labels_jsonl), "--a", "ann1", "--b", "ann2"]) == 0
    # 6/8 agree; expected 23/64 = 0.359; kappa 25/41 = 0.610; Wald 0.610 -/+ 1.96 * 0.230 = 0.159 to 1.06; the
    # hybrid widens the bottom to Wilson's 6 of 8 lower bound 0.4093 mapped: (0.4093 - 23/64) / (41/64) = 0.078
    assert capsys.readouterr().out == (
        f"{labels_jsonl}: ann1 vs ann2, 8 pairs\n"
        "label order         a, b, tie (sorted as text)\n"
        "observed agreement  0.750\n"
        "chance agreement    0.359\n"
        "kappa               0.610  (95% interval 0.078 to 1.000)\n"
        "disagreements       2\n"
        "\n"
        "confusion: rows ann1, columns ann2\n"
        "     a  b  tie\n"
        "a    2  1    0\n"
        "b    0  3    0\n"
        "tie  1  0    1\n")


def test_json_output_lists_disagreements_by_id(labels_jsonl, capsys):
    assert main(["agreement", str(labels_jsonl), "--a", "ann1", "--b", "ann2", "--id", "id", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["disagreement_list"] == [{"id": "p2", "ann1": "a", "ann2": "b"}, {"id": "p6", "ann1": "tie", "ann2": "a"}]
    assert out["n"] == 8 and out["disagreements"] == 2 and out["kappa"] == pytest.approx(25 / 41)
    assert out["confusion"]["tie"] == {"a": 1, "b": 0, "tie": 1}


def test_csv_with_weights_and_line_numbers(tmp_path, capsys):
    path = tmp_path / "grades.csv"
    path.write_text("r1,r2\n1,1\n2,3\n3,3\n1,2\n")
    assert main(["agreement", str(path), "--a", "r1", "--b", "r2", "--weights", "linear", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    from sklearn.metrics import cohen_kappa_score

    assert out["kappa"] == pytest.approx(cohen_kappa_score([1, 2, 3, 1], [1, 3, 3, 2], weights="linear"))
    # CSV line numbers count the header: the disagreeing rows are lines 3 and 5; numeric labels are numbers
    assert out["disagreement_list"] == [{"line": 3, "r1": 2, "r2": 3}, {"line": 5, "r1": 1, "r2": 2}]
    assert (out["label_order"], out["order_source"]) == ([1, 2, 3], "numeric")


# grades 1..10 from two raters who mostly agree within a point or two; as text, "10" sorts between "1" and
# "2", which puts the top grade next to the bottom one and wrecks the weighted kappa
GRADES_1 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 9, 2, 5, 7, 3]
GRADES_2 = [2, 2, 4, 4, 6, 5, 7, 9, 10, 9, 10, 8, 1, 5, 8, 3]


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_grades_one_to_ten_sort_numerically(tmp_path, capsys, weights):
    from sklearn.metrics import cohen_kappa_score

    path = tmp_path / "grades.csv"
    path.write_text("r1,r2\n" + "".join(f"{x}, {y} \n" for x, y in zip(GRADES_1, GRADES_2, strict=True)))  # padded on purpose
    assert main(["agreement", str(path), "--a", "r1", "--b", "r2", "--weights", weights, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = cohen_kappa_score(GRADES_1, GRADES_2, weights=weights)
    assert out["kappa"] == pytest.approx(expected, abs=1e-12)
    assert out["label_order"] == list(range(1, 11)) and out["order_source"] == "numeric"
    as_text = cohen_kappa_score(list(map(str, GRADES_1)), list(map(str, GRADES_2)), weights=weights)
    assert abs(as_text - expected) > 0.1  # what sorting the labels as text used to give
    assert main(["agreement", str(path), "--a", "r1", "--b", "r2", "--weights", weights]) == 0
    assert "label order         1, 2, 3, 4, 5, 6, 7, 8, 9, 10 (numbers, in numeric order)\n" in capsys.readouterr().out


def test_negative_grades_and_jsonl_numbers(tmp_path, capsys):
    from sklearn.metrics import cohen_kappa_score

    a, b = [-1, 0, 2, 1, -1, 2, 0, 1], [-1, 1, 2, 1, 0, 2, -1, 1]
    path = tmp_path / "rel.jsonl"
    path.write_text("".join(json.dumps({"x": x, "y": str(y)}) + "\n" for x, y in zip(a, b, strict=True)))  # y as strings
    assert main(["agreement", str(path), "--a", "x", "--b", "y", "--weights", "linear", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["label_order"] == [-1, 0, 1, 2]
    assert out["kappa"] == pytest.approx(cohen_kappa_score(a, b, weights="linear"), abs=1e-12)


def test_order_option(tmp_path, capsys):
    from sklearn.metrics import cohen_kappa_score

    a, b = ["bad", "fair", "good", "fair", "good", "bad"], ["fair", "fair", "good", "good", "good", "bad"]
    path = tmp_path / "q.csv"
    path.write_text("a,b\n" + "".join(f"{x},{y}\n" for x, y in zip(a, b, strict=True)))
    assert main(["agreement", str(path), "--a", "a", "--b", "b", "--weights", "quadratic",
                 "--order", "bad, fair ,good", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["label_order"], out["order_source"]) == (["bad", "fair", "good"], "--order")
    assert out["kappa"] == pytest.approx(cohen_kappa_score(a, b, weights="quadratic", labels=["bad", "fair", "good"]))
    assert main(["agreement", str(path), "--a", "a", "--b", "b", "--order", "bad,good"]) == 1
    assert "label 'fair' is not one of bad, good" in capsys.readouterr().err
    assert main(["agreement", str(path), "--a", "a", "--b", "b", "--order", "bad,,good"]) == 1
    assert "has an empty item" in capsys.readouterr().err
    grades = tmp_path / "g.csv"
    grades.write_text("a,b\n1,2\n2,2\n")
    assert main(["agreement", str(grades), "--a", "a", "--b", "b", "--order", "2,1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["label_order"] == [2, 1]
    assert main(["agreement", str(grades), "--a", "a", "--b", "b", "--order", "one,two"]) == 1
    assert "--order item 'one' is not a number, but every label in the file is" in capsys.readouterr().err


def test_whitespace_is_trimmed(tmp_path, capsys):
    path = tmp_path / "w.jsonl"
    path.write_text('{"x": "a ", "y": " a"}\n{"x": "b", "y": "b"}\n{"x": " ", "y": "b"}\n')
    assert main(["agreement", str(path), "--a", "x", "--b", "y"]) == 1
    assert capsys.readouterr().err == f"assay agreement: {path}:3: field 'x': is blank (fix: label every row, or remove unlabelled rows)\n"
    path.write_text('{"x": "a ", "y": " a"}\n{"x": "b", "y": "b"}\n')
    assert main(["agreement", str(path), "--a", "x", "--b", "y", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["observed"] == 1.0


def test_nan_is_an_error_naming_file_and_line(tmp_path, capsys):
    path = tmp_path / "nan.jsonl"
    path.write_text('{"x": 1, "y": 1}\n{"x": NaN, "y": 2}\n{"x": 2, "y": Infinity}\n')
    assert main(["agreement", str(path), "--a", "x", "--b", "y"]) == 1
    assert capsys.readouterr().err == (
        f"assay agreement: {path}:2: NaN is not valid JSON (fix: write one JSON object per line)\n"
        f"{path}:3: Infinity is not valid JSON (fix: write one JSON object per line)\n")
    csv_path = tmp_path / "nan.csv"
    csv_path.write_text("x,y\n1,1\nnan,2\n")
    assert main(["agreement", str(csv_path), "--a", "x", "--b", "y"]) == 1
    assert f"{csv_path}:3: field 'x': 'nan' is not a label (NaN or infinite)" in capsys.readouterr().err


def test_undefined_kappa_is_said_not_printed_as_a_number(tmp_path, capsys):
    path = tmp_path / "same.csv"
    path.write_text("x,y\na,a\na,a\n")
    assert main(["agreement", str(path), "--a", "x", "--b", "y"]) == 0
    out = capsys.readouterr().out
    assert "kappa               undefined: chance agreement is 1 (both raters gave every item the same single label)\n" in out


def test_missing_column_names_line_column_and_existing_columns(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "p1", "ann1": "a", "ann2": "a"}\n'
                    '{"id": "p2", "ann1": "a", "annotator2": "b"}\n'
                    '{"id": "p3", "ann1": null, "ann2": "b"}\n')
    assert main(["agreement", str(path), "--a", "ann1", "--b", "ann2"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"assay agreement: {path}:2: field 'ann2': column is absent; this row has ann1, annotator2, id "
        "(fix: add the column to every row, or name an existing column)\n"
        f"{path}:3: field 'ann1': is null (fix: label every row, or remove unlabelled rows)\n")


def test_empty_file(tmp_path, capsys):
    path = tmp_path / "empty.csv"
    path.write_text("ann1,ann2\n")
    assert main(["agreement", str(path), "--a", "ann1", "--b", "ann2"]) == 1
    assert capsys.readouterr().err == (
        f"assay agreement: {path}: has no rows (fix: add one row per item with columns ann1 and ann2)\n")


def test_missing_file(tmp_path, capsys):
    path = tmp_path / "nope.jsonl"
    assert main(["agreement", str(path), "--a", "ann1", "--b", "ann2"]) == 1
    assert capsys.readouterr().err == f"assay agreement: {path}: file not found (fix: check the path)\n"


def test_duplicate_id_and_same_column(labels_jsonl, tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("id,x,y\nq1,a,a\nq1,a,b\n")
    assert main(["agreement", str(path), "--a", "x", "--b", "y", "--id", "id"]) == 1
    assert capsys.readouterr().err == (
        f"assay agreement: {path}:3: field 'id': duplicate id 'q1' (first on line 2) (fix: give every row a unique id)\n")
    assert main(["agreement", str(labels_jsonl), "--a", "ann1", "--b", "ann1"]) == 1
    assert "both name column 'ann1'" in capsys.readouterr().err


def test_agreement_has_help_text():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert sub.choices["agreement"].description
    assert any(c.dest == "agreement" and c.help for c in sub._choices_actions)
