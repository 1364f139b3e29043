"""Shared fixtures: small valid inputs written to a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def case(id: str, **over) -> dict:
    """A valid answer case; override any field."""
    row = {"id": id, "question": f"How long is the trial for plan {id}?", "task": "lookup", "set": "golden",
           "lang": "en", "expect": "answer", "doc_ids": ["doc-a"], "facts": ["14 days"], "why": "checks the trial length"}
    row.update(over)
    return row


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "doc-a.md").write_text("---\ntitle: Trial\nlang: en\nupdated: 2026-01-01\n---\nThe trial lasts 14 days.\n", encoding="utf-8")
    (folder / "doc-b.md").write_text("---\ntitle: Old trial\nlang: en\nupdated: 2025-01-01\nsuperseded_by: doc-a\n---\n"
                                     "The trial lasted 7 days.\n", encoding="utf-8")
    return folder
