"""`assay ci` refuses, before recomputing anything, a pipeline the installed assay did not declare (issue 31,
attacks 1 and 2), a second file DVC would read stages from, and a shallow clone (attack 8); and `verify(strict=True)`
removes every tracked output, so a committed file cannot be carried through as another stage's input.

The full recompute and the gate on the recomputed outputs are in tests/test_e2e_ci.py."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from assay.cli import main
from assay.cli.ci import render_markdown, CiReport
from assay.release.ci import describe_difference, pipeline_difference
from assay.release.verify import RecomputeFailed, verify
from conftest import BIN, run

pytestmark = pytest.mark.e2e
ASSAY, DVC = str(BIN / "assay"), str(BIN / "dvc")

FORGE_STAGE = """\
  forge:
    cmd: cp forged/gate.json metrics/gate.json
    deps: [metrics/gate.json]
"""


def commit(root, message="change"):
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", message], root)


@pytest.fixture(scope="module")
def initialised(tmp_path_factory):
    """A project `assay init` made and committed (not reproduced: these refusals come before any stage runs)."""
    top = tmp_path_factory.mktemp("init")
    run([ASSAY, "init", str(top / "proj")], top)
    commit(top / "proj", "init")
    return top / "proj"


@pytest.fixture
def project(initialised, tmp_path):
    dest = tmp_path / "proj"
    shutil.copytree(initialised, dest, symlinks=True)
    return dest


def ci(root, capsys, *extra):
    code = main(["ci", "--root", str(root), *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_generated_pipeline_is_accepted(project):
    assert pipeline_difference(project) is None


def test_attack_1_a_stage_added_to_dvc_yaml_is_refused_before_anything_runs(project, capsys):
    dvc_yaml = project / "dvc.yaml"
    dvc_yaml.write_text(dvc_yaml.read_text(encoding="utf-8").rstrip("\n") + "\n" + FORGE_STAGE, encoding="utf-8")
    commit(project, "a stage that copies forged files")
    code, out, _ = ci(project, capsys)
    assert code == 2
    assert ("REFUSED   dvc.yaml differs from what the installed assay generates from params.yaml's parts: stage 'forge' "
            "is not one assay declares for these parts (fix: run `assay pipeline` and commit dvc.yaml; add stages as "
            "parts, not by hand)") in out
    assert "verified:" not in out and "DIFFERS" not in out  # refused before recomputing
    assert out.endswith("assay ci: exit 2 (an input or verification problem)\n")


def test_attack_2_a_stage_deleted_and_its_outputs_listed_as_deps_is_refused(project, capsys):
    text = (project / "dvc.yaml").read_text(encoding="utf-8")
    start = text.index("\n  gate:\n")
    # the gate stage is gone and the forged metrics/gate.json becomes an input of compare, which nothing recomputes
    deps = text.index("    deps:\n", text.index("\n  compare:\n")) + len("    deps:\n")
    forged = text[:deps] + "      - metrics/gate.json\n" + text[deps:start + 1]
    (project / "dvc.yaml").write_text(forged, encoding="utf-8")
    commit(project, "gate stage removed")
    code, out, _ = ci(project, capsys)
    assert code == 2
    assert "stage 'gate' that the parts need is missing" in out


def test_an_edited_line_is_named_with_both_versions(project):
    path = project / "dvc.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    number = lines.index("    cmd: python -m assay.stages.gate\n") + 1
    lines[number - 1] = "    cmd: python forge.py\n"
    path.write_text("".join(lines), encoding="utf-8")
    assert pipeline_difference(project) == (f"line {number}: committed '    cmd: python forge.py', "
                                            "assay generates '    cmd: python -m assay.stages.gate'")


def test_a_second_pipeline_file_and_a_dvc_file_with_a_command_are_refused(project, capsys):
    (project / "sub").mkdir()
    (project / "sub/dvc.yaml").write_text("stages:\n  forge:\n    cmd: cp a b\n", encoding="utf-8")
    (project / "old.dvc").write_text("cmd: cp forged.json metrics/gate.json\nouts:\n- path: metrics/gate.json\n",
                                     encoding="utf-8")
    commit(project, "stages elsewhere")
    code, out, _ = ci(project, capsys)
    assert code == 2
    assert "REFUSED   sub/dvc.yaml: a second pipeline file; DVC would run its stages (fix: delete it" in out
    assert "old.dvc: a .dvc file with a `cmd`; DVC would run it as a stage (fix: delete it" in out


def test_attack_8_a_shallow_clone_is_refused_naming_fetch_depth(project, tmp_path, capsys):
    (project / "README.md").write_text("second commit\n", encoding="utf-8")
    commit(project, "second")
    shallow = tmp_path / "shallow"
    run(["git", "clone", "-q", "--depth", "1", f"file://{project}", str(shallow)], tmp_path)
    code, out, _ = ci(shallow, capsys)
    assert code == 2
    assert "this is a shallow clone" in out and "`fetch-depth: 0`" in out


def test_describe_difference_names_the_end_of_file():
    assert describe_difference("a\n", "a\nb\n") == "line 2: committed (end of file), assay generates 'b'"
    assert describe_difference("a\nb\n", "a\n") == "line 2: committed 'b', assay generates (end of file)"
    assert describe_difference("a\r\n", "a\n") == "line endings or the final newline differ"


def test_the_markdown_fence_is_longer_than_any_backtick_run_inside():
    name = "x ````` ## heading ![i](http://127.0.0.1/x.png)\x1b[31m"
    report = CiReport(problems=[name])
    text = render_markdown(report, 2)
    body = text.split("### Refused\n\n", 1)[1]
    shown = name.replace("\x1b", "\\x1b")  # the escape character is shown, not sent to the page
    assert body == f"``````\n{shown}\n``````\n"  # the run of five cannot close the fence of six
    assert re.match(r"## assay ci: exit 2 \(an input or verification problem\)\n", text)


# verify(strict=True) on a hand-made DVC project: the defence in depth behind the pipeline check
MAKE = """\
import pathlib
pathlib.Path("metrics").mkdir(exist_ok=True)
pathlib.Path("metrics/score.json").write_text('{"usable": 0}\\n')
"""
REPORT = """\
import pathlib
pathlib.Path("reports").mkdir(exist_ok=True)
pathlib.Path("reports/summary.md").write_text(pathlib.Path("metrics/score.json").read_text())
"""
# the `score` stage is gone; its forged output is listed as an input of `report`
DELETED = """\
stages:
  report:
    cmd: python report.py
    deps: [report.py, metrics/score.json]
    outs:
      - reports/summary.md:
          cache: false
