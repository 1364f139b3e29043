"""The holdout ledger: a candidate is its settings and the bytes of its source; older settings-only rows still count."""

import hashlib
import json

from assay.core.io import sha256_path
from assay.release.ledger import candidate_hash, looks, read_ledger, record_look

SETTINGS = {"system": "callable", "callable": "plugin:answer"}
DATASET = "d" * 64


def test_candidate_hash_is_sha256_of_settings_and_source_as_sorted_compact_json():
    by_hand = hashlib.sha256(b'{"settings":{"callable":"plugin:answer","system":"callable"},"source_sha256":"ab"}')
    assert candidate_hash(SETTINGS, "ab") == by_hand.hexdigest()
    assert candidate_hash(SETTINGS, None) != candidate_hash(SETTINGS, "ab")


def test_two_looks_differing_only_by_source_bytes_are_two_candidates(tmp_path):
    source = tmp_path / "plugin.py"
    ledger = tmp_path / "ledger.jsonl"
    source.write_text("def answer(q):\n    return 'a'\n", encoding="utf-8")
    first = candidate_hash(SETTINGS, sha256_path(source))
    record_look(ledger, first, DATASET, "fail")
    source.write_text("def answer(q):\n    return 'b'\n", encoding="utf-8")  # tuned by hand, settings unchanged
    second = candidate_hash(SETTINGS, sha256_path(source))
    rows = record_look(ledger, second, DATASET, "pass")
    assert first != second
    assert looks(rows, DATASET) == 2
    assert [r["candidate"] for r in read_ledger(ledger)] == sorted([first, second])

    record_look(ledger, second, DATASET, "pass")  # the same bytes judged again: no new look
    assert looks(read_ledger(ledger), DATASET) == 2


def test_a_package_source_counts_its_helpers_but_not_pycache(tmp_path):
    package = tmp_path / "plugin"
    package.mkdir()
    (package / "__init__.py").write_text("from .helpers import answer\n", encoding="utf-8")
    (package / "helpers.py").write_text("def answer(q):\n    return 'a'\n", encoding="utf-8")
    before = candidate_hash(SETTINGS, sha256_path(package))
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "helpers.cpython-312.pyc").write_bytes(b"\x00compiled")
    assert candidate_hash(SETTINGS, sha256_path(package)) == before
    (package / "helpers.py").write_text("def answer(q):\n    return 'b'\n", encoding="utf-8")
    assert candidate_hash(SETTINGS, sha256_path(package)) != before


def test_rows_from_the_settings_only_hash_still_count(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    legacy = hashlib.sha256(json.dumps(SETTINGS, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    ledger.write_text(json.dumps({"candidate": legacy, "dataset": DATASET, "verdict": "fail"}) + "\n", encoding="utf-8")
    rows = record_look(ledger, candidate_hash(SETTINGS, "ab"), DATASET, "fail")
    assert looks(rows, DATASET) == 2
    assert {r["candidate"] for r in read_ledger(ledger)} == {legacy, candidate_hash(SETTINGS, "ab")}


def test_gather_takes_the_source_hash_evaluate_recorded(committed_repo, monkeypatch):
    from assay.release.gather import gather

    from conftest import ROOT

    monkeypatch.chdir(committed_repo)  # see test_gather.py: the judge's staleness check reads relative paths
    _, ev = gather(committed_repo)
    assert ev.candidate_source_sha256 == sha256_path(ROOT / "src/assay/rag/systems.py")  # params: the reference system
