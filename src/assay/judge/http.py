"""Posting one JSON request with a total timeout and retries: the transport of the OpenAI-compatible judge.

Retried: HTTP 429, every 5xx, and connection errors and timeouts (``aiohttp.ClientError`` and the
total timeout). Not retried: every other 4xx (a bad request stays bad), 2xx/3xx, and any 4xx/5xx
whose body the caller's ``permanent`` test marks as a request the server will never accept (a
server that refuses a ``response_format`` shape answers it with a 500; see
:func:`refuses_response_format`). The wait
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
import functools
import json
import logging
import os
import random
import ssl
import time
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any
from dataclasses import dataclass

import aiohttp

import assay

log = logging.getLogger("assay.judge.http")

RETRY_STATUSES = frozenset({429}) | frozenset(range(500, 600))


@dataclass(frozen=True)
class Outcome:
    """The end of one request: ``text`` when the server answered 2xx, else ``error`` says why.

    ``attempts`` counts every request sent (1 when the first one answered); ``permanent`` is true
    when the caller's ``permanent`` test stopped the retries (the error then holds the body's start).
    """

    status_code: int | None
    text: str | None
    error: str | None
    attempts: int
    permanent: bool = False


_FORMAT_WORDS = ("response_format", "json_schema", "json_object")
_REFUSAL_WORDS = ("should be", "not supported", "unsupported", "must be", "invalid", "not allowed", "not permitted",
                  "unknown", "unrecognized", "not recognized", "extra inputs", "not implemented")


def refuses_response_format(status: int, text: str) -> bool:
    """Whether an error response says the request's ``response_format`` (its shape) is not accepted.

    True for a 4xx/5xx (other than 401, 403 and 429) whose body names ``response_format``,
    ``json_schema`` or ``json_object`` and says it is refused ("should be", "not supported",
    "invalid", "unknown", "extra inputs", ...). Only meaningful when the request carried a
    ``response_format``: a body about something else that happens to use these words is rare, and
    the caller asks only then. llama-cpp-python's server answers ``{"type": "json_schema"}`` with
    HTTP 500 and pydantic's "Input should be 'text' or 'json_object'".

    >>> refuses_response_format(500, "response_format.type: Input should be 'text' or 'json_object'")
    True
    >>> refuses_response_format(500, "CUDA out of memory"), refuses_response_format(429, "json_schema invalid")
    (False, False)
    """
    if status < 400 or status in (401, 403, 429):
        return False
    lower = text.lower()
    return any(w in lower for w in _FORMAT_WORDS) and any(w in lower for w in _REFUSAL_WORDS)


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


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The one TLS context every connection of every pool uses: the CA files ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR`` name when set, else certifi's bundle (httpx's defaults, which the judge used
    before). Built once per process: loading the CA bundle costs about 40 ms of CPU."""
    cafile, capath = os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None
    if cafile is None and capath is None:
        import certifi

        cafile = certifi.where()
    return ssl.create_default_context(cafile=cafile, capath=capath)


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``),
    ``None`` when there is none or ``NO_PROXY`` covers the host.

    >>> env_proxy("http://127.0.0.1:8000/v1") is None or True
    True
    """
    parts = urllib.parse.urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(parts.scheme) or proxies.get("all")


@dataclass(frozen=True)
class Reply:
    """An HTTP response read whole: status, body text (UTF-8 unless the server names a charset;
    undecodable bytes replaced) and headers (case-insensitive)."""

    status_code: int
    text: str
    headers: Mapping[str, str]


class ClientPool:
    """``concurrency`` request slots over one aiohttp session whose connector holds as many connections.

    Holding a slot is what bounds the requests in flight. The transport is aiohttp: against the
    same local server, httpx (with httpcore's pool) spent 3.7 times aiohttp's CPU per request at
    concurrency 32 (benchmarks/bench_judge_client.py); the judge's retries, ``Retry-After``,
    timeouts, proxy and redaction live in :func:`post_json` and do not depend on it. Redirects are
    not followed (a redirected POST is an error the caller sees), no cookies are kept, and the
    environment is read only through :func:`env_proxy` (the session does not ``trust_env``, so no
    ``.netrc`` credentials are sent). Every connection uses one TLS context (:func:`tls_context`).

    Args:
        concurrency: the most requests in flight at once.
        headers: sent with every request (the Authorization header, if any).
        timeout: seconds for connecting, and between two reads of the response (the caller caps
            the whole request, see :func:`post_json`).
        proxy: proxy URL for every request (see :func:`env_proxy`), ``None`` for none.
    """

    def __init__(self, concurrency: int, headers: dict[str, str], timeout: float, proxy: str | None = None):
        self.headers = {"content-type": "application/json", "accept": "application/json",
                        "user-agent": f"assay/{assay.__version__}", **headers}
        self.timeout = timeout
        self.proxy = proxy
        self.concurrency = concurrency
        self._slots = asyncio.Semaphore(concurrency)
        self._session: aiohttp.ClientSession | None = None
        self.stopped = False

    def stop(self) -> None:
        """Send nothing more: a request that takes a slot from now on returns unsent (see :func:`post_json`).

        Called without an ``await`` after the answer that calls for it, so no request waiting for a
        slot is sent after that answer, however the tasks are scheduled.
        """
        self.stopped = True

    async def __aenter__(self) -> ClientPool:
        import aiohttp

        connector = aiohttp.TCPConnector(limit=self.concurrency, limit_per_host=0, ssl=tls_context())
        self._session = aiohttp.ClientSession(
            connector=connector, headers=self.headers, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False,
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=self.timeout, sock_read=self.timeout))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[aiohttp.ClientSession]:
        """Wait for a free slot; yield the session to post with.

        Raises:
            RuntimeError: the pool is not open (use it inside ``async with ClientPool(...) as pool``).
        """
        async with self._slots:
            if self._session is None:
                raise RuntimeError("ClientPool.slot: the pool is not open; use it inside `async with ClientPool(...) as pool`")
            yield self._session

    async def post(self, session: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> Reply:
        """POST ``body`` as JSON (compact, UTF-8, no NaN: httpx's encoding) and read the whole response."""
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        async with session.post(url, data=content, proxy=self.proxy, allow_redirects=False) as response:
            raw = await response.read()
            return Reply(response.status, raw.decode(response.charset or "utf-8", errors="replace"), response.headers)


async def post_json(
    pool: ClientPool,
    url: str,
    body: dict[str, Any],
    *,
    timeout: float,
    retries: int,
    backoff: float,
    max_wait: float,
    scrub: Callable[[str], str] = lambda text: text,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    permanent: Callable[[int, str], bool] | None = None,
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
        permanent: ``permanent(status, body)`` true for a 4xx/5xx the server will answer the same
            way every time (e.g. :func:`refuses_response_format`): returned at once, not retried,
            with ``Outcome.permanent`` set.

    Returns:
        An :class:`Outcome`; ``error`` names the last failure (status and start of the body, or
        the exception type) and the attempt count. After :meth:`ClientPool.stop` nothing more is
        sent: the outcome says "not sent".
    """
    last = "no attempt made"
    status: int | None = None
    for attempt in range(retries + 1):
        wait: float | None = None
        async with pool.slot() as session:
            if pool.stopped:
                return Outcome(None, None, "not sent: the call was stopped", attempt)
            try:
                async with asyncio.timeout(timeout):
                    response = await pool.post(session, url, body)
                    text = response.text
            except (aiohttp.ClientError, TimeoutError) as error:
                status, last = None, f"{type(error).__name__}: {scrub(str(error)) or 'no detail'}"
            else:
                status = response.status_code
                if status < 400:
                    return Outcome(status, scrub(text), None, attempt + 1)
                last = f"HTTP {status}: {scrub(text)[:200]}"
                if permanent is not None and permanent(status, text):
                    return Outcome(status, None, f"{last} (not retried)", attempt + 1, permanent=True)
                if status not in RETRY_STATUSES:
                    return Outcome(status, None, f"{last} (not retried)", attempt + 1)
                wait = retry_after_seconds(response.headers.get("retry-after"))
        if attempt == retries:
            break
        delay = min(max_wait, wait) if wait is not None else backoff_delay(attempt, backoff, max_wait)
        log.info("retrying %s in %.2fs after %s (attempt %d of %d)", url, delay, last, attempt + 1, retries + 1)
        await sleep(delay)
    return Outcome(status, None, f"{last} (gave up after {retries + 1} attempt(s))", retries + 1)