"""


def test_strict_verify_removes_an_output_listed_as_a_dependency_so_the_forgery_is_not_carried_through(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    for name, text in {"make.py": MAKE, "report.py": REPORT, "dvc.yaml": DELETED}.items():
        (root / name).write_text(text, encoding="utf-8")
    (root / "metrics").mkdir()
    (root / "metrics/score.json").write_text('{"usable": 1}\n', encoding="utf-8")  # forged
    run(["git", "init", "-q"], root)
    run([DVC, "init", "-q"], root)
    run([DVC, "repro", "-q"], root)
    commit(root, "forged")
    assert verify(root).ok  # plain verify compares the forged file with itself: attack 2
    with pytest.raises(RecomputeFailed, match="metrics/score.json"):
        verify(root, strict=True)  # strict removed it, and no stage writes it


def test_strict_stages_see_no_secret_and_no_pythonpath(tmp_path, monkeypatch):
    root = tmp_path / "p"
    root.mkdir()
    (root / "env.py").write_text("import os, json, pathlib, sys\npathlib.Path('metrics').mkdir(exist_ok=True)\n"
                                 "pathlib.Path('metrics/env.json').write_text(json.dumps({'key': os.environ.get("
                                 "'OPENAI_API_KEY'), 'path': os.environ.get('PYTHONPATH'), 'safe': os.environ.get("
                                 "'PYTHONSAFEPATH')}))\n", encoding="utf-8")
    (root / "dvc.yaml").write_text("stages:\n  env:\n    cmd: python env.py\n    deps: [env.py]\n    metrics:\n"
                                   "      - metrics/env.json:\n          cache: false\n", encoding="utf-8")
    run(["git", "init", "-q"], root)
    run([DVC, "init", "-q"], root)
    commit(root, "env")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-seen")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    scratch = tmp_path / "scratch"
    verify(root, scratch, strict=True)
    assert (scratch / "metrics/env.json").read_text(encoding="utf-8") == '{"key": null, "path": null, "safe": "1"}'


def test_git_reports_shallow_as_this_module_expects(tmp_path):
    # the refusal above relies on `git rev-parse --is-shallow-repository` (git >= 2.15)
    proc = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode != 0 or proc.stdout.strip() in ("true", "false")
