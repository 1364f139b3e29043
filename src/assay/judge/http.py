"""Posting one JSON request with a total timeout and retries: the transport of the OpenAI-compatible judge.

Retried: HTTP 429, every 5xx, and connection errors and timeouts (``httpx.TransportError`` and the
total timeout). Not retried: every other 4xx (a bad request stays bad) and 2xx/3xx. The wait
before retry ``k`` (0-based) is ``Retry-After`` when the server sends it (seconds or an HTTP date,
capped at ``max_wait``), otherwise exponential backoff with jitter: ``d/2 + uniform(0, d/2)`` with
``d = min(max_wait, backoff * 2**k)``.

Nothing here sees the API key except the caller's client headers; every text this module returns
passes through ``scrub`` so a server that echoes the key cannot leak it into a reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx

log = logging.getLogger("assay.judge.http")

RETRY_STATUSES = frozenset({429}) | frozenset(range(500, 600))


@dataclass(frozen=True)
class Outcome:
    """The end of one request: ``text`` when the server answered 2xx, else ``error`` says why.

    ``attempts`` counts every request sent (1 when the first one answered).
    """

    status_code: int | None
    text: str | None
    error: str | None
    attempts: int


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: a number of seconds or an HTTP date.

    Returns ``None`` for a missing or unreadable header; a date in the past gives 0.

    >>> retry_after_seconds("2"), retry_after_seconds("0.5"), retry_after_seconds("soon")
    (2.0, 0.5, None)
    """
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_delay(attempt: int, backoff: float, max_wait: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with equal jitter for retry ``attempt`` (0-based), in ``[d/2, d]``."""
    d = min(max_wait, backoff * 2 ** attempt)
    return d / 2 + (rng or random).uniform(0, d / 2)


class ClientPool:
    """``concurrency`` request slots spread over several small ``httpx.AsyncClient`` pools.

    Holding a slot is what bounds the requests in flight. The slots are spread over clients of at
    most ``per_client`` connections each because httpcore 1.0's pool does work quadratic in its
    connection count on every request (encode/httpcore#1035): at 32 connections in one client,
    pool bookkeeping took most of the client's CPU time; in clients of 4 it is negligible.

    Args:
        concurrency: the most requests in flight at once.
        headers: sent with every request (the Authorization header, if any).
        timeout: httpx's per-operation timeout, seconds.
    """

    def __init__(self, concurrency: int, headers: dict[str, str], timeout: float, per_client: int = 4):
        sizes = [per_client] * (concurrency // per_client) + ([concurrency % per_client] if concurrency % per_client else [])
        self._clients = [httpx.AsyncClient(headers=headers, timeout=timeout,
                                           limits=httpx.Limits(max_connections=size, max_keepalive_connections=size))
                         for size in sizes]
        self._free: asyncio.Queue[httpx.AsyncClient] = asyncio.Queue()
        for client, size in zip(self._clients, sizes):
            for _ in range(size):
                self._free.put_nowait(client)

    @contextlib.asynccontextmanager
    async def slot(self):
        """Wait for a free slot; yield the client it belongs to."""
        client = await self._free.get()
        try:
            yield client
        finally:
            self._free.put_nowait(client)

    async def __aenter__(self) -> ClientPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for client in self._clients:
            await client.aclose()


async def post_json(
    pool: ClientPool,
    url: str,
    body: dict,
    *,
    timeout: float,
    retries: int,
    backoff: float,
    max_wait: float,
    scrub: Callable[[str], str] = lambda text: text,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> Outcome:
    """POST ``body`` to ``url``, retrying as the module says; never raises for HTTP or network trouble.

    Args:
        pool: the clients (their headers carry the key, if any); a slot is held only while a
            request is in flight, not while waiting to retry.
        timeout: total seconds for one attempt (connect, send, wait, read); the wait for a free
            slot is not counted.
        retries: extra attempts after the first (0 means one try).
        backoff: base delay of the exponential backoff, seconds.
        max_wait: cap on any single wait, including one asked for by ``Retry-After``.
        scrub: applied to every text this returns (replaces the API key).

    Returns:
        An :class:`Outcome`; ``error`` names the last failure (status and start of the body, or
        the exception type) and the attempt count.
    """
    last = "no attempt made"
    status: int | None = None
    for attempt in range(retries + 1):
        wait: float | None = None
        async with pool.slot() as client:
            try:
                async with asyncio.timeout(timeout):
                    response = await client.post(url, json=body)
                    text = response.text
            except (httpx.TransportError, TimeoutError) as error:
                status, last = None, f"{type(error).__name__}: {scrub(str(error)) or 'no detail'}"
            else:
                status = response.status_code
                if status < 400:
                    return Outcome(status, scrub(text), None, attempt + 1)
                last = f"HTTP {status}: {scrub(text)[:200]}"
                if status not in RETRY_STATUSES:
                    return Outcome(status, None, f"{last} (not retried)", attempt + 1)
                wait = retry_after_seconds(response.headers.get("retry-after"))
        if attempt == retries:
            break
        delay = min(max_wait, wait) if wait is not None else backoff_delay(attempt, backoff, max_wait)
        log.info("retrying %s in %.2fs after %s (attempt %d of %d)", url, delay, last, attempt + 1, retries + 1)
        await sleep(delay)
    return Outcome(status, None, f"{last} (gave up after {retries + 1} attempt(s))", retries + 1)
