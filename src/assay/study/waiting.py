"""A study that waits for people: judgments not handed in yet are a state, not an error.

When every fault ``study_check`` finds is a judgments file that is not there yet, the check record
names those files under ``waiting`` and the stage succeeds; every later study stage then writes a
record that says it waits (and nothing else), and the verdict is ``waiting``. So ``dvc repro`` of a
project whose annotators are still working succeeds, and the study is reported as waiting. A file
that is there but wrong (a missing row, a repeated pair) is still an error: it goes back to its
annotator.
"""

from __future__ import annotations

from pathlib import Path

from assay.artifacts.base import BrokenArtifact
from assay.artifacts.registry import STUDY_RECORD
from assay.artifacts.study import VerdictMetrics
from assay.core.errors import MissingArtifact

#: the key of a record that waits: the evidence files not handed in yet (root-relative, sorted)
WAITING = "waiting"
CHECK_RECORD = STUDY_RECORD.relpath(name="check")


def waiting_for(base: str | Path = ".") -> list[str]:
    """The files the study waits for, from the committed check record; empty when it waits for nothing.

    An absent or unreadable record waits for nothing here: the stages that read it fail on their own.
    """
    try:
        record = STUDY_RECORD.read(base, name="check")
    except (MissingArtifact, BrokenArtifact):
        return []
    return sorted(record.waiting or [])


def waiting_line(files: list[str]) -> str:
    """One line for people: who has not handed in what."""
    return f"waiting for {len(files)} file(s) not handed in yet: {', '.join(files)}"


def waiting_verdict(files: list[str], synthetic: bool) -> tuple[VerdictMetrics, str]:
    """The verdict's metrics and page while the study waits for ``files``: nothing measured, not passed."""
    metrics = VerdictMetrics(passed=0, waiting=1, synthetic=int(synthetic), holdout_opened=0, conditions_met=0,
                             conditions={}, modes_passed=0, agreement={}, development={}, sealed_holdout={})
    page = ("# Relevance study verdict\n\n**Waiting for people**: no verdict yet. The study is "
            + waiting_line(files) + ".\n\nWhen they arrive: `assay study intake`, then `dvc repro`. "
            "The release gate does not wait for the study.\n")
    return metrics, page
