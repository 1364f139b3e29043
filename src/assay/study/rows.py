"""Reading the study's JSON Lines files under the evidence root into row models, naming them safely.

Every problem names the file as :meth:`EvidenceRoot.show` writes it (``$ASSAY_EVIDENCE_ROOT/...``),
never the root's value, with its line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from assay.core.errors import InputError, Problem
from assay.core.io import scan_jsonl
from assay.core.records import check_rows
from assay.study.evidence import EvidenceRoot

M = TypeVar("M", bound=BaseModel)


def scan_rows(root: EvidenceRoot, path: Path, model: type[M]) -> tuple[list[tuple[int, M]], list[Problem]]:
    """``(line, row)`` for every good row of ``path`` and one Problem per bad line (JSON or fields).

    Raises:
        InputError: the file does not exist (named through the root).
    """
    shown = root.show(path)
    if not Path(path).is_file():
        raise InputError([Problem(shown, None, None, "file not found", "write this step's file first")])
    rows, problems = scan_jsonl(path)
    good, bad = check_rows(shown, rows, model, key=None)
    return good, [Problem(shown, p.line, p.field, p.message, p.fix) for p in problems] + bad


def read_rows(root: EvidenceRoot, path: Path, model: type[M]) -> list[tuple[int, M]]:
    """Like :func:`scan_rows`, but every bad line fails at once as one :class:`InputError`."""
    good, problems = scan_rows(root, path, model)
    if problems:
        raise InputError(problems)
    return good


def digest(root: EvidenceRoot, path: Path) -> str:
    """SHA-256 of ``path``'s bytes.

    Raises:
        InputError: the file does not exist, named through the root.
    """
    from assay.core.io import sha256_file

    if not Path(path).is_file():
        raise InputError([Problem(root.show(path), None, None, "file not found", "write this step's file first")])
    return sha256_file(path)
