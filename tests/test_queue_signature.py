"""Signed review snapshots (assay.queue.signature): human evidence that cannot be typed in.

Issue 31, attack 6: editing three review choices and dropping `"synthetic": true`, or writing `fill: random`
into a hard fill's header, made a self-declared snapshot count as human evidence. Every reader
(`read_snapshot`, so the review, ppi and training stages, `assay verify` and `assay ci`, which recompute them,
and the gate's check of the listed snapshots) now refuses an unsigned or altered snapshot, and the committed
synthetic demo key cannot sign one that claims to be real."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assay.cli import main
from assay.queue.signature import (DEMO_KEY, SignatureProblem, check_signature, load_private_key, public_key_of,
                                   read_public_key, sign, signed_bytes)
from assay.queue.snapshot import read_snapshot, write_snapshot
from assay.release.gather import _signature_problem
from conftest import ROOT
from queue_helpers import sign_folder

DEMO = ROOT / "data/reviews/demo.jsonl"


@pytest.fixture
def reviews(tmp_path):
    folder = tmp_path / "data/reviews"
    folder.mkdir(parents=True)
    for name in ("demo.jsonl", "compare_demo.jsonl", "queue_key.pub.json"):
        shutil.copy(ROOT / "data/reviews" / name, folder / name)
    return folder


def edit_lines(path: Path, change) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    change(rows)
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")


def test_the_demo_snapshots_are_signed_as_synthetic_with_the_committed_demo_key():
    key = read_public_key(ROOT / "data/reviews/queue_key.pub.json")
    assert key.synthetic and key == public_key_of(load_private_key(str(ROOT / DEMO_KEY)), synthetic=True)
    for name in ("demo", "compare_demo"):
        snapshot = read_snapshot(ROOT / f"data/reviews/{name}.jsonl")
        assert snapshot.queue.synthetic and snapshot.queue.signature


def test_attack_6_three_choices_edited_and_synthetic_dropped_is_refused(reviews):
    path = reviews / "demo.jsonl"

    def forge(rows):
        rows[0]["synthetic"] = False
        del rows[0]["note"]
        for row in rows[1:4]:
            row["choice"] = {"a": "b", "b": "a", "tie": "a"}[row["choice"]]

    edit_lines(path, forge)
    with pytest.raises(SignatureProblem, match=r"demo.jsonl:1: field 'signature': does not match the snapshot under "
                                               r"key TBfTT9mHUX7T\.\.\. of .*queue_key.pub.json: a review row, the fill"):
        read_snapshot(path)
    assert "does not match" in _signature_problem(path)  # the gate's row for a listed snapshot


def test_attack_6_fill_random_written_into_a_hard_fills_header_is_refused(reviews):
    hard = read_snapshot(reviews / "demo.jsonl", signed=False)
    hard.queue.fill = "hard"
    key = load_private_key(str(ROOT / DEMO_KEY))
    write_snapshot(sign(hard, key), reviews / "demo.jsonl")
    assert read_snapshot(reviews / "demo.jsonl").queue.fill == "hard"  # honest: signed as a hard fill
    edit_lines(reviews / "demo.jsonl", lambda rows: rows[0].update(fill="random"))
    with pytest.raises(SignatureProblem, match="does not match the snapshot"):
        read_snapshot(reviews / "demo.jsonl")


def test_the_committed_demo_key_cannot_sign_a_snapshot_that_claims_to_be_real(reviews):
    snapshot = read_snapshot(reviews / "demo.jsonl")
    snapshot.queue.synthetic = False
    write_snapshot(sign(snapshot, load_private_key(str(ROOT / DEMO_KEY))), reviews / "demo.jsonl")
    with pytest.raises(SignatureProblem, match="field 'synthetic': false, but the snapshot is signed with the synthetic "
                                               "demo key"):
        read_snapshot(reviews / "demo.jsonl")


def test_an_unsigned_snapshot_and_a_missing_public_key_are_refused(reviews):
    edit_lines(reviews / "demo.jsonl", lambda rows: rows[0].pop("signature"))
    with pytest.raises(SignatureProblem, match="field 'signature': the snapshot is unsigned"):
        read_snapshot(reviews / "demo.jsonl")
    (reviews / "queue_key.pub.json").unlink()
    with pytest.raises(SignatureProblem, match="queue_key.pub.json: missing"):
        read_snapshot(reviews / "compare_demo.jsonl")


def test_another_key_than_the_committed_one_is_refused(reviews):
    snapshot = read_snapshot(reviews / "demo.jsonl")
    private = sign_folder(reviews)  # the folder now trusts a new key and its snapshots are re-signed with it
    assert read_snapshot(reviews / "demo.jsonl").queue.signature != snapshot.queue.signature
    from assay.queue.signature import private_key_from_text

    with pytest.raises(SignatureProblem, match="or another key signed it"):
        check_signature(snapshot, reviews / "demo.jsonl", public_key_of(private_key_from_text(private, "test")))


def test_the_signature_covers_every_row_the_fill_the_settings_and_the_synthetic_flag():
    snapshot = read_snapshot(DEMO)
    base = signed_bytes(snapshot)
    for change in ({"fill": "hard"}, {"synthetic": False}, {"seed": 8}, {"reviewers_per_item": 2}, {"n_items": 29},
                   {"rubric_sha256": "0" * 64}, {"source": "other"}):
        assert signed_bytes(snapshot.model_copy(update={"queue": snapshot.queue.model_copy(update=change)})) != base
    rows = list(snapshot.reviews)
    rows[0] = rows[0].model_copy(update={"note": "edited"})
    assert signed_bytes(snapshot.model_copy(update={"reviews": rows})) != base
    unsigned = snapshot.model_copy(update={"queue": snapshot.queue.model_copy(update={"signature": None})})
    assert signed_bytes(unsigned) == base  # the signature is not part of what it signs


def test_the_review_stage_refuses_an_altered_snapshot_naming_it(reviews):
    root = reviews.parents[1]
    edit_lines(reviews / "demo.jsonl", lambda rows: rows[1].update(choice="b"))
    (root / "params.yaml").write_text("review:\n  snapshots: [demo]\n", encoding="utf-8")
    shutil.copytree(ROOT / "stages", root / "stages")
    out = subprocess.run([sys.executable, "stages/review.py", "demo"], cwd=root, capture_output=True, text=True)
    assert out.returncode == 2 and "data/reviews/demo.jsonl:1: field 'signature': does not match" in out.stderr
    assert "Traceback" not in out.stderr and not (root / "metrics/review/demo.json").exists()


def test_keygen_keeps_the_private_key_out_of_the_project(tmp_path, monkeypatch, capsys):
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    assert main(["queue", "keygen", "inside.key"]) == 1
    assert "is inside the project; the private key must never be committed" in capsys.readouterr().err
    secret = tmp_path / "queue.key"
    assert main(["queue", "keygen", str(secret)]) == 0
    assert secret.stat().st_mode & 0o777 == 0o600
    public = read_public_key(project / "data/reviews/queue_key.pub.json")
    assert not public.synthetic and public == public_key_of(load_private_key(str(secret)))
    assert main(["queue", "keygen", str(secret)]) == 1  # never overwrites a key
