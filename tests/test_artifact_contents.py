"""The content models of the JSON and JSONL files that used to be untyped: every committed file reads
through its declaration and writes back to the same bytes, and optional keys are left out when absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.artifacts.files import JsonFile, JsonlFile
from assay.artifacts.registry import (JUDGE_COMPARE_IDENTITY, JUDGE_COMPARE_REPLY_FILE, JUDGE_IDENTITY, JUDGE_REPLY_FILE, LEAKAGE_REPORT, RETRIEVAL_PROVENANCE,
                                      STUDY_EVALUATION, STUDY_RECORD, TRAINING_PREFERENCES, TRAINING_ROWS)
from assay.artifacts.reports import LeakageReport, StudyRecord
from assay.artifacts.rows import StoredReply, Turn

ROOT = Path(__file__).resolve().parents[1]

COMMITTED: list[tuple[JsonFile | JsonlFile, dict[str, str]]] = [
    (LEAKAGE_REPORT, {}), (JUDGE_IDENTITY, {}), (RETRIEVAL_PROVENANCE, {}), (STUDY_EVALUATION, {}),
    (TRAINING_ROWS, {"kind": "sft"}), (TRAINING_ROWS, {"kind": "dpo"}), (TRAINING_PREFERENCES, {}),
    *[(JUDGE_REPLY_FILE, {"prompt": p.stem}) for p in sorted((ROOT / "data/derived/judge").glob("*.jsonl"))],
    (JUDGE_COMPARE_IDENTITY, {}),
    *[(JUDGE_COMPARE_REPLY_FILE, {"prompt": p.stem}) for p in sorted((ROOT / "data/derived/judge_compare").glob("*.jsonl"))],
    *[(STUDY_RECORD, {"name": p.stem}) for p in sorted((ROOT / "reports/relevance/study").glob("*.json"))
      if p.stem != "evaluation"],
]


@pytest.mark.parametrize(("declaration", "fields"), COMMITTED, ids=lambda x: getattr(x, "template", None) or str(x))
def test_every_committed_file_reads_through_its_model_and_writes_back_the_same_bytes(declaration, fields, tmp_path):
    content = declaration.read(ROOT, **fields)
    declaration.write(content, tmp_path, **fields)
    assert declaration.path(tmp_path, **fields).read_bytes() == declaration.path(ROOT, **fields).read_bytes()


def test_optional_keys_are_written_only_when_they_apply(tmp_path):
    report = LeakageReport(dev_holdout=[], sources=[], threshold=0.6, limitation="l")
    LEAKAGE_REPORT.write(report, tmp_path)
    text = LEAKAGE_REPORT.path(tmp_path).read_text(encoding="utf-8")
    assert "paraphrase" not in text and "warnings" not in text and "detectors" not in text
    assert Turn(role="user", content="q").model_dump() == {"role": "user", "content": "q"}
    reply = StoredReply(key="0" * 64, pair="p", order="ab", prompt_version=1, prompt_sha="s", status="ok", winner="tie")
    assert set(reply.row()) == {"key", "pair", "order", "prompt_version", "prompt_sha", "status", "winner", "reason",
                                "reply", "model_version"}  # reason, reply, model_version stay (as null), the server's two go
    assert reply.model_copy(update={"response_id": "r"}).row()["response_id"] == "r"


def test_a_study_record_without_its_head_or_with_an_unknown_field_is_refused():
    with pytest.raises(ValueError, match="protocol_version"):
        StudyRecord.model_validate({"synthetic": 1})
    with pytest.raises(ValueError, match="extra"):
        StudyRecord.model_validate({"protocol_version": "1", "synthetic": 1, "surprise": 2})
