"""Facts in none of their case's documents: the validate stage counts and names them, and does not fail."""

import json
import shutil
import subprocess
import sys

from assay.data.cases import CaseRecord
from assay.data.corpus import Document
from assay.data.unpassable import unpassable_facts
from conftest import ROOT


def test_matching_folds_like_the_runner_and_checks_only_the_cases_documents():
    docs = {"a": Document(id="a", title="A", lang="de", updated="2026-01-01", text="Die Frist beträgt 30\u00a0Tage."),
            "b": Document(id="b", title="B", lang="de", updated="2026-01-01", text="Rückgabe per Post.")}
    case = CaseRecord(id="c1", question="Wie lange?", task="lookup", set="golden", lang="de", expect="answer",
                      doc_ids=["a"], facts=["３０ TAGE", "per Post", "Frist"], why="the deadline is in document a")
    problems = unpassable_facts("cases.jsonl", [(7, case)], docs)
    # full-width digits and upper case fold to the document's words; "per Post" is only in b, not cited
    assert [(p.line, p.field) for p in problems] == [(7, "facts[1]")]
    assert unpassable_facts("cases.jsonl", [(1, case.model_copy(update={"doc_ids": ["a", "b"]}))], docs) == []
    assert [p.field for p in unpassable_facts("x", [(None, case.model_copy(update={"doc_ids": ["gone"]}))], docs)] == \
        ["facts[0]", "facts[1]", "facts[2]"]  # an unknown doc_id holds nothing


def test_the_validate_stage_counts_and_names_them_without_failing(tmp_path):
    shutil.copytree(ROOT / "data", tmp_path / "data")
    shutil.copy(ROOT / "params.yaml", tmp_path / "params.yaml")
    cases = tmp_path / "data" / "cases.jsonl"
    lines = cases.read_text(encoding="utf-8").splitlines()
    lines[2] = json.dumps({**json.loads(lines[2]), "facts": ["BDT 500", "five hundred taka"]})
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "stages" / "validate.py")], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "warning: data/cases.jsonl:3: field 'facts[1]': 'five hundred taka' appears in none of the case's " \
           "documents (kb-moving-home)" in done.stderr
    assert json.loads((tmp_path / "metrics" / "dataset.json").read_text(encoding="utf-8"))["unpassable_facts"] == 1
