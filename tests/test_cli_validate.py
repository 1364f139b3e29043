"""`assay validate`: every bad input is one clean message naming file, line and field, exit 1, no traceback."""

import json
import shutil
import subprocess

import pytest
import yaml

from assay.cli import main
from conftest import BIN, ROOT

DEMO_CASES = sum(1 for line in (ROOT / "data" / "cases.jsonl").open(encoding="utf-8") if line.strip())


@pytest.fixture
def repo(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "data", tmp_path / "data")
    shutil.copy(ROOT / "params.yaml", tmp_path / "params.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def edit_line(path, number, change):
    lines = path.read_bytes().split(b"\n")
    lines[number - 1] = change(lines[number - 1])
    path.write_bytes(b"\n".join(lines))


def edit_json_row(path, number, **over):
    edit_line(path, number, lambda raw: json.dumps({**json.loads(raw), **over}).encode())


def edit_yaml(path, change):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def set_first_threshold(data):
    data["metrics"][0]["threshold"] = -1


CASES, PAIRS, DOC, PLAN = "data/cases.jsonl", "data/pairs.jsonl", "data/corpus/kb-roaming.md", "data/plan.yaml"
# (name, file to check, how to break the copy, the start of the expected message after "assay validate: ")
BAD = [
    ("utf8 in cases", CASES, lambda r: edit_line(r / CASES, 3, lambda b: b.replace(b"?", b"\xff?", 1)),
     "data/cases.jsonl:3: not valid UTF-8: byte(s) ff at byte"),
    ("utf8 in pairs", PAIRS, lambda r: edit_line(r / PAIRS, 2, lambda b: b.replace(b"a", b"\xc3(", 1)),
     "data/pairs.jsonl:2: not valid UTF-8: byte(s) c3 at byte"),
    ("utf8 in a prompt", "data/prompts/pairwise_v2.md",
     lambda r: (r / "data/prompts/pairwise_v2.md").write_bytes((r / "data/prompts/pairwise_v2.md").read_bytes() + b"\xfe\n"),
     "data/prompts/pairwise_v2.md:"),
    ("utf8 in a corpus document", CASES, lambda r: (r / DOC).write_bytes((r / DOC).read_bytes() + b"bad \xe9 byte\n"),
     "data/corpus/kb-roaming.md:"),
    ("100k-deep JSON", CASES, lambda r: (r / CASES).write_text((r / CASES).read_text() + "[" * 100_000 + "]" * 100_000 + "\n"),
     f"data/cases.jsonl:{DEMO_CASES + 1}: not valid JSON here: nested too deeply to read"),
    ("NaN", CASES, lambda r: edit_line(r / CASES, 1, lambda b: b[:-1] + b', "score": NaN}'),
     "data/cases.jsonl:1: NaN is not valid JSON"),
    ("impossible date", CASES, lambda r: (r / DOC).write_text((r / DOC).read_text().replace("updated: 2025-12-10", "updated: 2024-13-45")),
     "data/corpus/kb-roaming.md:4: field 'updated': '2024-13-45' is not valid"),
    ("empty cases", CASES, lambda r: (r / CASES).write_text(""), "data/cases.jsonl: holds no cases"),
    ("empty pairs", PAIRS, lambda r: (r / PAIRS).write_text("\n"), "data/pairs.jsonl: holds no pairs"),
    ("blank question", CASES, lambda r: edit_json_row(r / CASES, 1, question="  "),
     "data/cases.jsonl:1: field 'question': is empty or only whitespace"),
    ("blank fact", PAIRS, lambda r: edit_json_row(r / PAIRS, 1, facts=["\t"]),
     "data/pairs.jsonl:1: field 'facts.0': is empty or only whitespace"),
    ("empty corpus body", "data/corpus", lambda r: (r / DOC).write_text((r / DOC).read_text().split("---\n", 2)[0] + "---\n"
                                                                        + (r / DOC).read_text().split("---\n", 2)[1] + "---\n\n"),
     "data/corpus/kb-roaming.md:5: the document has no text after its header"),
    ("threshold -1", PLAN, lambda r: edit_yaml(r / PLAN, set_first_threshold),
     "data/plan.yaml:"),
    ("split.holdout_shares", "params.yaml", lambda r: edit_yaml(r / "params.yaml", lambda d: d["split"].update(holdout_shares=0.2)),
     "params.yaml:"),
    ("compare.candidate", "params.yaml", lambda r: edit_yaml(r / "params.yaml", lambda d: d["compare"].update(candidate="candiate")),
     "params.yaml:"),
]


@pytest.mark.parametrize("name, target, breaks, expected", BAD, ids=[b[0] for b in BAD])
def test_each_bad_input_is_one_clean_error(repo, capsys, name, target, breaks, expected):
    assert main(["validate", target]) == 0  # the demo data is valid before the edit
    capsys.readouterr()
    breaks(repo)
    assert main(["validate", target]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"assay validate: {expected}") and "(fix: " in err
    assert len(err.splitlines()) == 1  # one bad input, one line


def test_all_classes_of_problem_in_one_run(repo, capsys):
    edit_line(repo / CASES, 2, lambda b: b"{not json")
    edit_json_row(repo / CASES, 4, task="lookups")
    edit_json_row(repo / CASES, 6, doc_ids=["kb-nope"])
    edit_json_row(repo / CASES, 8, id=json.loads((repo / CASES).read_text().splitlines()[8])["id"])
    (repo / DOC).write_text((repo / DOC).read_text().replace("updated: 2025-12-10", "updated: 2024-13-45"))
    assert main(["validate", CASES]) == 1
    where = [line.removeprefix("assay validate: ").split(": ")[0] for line in capsys.readouterr().err.splitlines()]
    assert where == ["data/cases.jsonl:2", "data/cases.jsonl:4", "data/cases.jsonl:6", "data/cases.jsonl:9",
                     "data/corpus/kb-roaming.md:4"]


def test_params_typo_from_the_command_line_exits_1_without_a_traceback(repo):
    edit_yaml(repo / "params.yaml", lambda d: d["leakage"].update(treshold=0.5))
    proc = subprocess.run([str(BIN / "assay"), "validate", "params.yaml"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("assay validate: params.yaml:")
    assert "field 'leakage.treshold': unknown field; did you mean 'threshold'? (fix: rename it to 'threshold'" in proc.stderr


def test_kind_is_taken_from_the_name(tmp_path):
    from pathlib import Path

    from assay.cli.validate import kind_of

    assert [kind_of(Path(p)) for p in ("params.yaml", "data/plan.yaml", "x/pairwise_v3.md", "pairs.jsonl", "c.jsonl")] == \
        ["params", "plan", "prompt", "pairs", "cases"]
    assert kind_of(tmp_path) == "corpus"


def test_a_fact_no_document_of_its_case_holds_is_a_warning_and_an_error_with_strict(repo, capsys):
    summary = main(["validate", CASES]) == 0 and capsys.readouterr().out
    # line 3 cites kb-moving-home, which says "BDT 500"; "five hundred taka" is in no document of the case
    edit_json_row(repo / CASES, 3, facts=["BDT 500", "five hundred taka"])
    # full-width digits and upper case fold (NFKC, casefold) to the document's "BDT 500": passable, no warning
    edit_json_row(repo / CASES, 5, facts=["ｂｄｔ ５００"])
    warning = ("data/cases.jsonl:3: field 'facts[1]': 'five hundred taka' appears in none of the case's documents "
               "(kb-moving-home), so no answer can pass (fix: write the fact as the document words it, or add the "
               "document that holds it to doc_ids)")
    assert main(["validate", CASES]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split(", hash ")[0] == summary.split(", hash ")[0]
    assert out.splitlines()[1:] == [f"warning: {warning}"]
    assert main(["validate", CASES, "--strict"]) == 1
    assert capsys.readouterr() == ("", f"assay validate: {warning}\n")


def test_strict_passes_the_demo_cases(repo, capsys):
    assert main(["validate", CASES, "--strict"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{CASES}: {DEMO_CASES} valid cases, ") and out.count("\n") == 1


def test_pairs_of_equal_content_pass_by_default_and_fail_naming_both_lines_when_the_project_refuses(repo, capsys):
    lines = (repo / PAIRS).read_text(encoding="utf-8").splitlines()
    copied = json.dumps({**json.loads(lines[1]), "id": "copied-row"})
    (repo / PAIRS).write_text("\n".join([*lines, copied]) + "\n", encoding="utf-8")
    original = json.loads(lines[1])["id"]
    assert main(["validate", PAIRS]) == 0  # judge.duplicates: share, the default
    assert capsys.readouterr().out == f"{PAIRS}: {len(lines) + 1} valid pairs\n"
    edit_yaml(repo / "params.yaml", lambda data: data["judge"].update(duplicates="refuse"))
    assert main(["validate", PAIRS]) == 1
    assert capsys.readouterr().err == (
        f"assay validate: {PAIRS}:{len(lines) + 1}: field 'id': pair 'copied-row' holds the same question, facts and "
        f"answers as pair {original!r} on line 2, and judge.duplicates is refuse (fix: remove one of lines 2 and "
        f"{len(lines) + 1}, or set judge.duplicates: share in params.yaml to ask the judge once and give both pairs "
        "its reply)\n")
