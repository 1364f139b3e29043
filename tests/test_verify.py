"""`assay verify` on a small DVC project: recompute in a scratch copy, refuse committed outputs that differ."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay.cli import main
from assay.core.errors import AssayError
from assay.release.verify import RecomputeFailed, replayed_stages, verify
from conftest import BIN, run

pytestmark = pytest.mark.e2e
DVC = str(BIN / "dvc")

MAKE = """\
import json, pathlib
numbers = [int(x) for x in pathlib.Path("inputs.txt").read_text().split()]
pathlib.Path("metrics").mkdir(exist_ok=True)
pathlib.Path("reports").mkdir(exist_ok=True)
pathlib.Path("metrics/score.json").write_text(json.dumps({"total": sum(numbers), "n": len(numbers), "usable": int(sum(numbers) > 5)}, indent=2, sort_keys=True) + "\\n")
pathlib.Path("reports/table.md").write_text("| n | square |\\n" + "".join(f"| {x} | {x * x} |\\n" for x in numbers))
pathlib.Path("data/derived").mkdir(parents=True, exist_ok=True)
pathlib.Path("data/derived/big.bin").write_bytes(bytes(numbers))
"""
# a "judge" whose replies are not reproducible (like a real model): only its committed replies can be replayed
JUDGE = """\
import os, pathlib
pathlib.Path("data/derived/judge").mkdir(parents=True, exist_ok=True)
pathlib.Path("data/derived/judge/replies.jsonl").write_text(os.urandom(8).hex() + "\\n")
"""
SUMMARY = """\
import json, pathlib
score = json.loads(pathlib.Path("metrics/score.json").read_text())
replies = pathlib.Path("data/derived/judge/replies.jsonl").read_text()
pathlib.Path("reports/summary.md").write_text(f"total {score['total']}\\nreplies {len(replies.split())}\\n")
"""
DVC_YAML = """\
stages:
  square:
    cmd: python make.py
    deps: [make.py, inputs.txt]
    outs:
      - reports/table.md:
          cache: false
      - data/derived/big.bin
    metrics:
      - metrics/score.json:
          cache: false
  judge:
    cmd: python judge.py
    deps: [judge.py]
    outs:
      - data/derived/judge:
          cache: false
  summary:
    cmd: python summary.py
    deps: [summary.py, metrics/score.json, data/derived/judge/replies.jsonl]
    outs:
      - reports/summary.md:
          cache: false
"""


def commit(root, message="change"):
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", message], root)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A committed project on which `dvc repro` has run, with the judge configured as a real one."""
    root = tmp_path_factory.mktemp("project")
    files = {"make.py": MAKE, "judge.py": JUDGE, "summary.py": SUMMARY, "dvc.yaml": DVC_YAML,
             "inputs.txt": "1 2 3\n", "params.yaml": "judge:\n  kind: openai\n"}
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    run(["git", "init", "-q"], root)
    run([DVC, "init", "-q"], root)
    run([DVC, "repro", "-q"], root)
    commit(root, "project")
    return root


@pytest.fixture
def project(built, tmp_path):
    dest = tmp_path / "project"
    shutil.copytree(built, dest, symlinks=True)
    return dest


