"""Stored replies of the systems assay calls (``callable``, ``http``): resumed, replayed, never asked twice.

Every reply is stored twice, under one key (:func:`case_key`: the SHA-256 of the system's identity
and of what the system is shown for the case):

* at once, in the judge's SQLite response cache (:class:`assay.judge.cache.ResponseCache`, file
  :data:`CACHE_PATH`, git-ignored): a run killed half way keeps every reply it got, and the next
  run asks only for the rest;
* at the end of the stage, in ``data/derived/replies/<version>.jsonl``
  (:data:`assay.artifacts.registry.SYSTEM_REPLIES`, a DVC output committed to git, one row per case
  sorted by case id; with ``repeats``, one per case and run, sorted by case id and run): what
  ``dvc repro -f``, a fresh clone and ``assay verify`` replay.

The system's identity (:func:`system_sha`) is the version's :meth:`~assay.rag.runner.VersionParams.identity`
(system, callable or URL, ``settings``) with the hashes of its ``source``, the corpus and the tool
catalogue: changing a setting or editing the function's module asks again; changing
``concurrency``, ``timeout_s`` or ``retries`` does not. What a case is shown (question, language,
``k``, permissions) is in the key too, so an edited case is asked again; so is the run's index from
the second run on (:meth:`assay.rag.systems.SystemRequest.shown`), so each run of a version with
``repeats`` has its own key and run 0 keeps the key it had without repeats.

A failed case (after its retries) is stored in the committed file with its error and scored as a
failed reply; it is not put in the cache, so the next run outside replay asks it again. With
:data:`REPLAY_ENV` set to ``only`` (``assay verify`` sets it) no system is called: a case without
a stored row is an error naming it, and a failed row replays as the same failure.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assay.artifacts.registry import SYSTEM_REPLIES
from assay.artifacts.rows import SystemReplyRow
from assay.core.errors import MissingArtifact
from assay.judge.cache import ResponseCache, request_key

#: The environment variable that forbids calling a system; ``only``: every reply must be stored.
REPLAY_ENV = "ASSAY_SYSTEM_REPLAY"
#: Where replies are kept as they arrive (git-ignored; a cost saver and the resume point, not an input).
CACHE_PATH = ".assay/system_replies.sqlite"
MAX_NAMED = 5


class MissingSystemReply(MissingArtifact):
    """Replay only, and a case has no stored reply (exit code 2)."""


def system_sha(identity: Mapping[str, Any]) -> str:
    """SHA-256 hex of a system's identity (JSON with sorted keys): key order does not matter.

    >>> system_sha({"a": 1, "b": [2]}) == system_sha({"b": [2], "a": 1})
    True
    """
    text = json.dumps(dict(identity), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def case_key(version: str, identity_sha: str, shown: Mapping[str, Any]) -> str:
    """The key of one case's reply: the version, the system's identity hash and what it is shown.

    >>> k = case_key("mine", "s" * 64, {"question": "q", "k": 3})
    >>> k == case_key("mine", "s" * 64, {"k": 3, "question": "q"}), k == case_key("mine", "t" * 64, {"k": 3, "question": "q"})
    (True, False)
    """
    return request_key(f"assay-system:{version}", identity_sha, dict(shown))


def replay_only() -> bool:
    """Whether :data:`REPLAY_ENV` forbids calling a system (set to ``only``)."""
    return os.environ.get(REPLAY_ENV, "").strip().lower() == "only"


class ReplyStore:
    """The stored replies of one version: the committed file's rows and the cache, looked up by key.

    Args:
        version: the version's name (the file is ``data/derived/replies/<version>.jsonl``).
        root: the repository root.
        cache_path: the SQLite cache (``None``: no cache, e.g. in replay-only runs).

    Use as a context manager (it closes the cache). A committed file that does not parse is an error
    (:class:`~assay.artifacts.base.BrokenArtifact` naming file:line); a missing one is an empty store.
    """

    def __init__(self, version: str, root: str | Path = ".", cache_path: str | Path | None = CACHE_PATH):
        self.version, self.root = version, Path(root)
        path = SYSTEM_REPLIES.path(self.root, version=version)
        rows = SYSTEM_REPLIES.read(self.root, version=version) if path.is_file() else []
        self.committed = {row.key: row for row in rows}
        self.cache = None if cache_path is None else ResponseCache(self.root / cache_path, fix=f"make {cache_path} a writable file")
        self.rows: list[SystemReplyRow] = []
        self.asked = 0

    def lookup(self, key: str, replay: bool) -> SystemReplyRow | None:
        """The stored row for ``key``: a committed ok row, else a cached one; a committed failed row only when ``replay``."""
        row = self.committed.get(key)
        if row is not None and (row.status == "ok" or replay):
            return row
        hit = None if self.cache is None else self.cache.get(key)
        return None if hit is None else SystemReplyRow.model_validate_json(hit.response)

    def keep(self, row: SystemReplyRow, fresh: bool) -> None:
        """Keep one case's row for :meth:`write`; a ``fresh`` ok row (just asked) also goes to the cache at once.

        Failed rows are not cached: outside replay they are asked again.
        """
        self.rows.append(row)
        if fresh:
            self.asked += 1
            if self.cache is not None and row.status == "ok":
                self.cache.put(row.key, row.model_dump_json(), None)

    def missing(self, case_ids: list[str]) -> MissingSystemReply:
        """The error for replay-only cases without a stored reply (up to five named)."""
        named = ", ".join(repr(c) for c in case_ids[:MAX_NAMED])
        more = f" and {len(case_ids) - MAX_NAMED} more" if len(case_ids) > MAX_NAMED else ""
        rel = SYSTEM_REPLIES.relpath(version=self.version)
        return MissingSystemReply(
            f"{rel}: no stored reply for {len(case_ids)} case(s) ({named}{more}) and {REPLAY_ENV}=only forbids "
            f"calling the system: the cases, the corpus, the version's settings or its source changed since "
            f"evaluate@{self.version} ran (fix: run `dvc repro evaluate@{self.version}` and commit {rel})")

    def write(self) -> None:
        """Write the committed file: the rows kept in this run, sorted by case id and run (atomic)."""
        ordered: list[SystemReplyRow] = sorted(self.rows, key=lambda r: (r.case_id, r.run))
        SYSTEM_REPLIES.write(ordered, self.root, version=self.version)

    def close(self) -> None:
        """Close the cache (idempotent)."""
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> ReplyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
