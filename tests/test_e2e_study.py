"""End-to-end: the study's first stages under the real `dvc repro`, on evidence in a randomly named root:
the received-evidence lock (`assay study intake`), each stage's check of the files it reads, and
the privacy check: nothing any command or stage wrote, printed or logged holds the root's value."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
from pathlib import Path

import pytest

from assay.study.evidence import ENV
from conftest import BIN, ROOT, make_clone

pytestmark = pytest.mark.e2e
DVC = str(BIN / "dvc")
ASSAY = str(BIN / "assay")
RECORDS = ("split", "pool", "scan", "check")
LOCK = "data/relevance/received.json"
UP_TO_DATE = "Data and pipelines are up to date."


def run(cmd: list[str], cwd: Path, root: Path, log: list[str]):
    import subprocess

    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "DVC_NO_ANALYTICS": "1", ENV: str(root),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    log += [proc.stdout, proc.stderr]
    return proc


def new_root(parent: Path) -> Path:
    root = parent / f"vault-{secrets.token_hex(8)}"
    root.mkdir(parents=True)
    return root


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A clone whose study stages ran through check on generated evidence in a random root; every output kept.

    The evidence and the lock are the committed ones, so DVC sees nothing changed: ``-f`` makes the stages run.
    """
    clone = make_clone(tmp_path_factory.mktemp("study"))
    root = new_root(tmp_path_factory.mktemp("evidence"))
    log: list[str] = []
    made = run([sys.executable, "data/relevance/make_evidence.py"], clone, root, log)
    assert made.returncode == 0, made.stderr
    repro = run([DVC, "repro", "-f", "study_check"], clone, root, log)
    assert repro.returncode == 0, repro.stdout + repro.stderr
    return clone, root, log, repro


def copy_of(study, tmp_path: Path) -> tuple[Path, Path]:
    clone, root, _, _ = study
    dest, other = tmp_path / "clone", new_root(tmp_path)
    shutil.copytree(clone, dest, symlinks=True)
    shutil.copytree(root, other, dirs_exist_ok=True)
    return dest, other


def test_every_study_stage_runs_and_the_records_match_the_committed_ones(study):
    clone, root, _, repro = study
    for stage in ("study_split", "study_pool", "study_scan", "study_check"):
        assert f"Running stage '{stage}'" in repro.stdout
    # the generator's lock names nothing about the root either; DVC then has nothing left to do
    assert (clone / LOCK).read_bytes() == (ROOT / LOCK).read_bytes()
    assert run([DVC, "status", "study_check"], clone, root, []).stdout.strip() == UP_TO_DATE
    # the records name nothing about the root, so the same evidence in another folder gives the same bytes
    for name in RECORDS:
        rel = f"reports/relevance/study/{name}.json"
        assert (clone / rel).read_bytes() == (ROOT / rel).read_bytes(), rel
    check = json.loads((clone / "reports/relevance/study/check.json").read_text(encoding="utf-8"))
    assert all(v["complete"] == 1 and v["missing"] == 0 for v in check["judgments"].values())
    assert (root / "development/packet_A.jsonl").read_bytes() == (root / "development/packet_B.jsonl").read_bytes()


