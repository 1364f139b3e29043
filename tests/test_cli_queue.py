"""`assay queue` as scripts use it: tokens alone on stdout, clean errors, export, the rubric lock."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

import pytest

from assay.cli import main
from assay.queue.leases import claim, save_review
from assay.queue.snapshot import read_snapshot
from assay.queue.store import open_store
from conftest import ROOT, write_jsonl
from queue_helpers import body, pair_items, sign_folder

CLI = "import sys; from assay.cli import main; sys.exit(main())"


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def assay(capsys, monkeypatch):
    """Run ``assay ARGS`` in this process (as sqlite-utils tests its CLI): exit code and exact output."""

    def run(*args, cwd):
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exit_:  # --help
            code = exit_.code
        out = capsys.readouterr()
        return Result(code, out.out, out.err)

    return run


def test_create_tokens_export_and_the_rubric_lock(tmp_path, assay, monkeypatch):
    (tmp_path / "data").mkdir()
    (tmp_path / "data/rubric.yaml").write_text((ROOT / "data/rubric.yaml").read_text())
    write_jsonl(tmp_path / "items.jsonl", [json.loads(i.model_dump_json()) for i in pair_items(12)])
    db = str(tmp_path / "q.sqlite")
    made = assay("queue", "create", "demo", "--from", "items.jsonl", "--fill", "random", "--n", "5", "--seed", "1",
                 "--db", db, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "5 items" in made.stdout
    again = assay("queue", "create", "demo", "--from", "items.jsonl", "--fill", "random", "--n", "5", "--seed", "1",
                  "--db", db, cwd=tmp_path)
    assert again.returncode == 1 and "already exists" in again.stderr and "Traceback" not in again.stderr

    token = assay("queue", "add-reviewer", "demo", "ana", "--db", db, cwd=tmp_path)
    coord = assay("queue", "coordinator-token", "--db", db, cwd=tmp_path)
    for out in (token, coord):
        assert out.returncode == 0 and len(out.stdout.strip().split()) == 1 and out.stdout.endswith("\n")
    store = open_store(db)
    assert store.principal(token.stdout.strip()).pseudonym == "ana"

    # before any review the rubric may change; after one it is locked with the fix in the message
    edited = tmp_path / "rubric2.yaml"
    edited.write_text((ROOT / "data/rubric.yaml").read_text().replace("Is it polite", "Is it kind"))
    assert assay("queue", "rubric", "demo", str(edited), "--db", db, cwd=tmp_path).returncode == 0
    for _ in range(2):
        item = claim(store, "demo", "ana")
        save_review(store, "demo", item.item_id, "ana", body("A"))
    locked = assay("queue", "rubric", "demo", "data/rubric.yaml", "--db", db, cwd=tmp_path)
    assert locked.returncode == 1 and "locked" in locked.stderr and "Start a new queue" in locked.stderr

    unsigned = assay("queue", "export", "demo", "--db", db, cwd=tmp_path)
    assert unsigned.returncode == 2 and "no signing key" in unsigned.stderr  # nothing unsigned is written
    assert not (tmp_path / "data/reviews/demo.jsonl").exists()
    monkeypatch.setenv("ASSAY_QUEUE_SIGNING_KEY", sign_folder(tmp_path / "data/reviews"))
    exported = assay("queue", "export", "demo", "--db", db, cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    path = tmp_path / "data/reviews/demo.jsonl"
    first = path.read_bytes()
    assert assay("queue", "export", "demo", "--db", db, cwd=tmp_path).returncode == 0
    assert path.read_bytes() == first  # byte-stable
    snap = read_snapshot(path)
    assert len(snap.reviews) == 2 and snap.queue.fill == "random" and not snap.queue.synthetic
    status = json.loads(assay("queue", "status", "--db", db, cwd=tmp_path).stdout)
    assert status["queues"][0]["reviewed"] == 2
    store.engine.dispose()


def test_the_token_is_alone_on_stdout_of_the_real_command(tmp_path):
    db = str(tmp_path / "q.sqlite")
    out = subprocess.run([sys.executable, "-c", CLI, "queue", "coordinator-token", "--db", db],
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr == ""
    token = out.stdout.removesuffix("\n")
    assert token and "\n" not in token and " " not in token
    assert open_store(db).principal(token).role == "coordinator"


def test_every_queue_subcommand_has_help_and_takes_db(assay):
    for sub in ("create", "add-reviewer", "coordinator-token", "serve", "export", "rubric", "status"):
        out = assay("queue", sub, "--help", cwd=ROOT)
        assert out.returncode == 0 and "--db" in out.stdout, sub


def test_demo_snapshot_is_reproduced_byte_for_byte(tmp_path):
    import shutil

    for rel in ("data/pairs.jsonl", "data/rubric.yaml", "reports/judge_dimensions.jsonl", "examples/review_demo.py",
                "examples/queue_demo_key.synthetic", "data/reviews/queue_key.pub.json"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    out = subprocess.run([sys.executable, "examples/review_demo.py"], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for rel in ("data/queues/demo.jsonl", "data/reviews/demo.jsonl"):
        assert (tmp_path / rel).read_bytes() == (ROOT / rel).read_bytes(), rel
    assert read_snapshot(tmp_path / "data/reviews/demo.jsonl").queue.synthetic
