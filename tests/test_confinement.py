"""Everything stays inside: params paths, names that build paths, plan queues and data symlinks.

Each escape the red team tried (issue 22) is refused with file:line, field and fix, in `assay
validate` and in the stage, and nothing is written outside the repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from pydantic import BaseModel, ValidationError

from assay.cli import main
from assay.core.confinement import PlainName, ProjectPath, confined_file, name_problem, outside_problem
from assay.core.errors import InputError
from assay.data.corpus import load_corpus
from assay.data.leakage.sources import SourceFolder
from assay.data.plan import load_plan
from assay.release.params_check import check_params
from conftest import ROOT


class Names(BaseModel):
    name: PlainName


class Paths(BaseModel):
    path: ProjectPath


@pytest.mark.parametrize("bad", ["../evil", "a/b", "a\\b", "ev\0il", ".hidden", "", ".", "..", "a\nb", "x" * 101, "ünï"])
def test_plain_name_refuses_what_could_build_another_path(bad):
    assert name_problem(bad) is not None
    with pytest.raises(ValidationError) as info:
        Names(name=bad)
    assert info.value.errors()[0]["type"] == "plain_name"


@pytest.mark.parametrize("good", ["demo", "v2.1", "hard_q-3", "A"])
def test_plain_name_accepts_plain_names(good):
    assert Names(name=good).name == good


def test_project_path_resolves_inside_the_root_with_symlinks_followed(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / "data").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    (root / "data" / "link").symlink_to(outside)
    (root / "data" / "inner").symlink_to(root / "data")
    ctx = {"root": root}
    for good in ["data/cases.jsonl", "data/not/yet/there", "data/inner/x", str(root / "data" / "x"), "data/../data/x"]:
        assert outside_problem(good, root.resolve()) is None, good
        assert Paths.model_validate({"path": good}, context=ctx).path == good
    for bad in ["../outside/secret.txt", "/etc/passwd", "../../../etc/passwd", "data/link/secret.txt", "data/link",
                "a\0b", "  "]:
        assert outside_problem(bad, root.resolve()) is not None, bad
        with pytest.raises(ValidationError):
            Paths.model_validate({"path": bad}, context=ctx)
    assert "through a symbolic link" in outside_problem("data/link/secret.txt", root.resolve())


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A copy of the demo's data and params in tmp/repo, the working directory; tmp/outside beside it."""
    dest = tmp_path / "repo"
    shutil.copytree(ROOT / "data", dest / "data", ignore=shutil.ignore_patterns("derived"))
    shutil.copy(ROOT / "params.yaml", dest / "params.yaml")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "evil.jsonl").write_text((ROOT / "data/reviews/demo.jsonl").read_text(encoding="utf-8"))
    monkeypatch.chdir(dest)
    return dest