def test_a_changed_judgment_needs_the_intake_then_reruns_check_and_what_depends_on_it(study, tmp_path):
    clone, root = copy_of(study, tmp_path)
    log: list[str] = []
    with open(clone / "dvc.yaml", "a", encoding="utf-8") as fh:
        fh.write("\n  downstream:\n    cmd: python -c \"open('down.txt','w').write('x')\"\n"
                 "    deps:\n      - reports/relevance/study/check.json\n    outs:\n      - down.txt\n")
    assert run([DVC, "repro", "-s", "downstream"], clone, root, log).returncode == 0
    before = json.loads((clone / "reports/relevance/study/check.json").read_text(encoding="utf-8"))
    j = root / "development/judgments_A.jsonl"
    lines = j.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["relevance"] = 0 if row["relevance"] != 0 else 1
    row["acceptable_citation_ids"] = []
    j.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n", encoding="utf-8")
    # DVC cannot see the root: nothing to do until the intake; the check says what differs
    assert run([DVC, "status", "downstream"], clone, root, log).stdout.strip() == UP_TO_DATE
    check = run([ASSAY, "study", "intake", "--check"], clone, root, log)
    assert check.returncode == 1
    assert check.stderr.splitlines()[0] == f"${ENV}/development/judgments_A.jsonl: differs from {LOCK}"
    # a forced run refuses to read the changed file and keeps the record
    forced = run([DVC, "repro", "-f", "-s", "study_check"], clone, root, log)
    assert forced.returncode != 0
    assert (f"${ENV}/development/judgments_A.jsonl: differs from the SHA-256 in {LOCK} "
            "(fix: run `assay study intake`, then `dvc repro`)") in forced.stderr
    assert json.loads((clone / "reports/relevance/study/check.json").read_text(encoding="utf-8")) == before
    assert run([ASSAY, "study", "intake"], clone, root, log).returncode == 0
    changed = run([DVC, "repro", "downstream"], clone, root, log)
    assert changed.returncode == 0, changed.stderr
    ran = {line.split("'")[1] for line in changed.stdout.splitlines() if line.startswith("Running stage")}
    assert ran == {"study_check", "downstream"}
    after = json.loads((clone / "reports/relevance/study/check.json").read_text(encoding="utf-8"))
    key = "development/judgments_A.jsonl"
    assert after["evidence"][key] != before["evidence"][key]
    assert {k: v for k, v in after["evidence"].items() if k != key} == {k: v for k, v in before["evidence"].items() if k != key}
    assert run([DVC, "status", "downstream"], clone, root, log).stdout.strip() == UP_TO_DATE


def test_an_incomplete_judgment_file_fails_check_and_keeps_the_record(study, tmp_path):
    clone, root = copy_of(study, tmp_path)
    log: list[str] = []
    record = (clone / "reports/relevance/study/check.json").read_bytes()
    j = root / "sealed_holdout/judgments_B.jsonl"
    lines = j.read_text(encoding="utf-8").splitlines()
    j.write_text("\n".join(lines[:2] + lines[3:] + [lines[0]]) + "\n", encoding="utf-8")  # drop line 3, repeat line 1
    assert run([ASSAY, "study", "intake"], clone, root, log).returncode == 0
    proc = run([DVC, "repro", "-s", "study_check"], clone, root, log)
    assert proc.returncode != 0
    err = proc.stderr
    assert f"${ENV}/sealed_holdout/packet_B.jsonl:3: pair" in err and "has no judgment" in err
    assert f"${ENV}/sealed_holdout/judgments_B.jsonl:{len(lines)}: field 'document_id'" in err and "already judged on line 1" in err
    assert "incomplete: return the file to the annotator without reconciliation" in err
    assert (clone / "reports/relevance/study/check.json").read_bytes() == record
    assert root.name not in proc.stdout + proc.stderr


def test_a_packet_changed_after_pooling_is_refused_by_scan(study, tmp_path):
    clone, root = copy_of(study, tmp_path)
    log: list[str] = []
    p = root / "development/packet_A.jsonl"
    lines = p.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[4])
    row["text"] += " More at https://help.nodinet.example/fees."
    p.write_text("\n".join(lines[:4] + [json.dumps(row)] + lines[5:]) + "\n", encoding="utf-8")
    proc = run([DVC, "repro", "-f", "-s", "study_scan"], clone, root, log)
    assert proc.returncode != 0
    assert (f"${ENV}/development/packet_A.jsonl: differs from the SHA-256 in reports/relevance/study/pool.json "
            "(fix: write it again: `dvc repro -f -s study_pool`)") in proc.stderr
    assert root.name not in proc.stdout + proc.stderr


