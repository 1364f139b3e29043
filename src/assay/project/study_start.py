"""A study copied into a project starts unopened.

The demo's evidence root holds the synthetic demo's ``opening.json`` (the decision to open its sealed
holdout) and its lock ``data/relevance/received.json`` records that file's SHA-256. Both belong to
the demo: a project that copied them could never open its own holdout (``open-holdout`` refuses a
second opening). :func:`unopened` drops the opening from the files a project receives and records it
as absent in the lock, so the project's coordinator opens the holdout once, after the development
round (``assay study open-holdout``).
"""

from __future__ import annotations

import json

from assay.core.io import dumps_json
from assay.study.evidence import OPENING
from assay.study.received import ABSENT, LOCK


def unopened(files: dict[str, bytes | str]) -> dict[str, bytes | str]:
    """``files`` (project-relative path -> content) without any ``opening.json``, the lock's opening
    entry set to absent. Files without a study (no :data:`LOCK`) come back unchanged."""
    if LOCK not in files:
        return files
    kept = {rel: content for rel, content in files.items() if rel.rsplit("/", 1)[-1] != OPENING}
    raw = files[LOCK]
    lock = json.loads(raw if isinstance(raw, str) else raw.decode("utf-8"))
    lock["opening"] = {OPENING: ABSENT}
    kept[LOCK] = dumps_json(lock)
    return kept


__all__ = ["unopened"]