def replace_in(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# (what the red team wrote in params.yaml, the field reported, the line it is on in the demo params.yaml)
ESCAPES = [
    ("snapshots: [demo]", 'snapshots: ["../../../outside/evil"]', "review.snapshots.0"),
    ("cases: data/cases.jsonl", "cases: /etc/passwd", "inputs.cases"),
    ("cases: data/cases.jsonl", "cases: ../../../etc/passwd", "inputs.cases"),
    ("source: src/assay/rag/systems.py  #", "source: ../outside/evil.jsonl  #", "rag.versions.baseline.source"),
    ("corpus: data/relevance/corpus.jsonl", "corpus: /etc/passwd", "relevance.corpus"),
    ("baseline:\n      system", "../evil:\n      system", "rag.versions"),
]


@pytest.mark.parametrize("old, new, field", ESCAPES, ids=[e[2] + ":" + e[1][:20] for e in ESCAPES])
def test_assay_validate_refuses_every_params_path_or_name_leading_out(repo, capsys, old, new, field):
    replace_in(repo / "params.yaml", old, new)
    line = next(i for i, text in enumerate((repo / "params.yaml").read_text().splitlines(), 1) if new.split("\n")[0] in text)
    problems = check_params(repo / "params.yaml")
    assert [p.field for p in problems] == [field] or field == "rag.versions" and problems, problems
    assert problems[0].fix and (problems[0].line == line or field in ("rag.versions", "review.snapshots.0"))
    capsys.readouterr()
    assert main(["validate", "params.yaml"]) == 1
    err = capsys.readouterr().err
    assert "params.yaml:" in err and field.split(".")[0] in err and "fix:" in err and "Traceback" not in err


def test_a_symlinked_input_folder_leading_out_is_refused(repo, tmp_path):
    shutil.rmtree(repo / "data" / "sources")
    (repo / "data" / "sources").symlink_to(tmp_path / "outside")
    problems = check_params(repo / "params.yaml")
    assert [p.field for p in problems] == ["inputs.sources"]
    assert "through a symbolic link" in problems[0].message


def test_the_review_stage_refuses_an_escaping_snapshot_and_writes_nothing_outside(repo, tmp_path):
    replace_in(repo / "params.yaml", "snapshots: [demo]", 'snapshots: ["../../outside/evil"]')
    shutil.copytree(ROOT / "stages", repo / "stages")
    before = sorted(os.listdir(tmp_path))
    out = subprocess.run([sys.executable, "stages/review.py", "../../outside/evil"], cwd=repo, capture_output=True, text=True)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "review.snapshots.0" in out.stderr and "path separator" in out.stderr and "fix:" in out.stderr
    assert sorted(os.listdir(tmp_path)) == before and sorted(os.listdir(tmp_path / "outside")) == ["evil.jsonl"]
    assert not (repo / "metrics").exists() and not (repo / "reports").exists()


def test_plan_queue_names_must_be_plain(repo):
    plan = repo / "data" / "plan.yaml"
    replace_in(plan, "queues: [demo]", "queues: [../../outside/evil]")
    with pytest.raises(InputError) as info:
        load_plan(plan)
    problem = info.value.problems[0]
    assert problem.field == "review_agreement.queues.0" and problem.line is not None and problem.fix


def test_plan_dataset_path_must_stay_inside(repo):
    plan = repo / "data" / "plan.yaml"
    replace_in(plan, "path: data/cases.jsonl", "path: /etc/passwd")
    with pytest.raises(InputError) as info:
        load_plan(plan)
    assert info.value.problems[0].field == "dataset.path"


def test_a_corpus_document_symlinked_out_of_the_repository_is_refused(repo, tmp_path):
    (tmp_path / "outside" / "kb-evil.md").write_text("---\ntitle: x\nlang: en\nupdated: 2025-01-01\n---\nbody\n")
    (repo / "data" / "corpus" / "kb-evil.md").symlink_to(tmp_path / "outside" / "kb-evil.md")
    with pytest.raises(InputError) as info:
        load_corpus(repo / "data" / "corpus")
    assert [p.path for p in info.value.problems] == [str(repo / "data" / "corpus" / "kb-evil.md")]
    assert "outside the repository" in info.value.problems[0].message and info.value.problems[0].fix


def test_a_source_symlinked_to_etc_passwd_is_refused_but_an_inside_link_is_read(repo):
    (repo / "data" / "sources" / "inside.txt").write_text("an inside line\n")
    (repo / "data" / "sources" / "alias.txt").symlink_to(repo / "data" / "sources" / "inside.txt")
    assert confined_file(repo / "data" / "sources" / "alias.txt") is None
    assert "alias" in SourceFolder(repo / "data" / "sources").names
    (repo / "data" / "sources" / "passwd.txt").symlink_to("/etc/passwd")
    with pytest.raises(InputError) as info:
        SourceFolder(repo / "data" / "sources")
    assert info.value.problems[0].path.endswith("passwd.txt") and "outside the repository" in str(info.value)


def test_queue_create_and_export_refuse_names_and_outputs_leading_out(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "q.sqlite")
    for args, field in [(["queue", "create", "../evil", "--from", "x.jsonl", "--fill", "random", "--n", "1", "--seed", "1", "--db", db], "NAME"),
                        (["queue", "export", "../../evil", "--db", db], "NAME"),
                        (["queue", "export", "demo", "--out", "../evil.jsonl", "--db", db], "--out"),
                        (["queue", "export", "demo", "--out", "/tmp/evil.jsonl", "--db", db], "--out")]:
        capsys.readouterr()
        assert main(args) == 1
        err = capsys.readouterr().err
        assert f"field '{field}'" in err and "fix:" in err and "Traceback" not in err, err
    assert sorted(os.listdir(tmp_path)) == []  # not even the database was created
