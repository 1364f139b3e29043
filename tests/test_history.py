"""Every check that reads git history refuses a shallow clone (issue 31, attack 8), tested with a real
`git clone --depth 1`: the append-only holdout ledger, the opening registration (verify, `assay study
verdict`), `--base` (the policy review) and `assay verify` itself, which refuses before recomputing.

Each case is first shown to *catch* the tampering in a full clone, so the refusal in the shallow clone
is what stands between the tampering and a pass (before the refusal, the shallow clone saw one commit
and found nothing: the tests named `..._would_pass_unseen_...` failed)."""

from __future__ import annotations

import json

import pytest

from assay.cli import main
from assay.core.history import HistoryMissing, is_shallow, require_history
from conftest import ROOT, run

LEDGER = "data/holdout_ledger.jsonl"
LOCK = "data/relevance/received.json"


def commit(root, message):
    run(["git", "add", "-A"], root)
    run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", message], root)


def shallow_clone(source, dest):
    run(["git", "clone", "-q", "--depth", "1", f"file://{source}", str(dest)], dest.parent)
    assert run(["git", "rev-list", "--count", "HEAD"], dest).stdout.strip() == "1"  # one commit: the history is gone
    return dest


def full_clone(source, dest):
    run(["git", "clone", "-q", f"file://{source}", str(dest)], dest.parent)
    return dest


@pytest.fixture
def tampered(tmp_path):
    """A repository whose second commit erased a ledger row and re-registered the opening (both caught by history)."""
    repo = tmp_path / "origin"
    (repo / "data/relevance").mkdir(parents=True)
    run(["git", "init", "-q"], repo)
    (repo / LEDGER).write_text('{"candidate": "a", "dataset": "d", "verdict": "fail"}\n'
                               '{"candidate": "b", "dataset": "d", "verdict": "fail"}\n', encoding="utf-8")
    (repo / LOCK).write_text(json.dumps({"opening": {"opening.json": "1" * 64}}) + "\n", encoding="utf-8")
    commit(repo, "two looks; the holdout opened")
    (repo / LEDGER).write_text('{"candidate": "a", "dataset": "d", "verdict": "fail"}\n', encoding="utf-8")
    (repo / LOCK).write_text(json.dumps({"opening": {"opening.json": "2" * 64}}) + "\n", encoding="utf-8")
    commit(repo, "a look erased; the thresholds re-registered")
    return repo


def test_is_shallow_tells_a_depth_1_clone_from_a_full_one_and_from_no_repository(tampered, tmp_path):
    assert is_shallow(shallow_clone(tampered, tmp_path / "shallow"))
    assert not is_shallow(full_clone(tampered, tmp_path / "full"))
    assert not is_shallow(tampered)
    outside = tmp_path / "plain"
    outside.mkdir()
    assert not is_shallow(outside)  # not a work tree: the checks say for themselves that history is unavailable
    require_history(outside)
    require_history(tmp_path / "full")


def test_require_history_names_the_check_and_the_fix(tampered, tmp_path):
    shallow = shallow_clone(tampered, tmp_path / "shallow")
    with pytest.raises(HistoryMissing) as caught:
        require_history(shallow / "data", "the append-only check of x")  # from a subfolder too
    assert str(caught.value) == ("this is a shallow clone: the append-only check of x reads earlier commits, which "
                                 "are not here, so it would find nothing wrong and pass (fix: check out with "
                                 "`fetch-depth: 0` in actions/checkout, or run `git fetch --unshallow`)")
    assert caught.value.exit_code == 2


def test_the_append_only_ledger_erased_row_would_pass_unseen_in_a_shallow_clone_and_is_refused(tampered, tmp_path):
    from assay.release.verify import append_only_differences

    found = append_only_differences(full_clone(tampered, tmp_path / "full"), LEDGER)
    assert [d.path for d in found] == [LEDGER] and '"candidate":"b"' in found[0].detail
    with pytest.raises(HistoryMissing, match=r"the append-only check of data/holdout_ledger.jsonl .*`fetch-depth: 0`"):
        append_only_differences(shallow_clone(tampered, tmp_path / "shallow"), LEDGER)


def test_the_re_registered_opening_would_pass_unseen_in_a_shallow_clone_and_is_refused(tampered, tmp_path):
    from assay.release.verify import opening_differences
    from assay.study.opening import HoldoutRefused
    from assay.study.registration import opening_history, require_registered_opening

    full = full_clone(tampered, tmp_path / "full")
    assert opening_history(full, LOCK).changed
    assert [d.path for d in opening_differences(full, LOCK)] == [LOCK]
    with pytest.raises(HoldoutRefused):
        require_registered_opening(full, LOCK)
    shallow = shallow_clone(tampered, tmp_path / "shallow")
    for check in (opening_history, opening_differences, require_registered_opening):
        with pytest.raises(HistoryMissing, match=r"opening registration check of data/relevance/received.json"):
            check(shallow, LOCK)


def test_the_policy_review_refuses_a_shallow_clone_before_reading_the_base(tampered, tmp_path):
    from assay.release.policy import review_policy

    shallow = shallow_clone(tampered, tmp_path / "shallow")
    with pytest.raises(HistoryMissing, match=r"--base reads earlier commits"):
        review_policy(str(shallow), "HEAD")


def test_assay_verify_refuses_a_shallow_clone_in_one_line_before_recomputing(tampered, tmp_path, capsys):
    shallow = shallow_clone(tampered, tmp_path / "shallow")
    (shallow / "dvc.yaml").write_text("stages: {}\n", encoding="utf-8")  # never read: the refusal comes first
    assert main(["verify", "--root", str(shallow)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.splitlines()[-1] == (
        "assay verify: this is a shallow clone: the check of the append-only ledger and the opening registration reads earlier "
        "commits, which are not here, so it would find nothing wrong and pass (fix: check out with `fetch-depth: 0` "
        "in actions/checkout, or run `git fetch --unshallow`)")
    assert "Traceback" not in out.err


def test_assay_study_verdict_refuses_a_shallow_clone_of_this_repository(tmp_path, capsys):
    """The demo's study, cloned with depth 1: the verdict would otherwise take HEAD's lock as the registration."""
    shallow = tmp_path / "shallow"
    run(["git", "clone", "-q", "--depth", "1", "--no-checkout", f"file://{ROOT}", str(shallow)], tmp_path)
    run(["git", "checkout", "-q", "HEAD", "--", "data/relevance", "params.yaml"], shallow)
    code = main(["study", "verdict", "--root", str(shallow)])
    out = capsys.readouterr()
    assert code == 2, out
    assert "this is a shallow clone: the opening registration check of data/relevance/received.json" in out.err
    assert "`fetch-depth: 0`" in out.err
