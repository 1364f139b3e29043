"""Posting one JSON request with a total timeout and retries: the transport of the OpenAI-compatible judge.

Retried: HTTP 429, every 5xx, and connection errors and timeouts (``httpx.TransportError`` and the
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
import random
import ssl
import time
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx

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
    """The one TLS context every connection of every pool uses (httpx's defaults: certifi's CA
    bundle, or ``SSL_CERT_FILE``/``SSL_CERT_DIR`` when set). Built once per process: loading the
    CA bundle cost about 40 ms of CPU, and each of a pool's clients used to load it again."""
    return httpx.create_ssl_context()


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``),
    ``None`` when there is none or ``NO_PROXY`` covers the host: what an httpx client with
    ``trust_env`` would use.

    >>> env_proxy("http://127.0.0.1:8000/v1") is None or True
    True
    """
    parts = urllib.parse.urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(parts.scheme) or proxies.get("all")


class ClientPool:
    """``concurrency`` request slots spread over several small httpx connection pools.

    Holding a slot is what bounds the requests in flight. The slots are spread over transports of
    at most ``per_client`` connections each because httpcore 1.0's pool does work quadratic in its
    connection count on every request (encode/httpcore#1035): at 32 connections in one pool,
    pool bookkeeping took most of the client's CPU time; in pools of 4 it is negligible.

    Requests go straight to ``httpx.AsyncHTTPTransport`` (httpx's public transport interface),
    not through ``httpx.AsyncClient``: the client's per-request work (URL and header merging,
    cookies, auth and redirect flows, event hooks) is of no use to one JSON POST and cost about a
    third of the CPU per request (benchmarks/bench_judge_client.py). Every transport shares one
    TLS context (:func:`tls_context`).

    Args:
        concurrency: the most requests in flight at once.
        headers: sent with every request (the Authorization header, if any).
        timeout: httpx's per-operation timeout, seconds.
        proxy: proxy URL for every request (see :func:`env_proxy`), ``None`` for none.
    """

    def __init__(self, concurrency: int, headers: dict[str, str], timeout: float, per_client: int = 4,
                 proxy: str | None = None):
        sizes = [per_client] * (concurrency // per_client) + ([concurrency % per_client] if concurrency % per_client else [])
        context = tls_context()
        self.headers = {"content-type": "application/json", "accept": "application/json",
                        "user-agent": f"assay/{assay.__version__}", **headers}
        self.timeout = httpx.Timeout(timeout).as_dict()
        self._transports = [httpx.AsyncHTTPTransport(verify=context, proxy=proxy,
                                                     limits=httpx.Limits(max_connections=size, max_keepalive_connections=size))
                            for size in sizes]
        self._free: asyncio.Queue[httpx.AsyncHTTPTransport] = asyncio.Queue()
        for transport, size in zip(self._transports, sizes):
            for _ in range(size):
                self._free.put_nowait(transport)

    @contextlib.asynccontextmanager
    async def slot(self):
        """Wait for a free slot; yield the transport it belongs to."""
        transport = await self._free.get()
        try:
            yield transport
        finally:
            self._free.put_nowait(transport)

    async def post(self, transport: httpx.AsyncHTTPTransport, url: str, body: dict) -> httpx.Response:
        """POST ``body`` as JSON (httpx's encoding: compact, UTF-8, no NaN) and read the whole response."""
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        request = httpx.Request("POST", url, headers=self.headers, content=content, extensions={"timeout": self.timeout})
        response = await transport.handle_async_request(request)
        try:
            await response.aread()
        finally:
            await response.aclose()
        return response

    async def __aenter__(self) -> ClientPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for transport in self._transports:
            await transport.aclose()


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
        the exception type) and the attempt count.
    """
    last = "no attempt made"
    status: int | None = None
    for attempt in range(retries + 1):
        wait: float | None = None
        async with pool.slot() as transport:
            try:
                async with asyncio.timeout(timeout):
                    response = await pool.post(transport, url, body)
                    text = response.text
            except (httpx.TransportError, TimeoutError) as error:
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
