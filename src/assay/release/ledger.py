"""The holdout ledger: every distinct candidate configuration judged on this holdout, one line each.

``data/holdout_ledger.jsonl`` (committed) gets a line the first time the gate stage reaches a
verdict for a candidate configuration on a dataset: ``{"candidate": <candidate hash>, "dataset":
<dataset hash>, "verdict": "pass"|"fail"}``. The candidate hash (:func:`candidate_hash`) covers the
version's settings *and* the SHA-256 of its ``source`` (the answers file, the plug-in's module file
or package folder, or the reference system's module), so editing the source while keeping the
settings is a new candidate, a new look. No clock time is written, so a re-run of the same
candidate changes nothing. The more candidates have been tried on one holdout, the more its figures
are tuned on rather than measured: the gate warns above ``gate.max_holdout_looks``, and every distinct
candidate spends part of the holdout's error budget ``gate.alpha``: the ``k``-th is decided at
``alpha / 2 ** k`` (:func:`current_look` gives ``k``). A changed dataset hash is a new holdout, whose
count starts again at 1.

Rows written before the source was hashed (settings-only hashes) keep their format and still count
as looks; the first verdict after the change is a new row, because its hash differs from the
settings-only one (a ledger cannot tell whether the source changed since, so it counts the look).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from assay.artifacts.registry import HOLDOUT_LEDGER

LEDGER = HOLDOUT_LEDGER.relpath()


def candidate_hash(settings: dict, source_sha256: str | None) -> str:
    """SHA-256 of a candidate's settings and its source's hash, as sorted-key compact JSON.

    ``source_sha256`` is :func:`assay.core.io.sha256_path` of the version's ``source``; ``None``
    (no source named) is hashed as JSON ``null``, distinct from every real hash. The key order of
    ``settings`` does not matter; one changed byte of the source gives another hash.

    >>> candidate_hash({"b": 1, "a": 2}, "ab") == candidate_hash({"a": 2, "b": 1}, "ab")
    True
    >>> candidate_hash({"a": 1}, "ab") == candidate_hash({"a": 1}, "ac")
    False
    """
    text = json.dumps({"settings": settings, "source_sha256": source_sha256}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def read_ledger(path: str | Path) -> list[dict]:
    """The ledger's rows (an absent file is an empty ledger)."""
    from assay.core.io import read_jsonl

    return [row for _, row in read_jsonl(path)] if Path(path).exists() else []


def row_key(row: dict) -> str:
    """A row as sorted-key compact JSON: two rows are the same row when their keys and values are."""
    return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def lost_rows(earlier: list[dict], now: list[dict]) -> list[dict]:
    """The rows of ``earlier`` (an older version of the ledger) that ``now`` no longer holds, in ``earlier``'s order.

    The ledger is append-only: a row once written stays, verdict and all.

    >>> lost_rows([{"candidate": "a", "dataset": "d", "verdict": "fail"}], [])
    [{'candidate': 'a', 'dataset': 'd', 'verdict': 'fail'}]
    >>> lost_rows([{"candidate": "a"}], [{"candidate": "a"}, {"candidate": "b"}])
    []
    """
    kept = {row_key(r) for r in now}
    return [r for r in earlier if row_key(r) not in kept]


def looks(rows: list[dict], dataset: str) -> int:
    """How many distinct candidates were judged on the holdout of ``dataset``."""
    return len({r["candidate"] for r in rows if r.get("dataset") == dataset})


def current_look(rows: list[dict], candidate: str, dataset: str) -> int:
    """The look index of ``candidate`` on the holdout of ``dataset``: the distinct candidates judged on it,
    this one included (so a candidate not yet in the ledger is look ``looks + 1``).

    The ledger is kept sorted, not in time order, so a candidate judged again after others gets the
    count at that time, never an earlier one: its level can only fall, so the looks still spend at most
    ``alpha`` in all (each distinct candidate is decided at ``alpha / 2 ** k`` for a distinct ``k`` or a
    larger one).

    >>> rows = [{"candidate": "a", "dataset": "d"}, {"candidate": "b", "dataset": "d"}, {"candidate": "a", "dataset": "e"}]
    >>> current_look(rows, "a", "d"), current_look(rows, "c", "d"), current_look(rows, "c", "f")
    (2, 3, 1)
    """
    known = {r["candidate"] for r in rows if r.get("dataset") == dataset}
    return len(known | {candidate})


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
