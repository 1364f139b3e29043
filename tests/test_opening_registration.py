"""The opening is registered once (issue 22): the verdict, its stage and `assay verify` refuse a
re-registered opening hash, naming the lock and the first opening commit; without git they say so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay.cli import main
from assay.study.evidence import ENV
from assay.study.opening import HoldoutRefused
from assay.study.received import LOCK
from assay.study.registration import opening_history, require_registered_opening
from conftest import run

STUDY = Path(__file__).resolve().parents[1] / "data/relevance/study.yaml"


def write_lock(root: Path, opening: str) -> None:
    lock = root / LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(json.dumps({"judgments": {}, "opening": {"opening.json": opening}}, indent=2), encoding="utf-8")


def commit(root: Path, message: str) -> str:
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-q", "-m", message], root)
    return run(["git", "rev-parse", "HEAD"], root).stdout.strip()


@pytest.fixture
def reopened(tmp_path):
    """A repository whose lock registered 'a'*64 at its opening commit and now holds 'b'*64."""
    run(["git", "init", "-q"], tmp_path)
    (tmp_path / "data/relevance").mkdir(parents=True)
    shutil.copy(STUDY, tmp_path / "data/relevance/study.yaml")
    write_lock(tmp_path, "absent")
    commit(tmp_path, "sealed")
    write_lock(tmp_path, "a" * 64)
    opened = commit(tmp_path, "opened")
    write_lock(tmp_path, "c" * 64)
    commit(tmp_path, "re-opened by hand")  # committing the change does not launder it
    write_lock(tmp_path, "b" * 64)
    return tmp_path, opened


def test_history_names_the_first_opening_commit(reopened):
    root, opened = reopened
    history = opening_history(root)
    assert history.changed and history.commit == opened and history.registered == "a" * 64
    assert history.current == "b" * 64 and history.unavailable == ""
    write_lock(root, "a" * 64)
    assert not opening_history(root).changed and require_registered_opening(root) == ""


def test_nothing_registered_is_no_refusal(tmp_path):
    run(["git", "init", "-q"], tmp_path)
    write_lock(tmp_path, "absent")
    commit(tmp_path, "sealed")
    write_lock(tmp_path, "b" * 64)  # opened in the working tree, not yet committed: nothing registered
    assert opening_history(tmp_path).commit is None and require_registered_opening(tmp_path) == ""


def test_relevance_verdict_refuses_a_reregistered_opening(reopened, capsys, monkeypatch):
    root, opened = reopened
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.chdir(root)
    assert main(["study", "verdict", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert LOCK in err and opened[:12] in err and "recorded once" in err and "bbbbbbbbbbbb" in err


def test_the_verdict_stage_step_refuses_before_reading_anything(reopened, monkeypatch):
    from assay.study.verdict import verdict_step

    root, opened = reopened
    monkeypatch.chdir(root)
    with pytest.raises(HoldoutRefused, match=rf"{LOCK}: .*commit {opened[:12]} registered aaaaaaaaaaaa"):
        verdict_step(None, None, None, {}, {}, 0.95, {})  # type: ignore[arg-type]


def test_verify_uses_the_same_history(reopened):
    from assay.release.verify import opening_differences

    root, opened = reopened
    [diff] = opening_differences(root)
    assert diff.path == LOCK and diff.detail == opening_history(root).problem() and opened[:12] in diff.detail


def test_without_git_the_verdict_says_so_and_goes_on(reopened, capsys, monkeypatch):
    root, _ = reopened
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.chdir(root)
    monkeypatch.setenv("PATH", str(root / "no-such-bin"))  # no git program to run
    note = require_registered_opening(root)
    assert note.startswith("(opening history not checked: git cannot be run")
    assert main(["study", "verdict", "--root", str(root)]) == 2  # no verdict in this toy repository: missing
    out = capsys.readouterr()
    assert "opening history not checked: git cannot be run" in out.out and "recorded once" not in out.out + out.err


def test_outside_a_git_work_tree_the_note_says_why(tmp_path):
    write_lock(tmp_path, "a" * 64)
    history = opening_history(tmp_path)
    assert history.unavailable.startswith("git history cannot be read") and not history.changed