def verify_cli(root, capsys, *extra):
    code = main(["verify", "--root", str(root), *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_clean_project_verifies_with_exit_0_and_the_real_judge_is_replayed(project, capsys):
    code, out, _ = verify_cli(project, capsys)
    assert code == 0, out
    assert "replayed  judge: judge.kind openai" in out
    assert out.rstrip().endswith("verified: 4 committed files match a recomputation of 2 stages from the committed inputs")
    assert not (project / ".assay").exists()  # verify leaves no record another step could be made to believe
    result = verify(project)
    # the git-stored outputs and everything under metrics/ and reports/; the cached big.bin is not in git
    assert result.compared == ["data/derived/judge/replies.jsonl", "metrics/score.json", "reports/summary.md",
                               "reports/table.md"]
    assert result.stages == ["square", "summary"] and result.ok


def test_with_the_fake_judge_the_judge_stage_is_recomputed_too(project, capsys):
    (project / "params.yaml").write_text("judge:\n  kind: fake\n", encoding="utf-8")
    commit(project)
    code, out, _ = verify_cli(project, capsys)
    assert code == 2
    # the toy judge is not deterministic, so its recomputed replies differ: proof that it ran
    assert "DIFFERS   data/derived/judge/replies.jsonl: line 1: committed '" in out


def test_forged_metric_committed_with_dvc_commit_is_exit_2_naming_file_and_key(project, capsys):
    score = project / "metrics/score.json"
    data = json.loads(score.read_text(encoding="utf-8"))
    assert data == {"n": 3, "total": 6, "usable": 1}
    score.write_text(json.dumps({**data, "usable": 0}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    run([DVC, "commit", "-f", "-q"], project)
    commit(project, "forged")
    assert run([DVC, "status"], project).stdout.strip() == "Data and pipelines are up to date."
    code, out, _ = verify_cli(project, capsys)
    assert code == 2
    assert "DIFFERS   metrics/score.json: key 'usable': committed 0, recomputed 1" in out
    assert out.rstrip().endswith("verdict: 1 of 4 committed files differ from what the committed inputs give "
                                 "(fix: run `dvc repro` and commit its outputs; never edit outputs by hand)")


def test_forged_report_line_is_exit_2_naming_the_line(project, capsys):
    table = project / "reports/table.md"
    table.write_text(table.read_text(encoding="utf-8").replace("| 3 | 9 |", "| 3 | 10 |"), encoding="utf-8")
    commit(project, "forged")
    code, out, _ = verify_cli(project, capsys)
    assert code == 2
    assert "DIFFERS   reports/table.md: line 4: committed '| 3 | 10 |', recomputed '| 3 | 9 |'" in out


def test_missing_committed_output_and_a_file_no_stage_writes_are_exit_2(project, capsys):
    run(["git", "rm", "-q", "reports/summary.md"], project)
    (project / "metrics/extra.json").write_text('{"usable": 1}\n', encoding="utf-8")
    commit(project, "missing and stray")
    code, out, _ = verify_cli(project, capsys)
    assert code == 2
    assert ("DIFFERS   reports/summary.md: committed file missing (not committed to git); "
            "the pipeline writes it (fix: run `dvc repro` and commit its outputs)") in out
    assert ("DIFFERS   metrics/extra.json: no stage in dvc.yaml writes this file any more, so nothing vouches for it "
            "(fix: delete it, `git rm -q -- metrics/extra.json`, and commit)") in out


def test_an_output_deleted_from_the_working_tree_is_named(project, capsys):
    (project / "metrics/score.json").unlink()  # what `assay gate --skip-dvc-status` once let through
    code, out, _ = verify_cli(project, capsys)
    assert code == 2
    assert "DIFFERS   metrics/score.json: committed file missing (deleted from the working tree)" in out


def test_a_stage_that_fails_in_the_scratch_copy_is_exit_2_with_dvc_tail(project, capsys):
    (project / "inputs.txt").write_text("1 two 3\n", encoding="utf-8")
    commit(project, "bad input")
    code, _, err = verify_cli(project, capsys)
    assert code == 2
    assert "`dvc repro` failed in the scratch copy" in err and "ValueError" in err


def test_scratch_folder_is_kept_and_must_be_empty(project, tmp_path):
    scratch = tmp_path / "scratch"
    assert verify(project, scratch).ok
    assert (scratch / "reports/table.md").read_text(encoding="utf-8").startswith("| n | square |")
    with pytest.raises(RecomputeFailed, match="is not empty"):
        verify(project, scratch)


def test_not_a_git_work_tree(tmp_path):
    with pytest.raises(AssayError, match="is not a git work tree"):
        verify(tmp_path)


def test_an_uncommitted_edit_is_pointed_out(project, capsys):
    table = project / "reports/table.md"
    table.write_text(table.read_text(encoding="utf-8") + "| 4 | 16 |\n", encoding="utf-8")
    code, out, _ = verify_cli(project, capsys)
    assert code == 2
    assert "note: 1 tracked file(s) differ from HEAD (reports/table.md); this verified the working tree" in out
    assert "DIFFERS   reports/table.md: line 5: committed '| 4 | 16 |', recomputed (end of file)" in out


# The demo-level checks below replace the fast half of tests/test_e2e_verify.py (a verify of the whole demo,
# minutes long, now marked slow and run by `make test-all`).
LOGGER = """\
import pathlib
log = pathlib.Path("data/holdout_ledger.jsonl")
rows = log.read_text().splitlines() if log.exists() else []
row = '{"look": "' + pathlib.Path("inputs.txt").read_text().split()[0] + '"}'
log.write_text("".join(r + "\\n" for r in (rows if row in rows else rows + [row])))
"""
LOG_STAGE = """\
  log:
    cmd: python log.py
    deps: [log.py, inputs.txt]
    outs:
      - data/holdout_ledger.jsonl:
          cache: false
          persist: true
"""


def test_an_append_only_ledger_is_kept_and_a_recomputation_must_add_nothing_to_it(project, capsys):
    """The holdout ledger (the demo's gate stage appends a look to it) is history, not a function of the inputs:
    verify keeps its committed rows; a row the recomputation would add is named."""
    (project / "log.py").write_text(LOGGER, encoding="utf-8")
    (project / "dvc.yaml").write_text(DVC_YAML + LOG_STAGE, encoding="utf-8")
    (project / "data/holdout_ledger.jsonl").write_text('{"look": "0"}\n', encoding="utf-8")  # an earlier look, older than the stage
    run([DVC, "repro", "-q", "log"], project)
    assert (project / "data/holdout_ledger.jsonl").read_text(encoding="utf-8") == '{"look": "0"}\n{"look": "1"}\n'
    commit(project, "ledger")
    code, out, _ = verify_cli(project, capsys)
    assert code == 0, out  # recomputed from nothing, the ledger would read "look 1" only
    assert out.rstrip().endswith("verified: 5 committed files match a recomputation of 3 stages from the committed inputs")
    lines = (project / "data/holdout_ledger.jsonl").read_text(encoding="utf-8").splitlines()
    (project / "data/holdout_ledger.jsonl").write_text(lines[0] + "\n", encoding="utf-8")  # a look erased from history
    run([DVC, "commit", "-f", "-q"], project)
    commit(project, "erased")
    code, out, _ = verify_cli(project, capsys)
    assert code == 2
    assert 'DIFFERS   data/holdout_ledger.jsonl: row {"look":"1"} of commit ' in out and "is append-only" in out


def test_the_demo_recomputes_its_fake_judge():
    """The demo's params.yaml names the deterministic fake judge, so verify re-runs the judge stage rather than
    replaying its committed replies (tests/test_e2e_verify.py checks it on the whole demo: no "replayed" line)."""
    from conftest import ROOT

    assert replayed_stages(ROOT) == {}


def test_every_committed_metrics_or_reports_file_of_the_demo_is_written_or_read_by_a_stage(tmp_path):
    """What verify would call "no stage writes this file, so nothing vouches for it" on the demo: every tracked file
    under metrics/ and reports/ is an output of a stage (so recomputed) or an input of one."""
    import subprocess

    from dvc.repo import Repo

    from conftest import ROOT

    tracked = subprocess.run(["git", "ls-files", "--", "metrics", "reports"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    assert len(tracked) > 50
    with Repo(str(ROOT)) as repo:
        stages = list(repo.index.stages)
        written = {Path(o.fs_path).relative_to(ROOT).as_posix() for s in stages for o in s.outs}
        read = {Path(d.fs_path).relative_to(ROOT).as_posix() for s in stages for d in s.deps}
    vouched = [t for t in tracked if t in read or any(t == w or t.startswith(w.rstrip("/") + "/") for w in written)]
    assert sorted(set(tracked) - set(vouched)) == []