def test_privacy_no_file_output_or_log_holds_the_root(study, tmp_path):
    clone, root, log, _ = study
    log = list(log)
    dev = root / "development"
    assert run([ASSAY, "study", "scan", str(dev / "packet_A.jsonl")], clone, root, log).returncode == 0
    for split in ("development", "sealed_holdout"):  # every file an annotator or the arbiter receives, and the rest
        for f in sorted((root / split).iterdir()):  # but the runs/ folder: the coordinator's runs name their modes
            if f.is_file():
                assert run([ASSAY, "study", "scan", str(f)], clone, root, log).returncode == 0, f.name
    runs = run([ASSAY, "study", "scan", str(dev / "runs")], clone, root, log)
    assert runs.returncode == 1 and " mode" in runs.stdout  # the scan does see them
    assert run([ASSAY, "study", "check", str(dev / "judgments_A.jsonl"), "--packet", str(dev / "packet_A.jsonl")],
               clone, root, log).returncode == 0
    # failing commands print paths and messages too: a bad judgments file, a planted secret, a missing path
    broken = root / "broken.jsonl"
    broken.write_text('{"query_id": "q-001", "document_id": "doc-x", "relevance": 7}\nnot json\n', encoding="utf-8")
    planted = root / "planted.txt"
    planted.write_text("token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB\n", encoding="utf-8")
    try:
        assert run([ASSAY, "study", "check", str(broken), "--packet", str(dev / "packet_A.jsonl")], clone, root, log).returncode == 1
        assert run([ASSAY, "study", "scan", str(planted)], clone, root, log).returncode == 1
        assert run([ASSAY, "study", "scan", str(root / "absent")], clone, root, log).returncode == 2
        assert run([ASSAY, "study", "check", str(root / "absent.jsonl"), "--packet", str(dev / "packet_A.jsonl")],
                   clone, root, log).returncode == 1
        assert run([sys.executable, "stages/study_check.py"], clone, root, log).returncode == 0
        assert run([ASSAY, "study", "intake", "--check"], clone, root, log).returncode == 0
        assert run([ASSAY, "study", "intake"], clone, root, log).returncode == 0
        (dev / "decisions.jsonl").rename(dev / "decisions.moved")
        assert run([ASSAY, "study", "intake", "--check"], clone, root, log).returncode == 1
        assert run([sys.executable, "stages/study_check.py"], clone, root, log).returncode == 0  # reads no decision
        assert run([sys.executable, "stages/study_qrels.py"], clone, root, log).returncode != 0
    finally:
        broken.unlink()
        planted.unlink()
        (dev / "decisions.moved").rename(dev / "decisions.jsonl")
    forms = {str(root), str(root.resolve()), root.name}
    leaks = [f"output {i}" for i, text in enumerate(log) for form in forms if form in text]
    for base in (clone, root):
        for f in base.rglob("*"):
            if f.is_file():
                data = f.read_bytes()
                leaks += [str(f.relative_to(base)) for form in forms if form.encode() in data]
    assert leaks == []
    assert any(f"${ENV}/" in text for text in log)  # the paths were shown, in their hidden form


def test_judgments_not_handed_in_yet_are_waiting_not_an_error_through_the_verdict(study, tmp_path):
    """An annotator who has not handed in: `dvc repro` of the study succeeds, every later record and the
    verdict say what the study waits for, and `assay study verdict` exits 3 (the gate never reads it)."""
    clone, root = copy_of(study, tmp_path)
    log: list[str] = []
    (root / "sealed_holdout/judgments_B.jsonl").unlink()
    assert run([ASSAY, "study", "intake"], clone, root, log).returncode == 0
    proc = run([DVC, "repro", "study_verdict"], clone, root, log)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("check", "receipt", "bundle", "qrels", "evaluation"):
        record = json.loads((clone / f"reports/relevance/study/{name}.json").read_text(encoding="utf-8"))
        assert record["waiting"] == ["sealed_holdout/judgments_B.jsonl"], name
    verdict = json.loads((clone / "metrics/relevance/verdict.json").read_text(encoding="utf-8"))
    assert verdict["waiting"] == 1 and verdict["passed"] == 0
    said = run([ASSAY, "study", "verdict"], clone, root, log)
    assert said.returncode == 3, said.stdout + said.stderr
    assert ("relevance study verdict: waiting: waiting for 1 file(s) not handed in yet: "
            "sealed_holdout/judgments_B.jsonl") in said.stdout
    assert "Waiting for people" in (clone / "reports/relevance/verdict.md").read_text(encoding="utf-8")
    assert root.name not in "".join(log)
