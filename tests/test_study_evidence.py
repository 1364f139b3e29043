"""The evidence root: errors scrubbed of its value, hash records named relative to it."""

from __future__ import annotations

import hashlib

import pytest

from assay.study.evidence import ENV, EvidenceRoot, EvidenceRootError, file_hashes, redacting


def test_an_assay_error_inside_is_scrubbed(tmp_path):
    root = EvidenceRoot(tmp_path / "vault-q7")
    with pytest.raises(EvidenceRootError) as error, redacting(root):
        raise EvidenceRootError(f"cannot read {root.path}/salt.json")
    assert str(error.value) == f"cannot read ${ENV}/salt.json"


def test_an_os_error_under_the_root_is_one_scrubbed_line(tmp_path):
    root = EvidenceRoot(tmp_path / "vault-q7")
    with pytest.raises(EvidenceRootError) as error, redacting(root), open(root.path / "development" / "pool.jsonl", encoding="utf-8"):
        pass
    assert "vault-q7" not in str(error.value) and f"${ENV}/development/pool.jsonl" in str(error.value)


def test_file_hashes_are_sha256_named_relative_to_the_root(tmp_path):
    (tmp_path / "development").mkdir()
    (tmp_path / "development" / "a.jsonl").write_bytes(b"x\n")
    hashes = file_hashes(EvidenceRoot(tmp_path), ["development/a.jsonl", "development/absent.jsonl"])
    assert hashes == {"development/a.jsonl": hashlib.sha256(b"x\n").hexdigest(), "development/absent.jsonl": None}
