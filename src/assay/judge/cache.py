"""A persistent cache of judge responses in SQLite, so a re-run pays only for requests it has not seen.

One row per distinct request: the key is the SHA-256 of the endpoint URL, the model name and the
exact request body (JSON with sorted keys); the value is the response text as the caller stores it
(the OpenAI judge keeps only the fields it parses and the raw body's SHA-256,
:func:`assay.judge.openai.kept_response`) and the model the server reported. The API key is never
part of a key or a row (it travels in a header, not the body).

Each response is committed as soon as it arrives, in WAL mode, so a crash or Ctrl-C mid-run loses
no completed response, and another process may read the file while a run writes it. With
``synchronous=NORMAL`` a power cut may lose the last few commits (an application crash loses none);
the worst case is paying for those requests again. Failed requests are never stored.

The cache lives outside DVC outputs (default ``.assay/judge_cache.sqlite``) so ``dvc repro`` never
deletes it; it is a cost saver, not an input: deleting it changes nothing but the bill. With a
temperature above 0 a cached reply replays the first sample drawn.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.core.errors import AssayError

DEFAULT_CACHE_PATH = ".assay/judge_cache.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    response TEXT NOT NULL,
    model TEXT
)
"""


class CacheUnavailable(AssayError):
    """The cache file cannot be opened or written (bad path, not a SQLite file, read-only folder)."""


@dataclass(frozen=True)
class CachedResponse:
    """A stored response: the body text as stored and the model name the server reported (``None`` if absent)."""

    response: str
    model: str | None


def request_key(url: str, model: str, body: dict[str, Any]) -> str:
    """The cache key of one request: SHA-256 hex of URL, model and body as JSON with sorted keys.

    Key order inside ``body`` does not matter; any change to a value (a word of the prompt, the
    temperature, ``max_tokens``) gives a new key.

    >>> request_key("http://h/v1/chat/completions", "m", {"a": 1, "b": 2}) == request_key(
    ...     "http://h/v1/chat/completions", "m", {"b": 2, "a": 1})
    True
    """
    text = json.dumps([url, model, body], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """The SQLite response cache; use as a context manager, from one thread at a time.

    The connection may pass between threads (the judge opens it in the caller's thread and may
    write from the thread running its event loop) but must not be used by two at once.

    Args:
        path: the database file; its folder is created if missing.
        fix: what to change when it cannot be opened, naming the setting that chose ``path``
            (the judge's ``judge.openai.cache_path`` by default).

    Raises:
        CacheUnavailable: the file cannot be opened as a SQLite database, naming the path and the fix.
    """

    def __init__(self, path: str | Path = DEFAULT_CACHE_PATH, fix: str = "point judge.openai.cache_path at a writable file"):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise CacheUnavailable(
                f"ResponseCache: cannot open {str(self.path)!r} as a SQLite cache ({error}) "
                f"(fix: {fix}, or delete a corrupt cache file)"
            ) from None

    def get(self, key: str) -> CachedResponse | None:
        """The stored response for ``key``, or ``None`` when it was never stored."""
        row = self._db.execute("SELECT response, model FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else CachedResponse(row[0], row[1])

    def put(self, key: str, response: str, model: str | None) -> None:
        """Store one response and commit at once (a later put for the same key replaces it)."""
        try:
            self._db.execute("INSERT OR REPLACE INTO responses (key, response, model) VALUES (?, ?, ?)",
                             (key, response, model))
        except sqlite3.Error as error:
            raise CacheUnavailable(f"ResponseCache.put: cannot write {str(self.path)!r} ({error}) "
                                   "(fix: check the disk and the file's permissions)") from None

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
