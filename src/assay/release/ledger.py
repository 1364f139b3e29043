"""The holdout ledger: every distinct candidate configuration judged on this holdout, one line each.

``data/holdout_ledger.jsonl`` (committed) gets a line the first time the gate stage reaches a
verdict for a candidate configuration on a dataset: ``{"candidate": <hash of the candidate's
settings>, "dataset": <dataset hash>, "verdict": "pass"|"fail"}``. No clock time is written, so a
re-run of the same candidate changes nothing. The more candidates have been tried on one holdout,
the more its figures are tuned on rather than measured: the gate warns above ``gate.max_holdout_looks``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

LEDGER = "data/holdout_ledger.jsonl"


def candidate_hash(settings: dict) -> str:
    """SHA-256 of a candidate's settings as sorted-key compact JSON.

    >>> candidate_hash({"b": 1, "a": 2}) == candidate_hash({"a": 2, "b": 1})
    True
    """
    return hashlib.sha256(json.dumps(settings, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def read_ledger(path: str | Path) -> list[dict]:
    """The ledger's rows (an absent file is an empty ledger)."""
    from assay.core.io import read_jsonl

    return [row for _, row in read_jsonl(path)] if Path(path).exists() else []


def looks(rows: list[dict], dataset: str) -> int:
    """How many distinct candidates were judged on the holdout of ``dataset``."""
    return len({r["candidate"] for r in rows if r.get("dataset") == dataset})


def record_look(path: str | Path, candidate: str, dataset: str, verdict: str) -> list[dict]:
    """Append ``(candidate, dataset)`` with its verdict unless already there; return the rows.

    The file stays sorted by (dataset, candidate) so its bytes do not depend on the order of runs.
    """
    from assay.core.io import write_jsonl

    rows = read_ledger(path)
    if not any(r["candidate"] == candidate and r["dataset"] == dataset for r in rows):
        rows.append({"candidate": candidate, "dataset": dataset, "verdict": verdict})
        write_jsonl(path, sorted(rows, key=lambda r: (r["dataset"], r["candidate"])))
    return rows
