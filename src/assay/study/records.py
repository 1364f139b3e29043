"""The records the study's stages commit under ``reports/relevance/study/``, and the run of one stage.

A record holds counts, the study's protocol version and the SHA-256 of every evidence file the step
wrote or read, named relative to the evidence root; never the root, a person, a query text or a
per-query result, so it can be committed while the evidence stays where it is. A later stage that
depends on a record re-runs exactly when an evidence file's bytes change.

This module pulls no step's code (no scan, split, pooling or leakage), so each stage script imports
it plus the one step it runs, and depends on just those modules.
"""

from __future__ import annotations

from collections.abc import Callable

from assay.artifacts.registry import STUDY_RECORD
from assay.artifacts.reports import StudyRecord
from assay.study.evidence import EvidenceRoot, redacting
from assay.study.protocol import STUDY_FILE, Study, evidence_root, load_study
from assay.study.received import LOCK, require_produced, require_received


def stage_record(study: Study, **fields: object) -> dict:
    """A record's common head (protocol version, synthetic flag) followed by ``fields``."""
    return {"protocol_version": study.protocol_version, "synthetic": int(study.synthetic), **fields}


def record_step(name: str, step: Callable[[Study, EvidenceRoot], dict], study_file: str = STUDY_FILE,
                received: tuple[str, ...] = (), produced: dict[str, list[str]] | None = None,
                lock: str = LOCK) -> dict:
    """Run one step on the study file's evidence root and commit its record (:data:`~assay.artifacts.registry.STUDY_RECORD`).

    Before the step runs, the received files of the lock's groups ``received`` are checked against
    the lock, and the files of ``produced`` (``{record: [relative path]}``) against the records of
    the stages that wrote them (:mod:`assay.study.received`). A step after ``check`` while the check
    waits for people writes only ``{"waiting": [files]}`` (:mod:`assay.study.waiting`).

    Raises:
        EvidenceChanged: a file read differs from the lock or its record (nothing runs).
        AssayError: whatever the step raises. Every error is re-raised with the root scrubbed from
            its message; on error nothing is written.
    """
    from assay.study.waiting import WAITING, waiting_for

    study = load_study(study_file)
    waiting = waiting_for() if name not in ("split", "pool", "scan", "check") else []
    if waiting:  # a check that waits for people: this step has nothing to work on yet
        record = stage_record(study, **{WAITING: waiting})
        STUDY_RECORD.write(StudyRecord.model_validate(record), name=name)
        return record
    root = evidence_root(study)
    with redacting(root):
        if received:
            require_received(study, root, received, lock)
        if produced:
            require_produced(root, produced)
        record = step(study, root)
    STUDY_RECORD.write(StudyRecord.model_validate(record), name=name)
    return record
