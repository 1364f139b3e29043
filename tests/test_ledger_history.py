"""The holdout ledger is append-only (issue 22): `assay verify` fails when a row an earlier commit
held is gone, naming the row and the commit; appending is fine."""

from __future__ import annotations

import json

from assay.release.ledger import LEDGER, lost_rows
from assay.release.verify import append_only_differences
from conftest import run

ROWS = [{"candidate": f"c{i}", "dataset": "d1", "verdict": "fail"} for i in range(3)]


def write(root, rows):
    (root / LEDGER).parent.mkdir(parents=True, exist_ok=True)
    (root / LEDGER).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")


def commit(root, message):
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-q", "-m", message], root)


def test_deleting_or_rewriting_an_old_row_is_a_difference_naming_its_commit(tmp_path):
    run(["git", "init", "-q"], tmp_path)
    write(tmp_path, ROWS[:2])
    commit(tmp_path, "two looks")
    first = run(["git", "rev-parse", "HEAD"], tmp_path).stdout.strip()
    write(tmp_path, ROWS)
    commit(tmp_path, "a third look")
    assert append_only_differences(tmp_path) == []  # appending is what the gate does

    write(tmp_path, [ROWS[1], ROWS[2]])  # the red team: delete an older candidate's row
    [gone] = append_only_differences(tmp_path)
    assert gone.path == LEDGER and '"candidate":"c0"' in gone.detail and "append-only" in gone.detail
    assert run(["git", "rev-parse", "HEAD"], tmp_path).stdout.strip()[:12] in gone.detail

    commit(tmp_path, "hide the row in a commit too")  # committing the deletion does not launder it
    [still] = append_only_differences(tmp_path)
    assert '"candidate":"c0"' in still.detail and first[:12] not in still.detail  # the newest commit holding it

    write(tmp_path, [ROWS[0] | {"verdict": "pass"}, ROWS[1], ROWS[2]])  # a rewritten verdict is a lost row
    assert {'"verdict":"fail"' in d.detail for d in append_only_differences(tmp_path)} == {True}


def test_no_history_no_difference(tmp_path):
    run(["git", "init", "-q"], tmp_path)
    assert append_only_differences(tmp_path) == []
    assert lost_rows(ROWS, list(reversed(ROWS))) == []


def test_the_opening_registered_in_git_cannot_be_replaced(tmp_path):
    from assay.release.verify import opening_differences

    lock = tmp_path / "data/relevance/received.json"
    lock.parent.mkdir(parents=True)

    def write_lock(opening):
        lock.write_text(json.dumps({"judgments": {}, "opening": {"opening.json": opening}}, indent=2))

    run(["git", "init", "-q"], tmp_path)
    write_lock("absent")
    commit(tmp_path, "sealed")
    assert opening_differences(tmp_path) == []
    write_lock("a" * 64)
    commit(tmp_path, "opened")
    opened = run(["git", "rev-parse", "HEAD"], tmp_path).stdout.strip()
    assert opening_differences(tmp_path) == []
    write_lock("b" * 64)  # the red team: a rewritten opening.json, re-locked by hand
    commit(tmp_path, "re-opened with other thresholds")
    [diff] = opening_differences(tmp_path)
    assert opened[:12] in diff.detail and "recorded once" in diff.detail and "bbbbbbbbbbbb" in diff.detail
