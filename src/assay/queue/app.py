"""The review web app: a JSON API and one HTML page that uses it (Starlette, served by uvicorn).

Every API call needs ``Authorization: Bearer <token>``. Reviewers take and review items of their
own queue; only the coordinator sees results and exports. Endpoints:

- ``GET /api/me``: ``{"role", "queue", "pseudonym"}`` of the token.
- ``POST /api/queues/{queue}/next``: 200 with the blind item (``item_id``, ``question``,
  ``answers`` as ``A``/``B``, ``rubric``, ``lease_expires``, ``lease_seconds_left``, and ``reference``
  when the source has the case's facts or cited documents) or 204 when nothing is left.
- ``POST /api/items/{item_id}/review``: 200 with the reveal (``models``, ``judge``); 409 when
  already reviewed or the lease is not yours; 422 ``{"error", "field"}`` on a bad body (not JSON,
  nested more than :data:`MAX_DEPTH` levels, naming the field where it does, or not a review), the
  error in plain words a reviewer can act on (the page shows it next to ``field``);
  413 when the body is over :data:`MAX_BODY_BYTES` (refused before it is read whole).
- ``GET /api/queues`` and ``GET /api/queues/{queue}/results`` (coordinator): counts and results,
  with a hard-fill queue flagged as biased for overall agreement.

Blindness: before a review is saved nothing the server sends (HTML, JSON or headers) names a model
or the judge's verdict; the page shell holds no data at all. The page renders every answer with
``textContent`` and the Content-Security-Policy allows only this server's own script, so an answer
containing ``<script>`` or ``<img onerror=...>`` is shown as text and never runs.

Speed: ``next`` and ``review`` are each one database transaction that also checks the token
(:func:`~assay.queue.leases.take_next`, :func:`~assay.queue.leases.save`), run in one worker-thread
hop per request. Even on SQLite, whose writes are serialised, the hop pays: the driver releases the
GIL while SQLite works, so the database runs on one core while the event loop parses and answers
other requests on the other. With 16 clients on 2 cores, running the SQL on the loop itself, or
in one dedicated thread, both measured lower throughput than the worker pool
(``benchmarks/bench_queue.py``, alternating runs on a loaded machine).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from assay.core.io import dumps_json, parse_json_line
from assay.queue.errors import BodyTooLarge, NotAllowed, QueueError
from assay.queue.leases import DEFAULT_LEASE_SECONDS, NOT_JSON, BadBody, Unauthenticated, save, take_next
from assay.queue.review import ReviewInvalid
from assay.queue.store import Principal, QueueStore

SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                                "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
}


#: the largest review body read (bytes): a review is a choice, scores, a note and a correction; a larger
#: body is refused with 413 as soon as its Content-Length, or the bytes received, pass this
MAX_BODY_BYTES = 256 * 1024
#: the deepest JSON nesting a review body may have (a review needs 3: body, scores, answer)
MAX_DEPTH = 8
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]')


async def _read_body(request: Request) -> bytes:
    """The request body, or :class:`BodyTooLarge` once it is known to pass :data:`MAX_BODY_BYTES`."""
    too_large = BodyTooLarge(f"the request body is over {MAX_BODY_BYTES} bytes; shorten the note or correction")
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


def _too_deep(text: str, limit: int) -> str | None:
    """The dotted field where JSON ``text`` first nests deeper than ``limit`` levels, else ``None``.

    A scan of the tokens (strings skipped whole), not a parse, so 100,000 nested ``{"a":`` cost one
    pass and no recursion. ``"body"`` when the too-deep value has no key (an array at the top).

    >>> _too_deep('{"note": {"a": {"a": 1}}}', 2)
    'note.a'
    >>> _too_deep('{"note": "{{{{"}', 2) is None
    True
    """
    stack: list[list] = []
    last = None
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in ("{", "["):
            if len(stack) >= limit:
                return ".".join(str(key) for _, key in stack if key is not None) or "body"
            stack.append([token, None if token == "{" else 0])
        elif token in ("}", "]"):
            if stack:
                stack.pop()
        elif token == ":":
            if stack and stack[-1][0] == "{":
                stack[-1][1] = last
        elif token == ",":
            if stack and stack[-1][0] == "[":
                stack[-1][1] += 1
        else:
            last = token[1:-1]
    return None


_RAW_HEADERS = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]


class _JSONResponse(Response):
    """A JSON response whose fixed headers are encoded once, not per request."""

    media_type = "application/json"

    def init_headers(self, headers: object = None) -> None:
        self.raw_headers = [*_RAW_HEADERS, (b"content-length", str(len(self.body)).encode("latin-1")),
                            (b"content-type", b"application/json")]


def _json(data: object, status: int = 200) -> Response:
    try:  # compact, by the C encoder; data with nan (results) takes the stable writer, which nulls it
        body = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    except ValueError:
        body = dumps_json(data).encode("utf-8")  # browsers cannot parse NaN
    return _JSONResponse(body, status_code=status)


def _error(error: QueueError) -> Response:
    payload = {"error": str(error)}
    if isinstance(error, ReviewInvalid):  # plain words for the page, which shows them next to the field
        payload = {"error": error.message, "field": error.field}
    return _json(payload, error.status)


@lru_cache(maxsize=8)
def _asset_text(name: str) -> str:
    return resources.files("assay.queue").joinpath("static", name).read_text(encoding="utf-8")


def _asset(name: str, media_type: str) -> Response:
    return Response(_asset_text(name), media_type=media_type, headers=SECURITY_HEADERS)


def create_app(store: QueueStore, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> Starlette:
    """The web app over ``store``; leases last ``lease_seconds``."""

    def principal(request: Request) -> Principal:
        who = store.principal(_bearer(request))
        if who is None:
            raise Unauthenticated()
        return who

    def coordinator(request: Request) -> Principal:
        who = principal(request)
        if who.role != "coordinator":
            raise NotAllowed("only the coordinator sees results and exports")
        return who

    def me(request: Request) -> Response:
        who = principal(request)
        return _json({"role": who.role, "queue": who.queue, "pseudonym": who.pseudonym})

    async def next_item(request: Request) -> Response:
        item = await run_in_threadpool(take_next, store, _bearer(request), request.path_params["queue"], lease_seconds)
        if item is None:
            return Response(status_code=204, headers=SECURITY_HEADERS)
        return _json(item.model_dump())

    async def review(request: Request) -> Response:
        body = _review_body(await _read_body(request))  # over MAX_BODY_BYTES: 413 before the rest is read
        revealed = await run_in_threadpool(save, store, _bearer(request), request.path_params["item_id"], body)
        return _json(revealed.model_dump())

    def queue_list(request: Request) -> Response:
        coordinator(request)
        out = []
        for name in store.queue_names():
            info = store.queue(name)
            out.append({"name": name, "fill": info.fill, "biased_for_overall_agreement": not info.random_fill,
                        **store.counts(name)})
        return _json({"queues": out})

    def results(request: Request) -> Response:
        coordinator(request)
        from assay.queue.snapshot import snapshot_rows
        from assay.queue.results import summarize

        return _json(summarize(snapshot_rows(store, request.path_params["queue"])).as_json())

    routes = [  # the two every reviewer calls over and over first: routes are matched in order
        Route("/api/queues/{queue}/next", next_item, methods=["POST"]),
        Route("/api/items/{item_id}/review", review, methods=["POST"]),
        Route("/", _page), Route("/app.js", _script), Route("/app.css", _style),
        Route("/api/me", me), Route("/api/queues", queue_list),
        Route("/api/queues/{queue}/results", results),
    ]
    return Starlette(routes=routes, exception_handlers={Unauthenticated: _unauthorized, QueueError: _queue_error})


def _review_body(raw: bytes) -> object:
    """The JSON of a review request, a :class:`BadBody` when nested too deeply or refused, or ``NOT_JSON``.

    Read strictly (:func:`assay.core.io.parse_json_line`): a key given twice, a lone surrogate
    (``"\\ud800"``), an integer beyond 64 bits (a 5000-digit score), ``NaN`` and ``1e999`` are each
    a 422 naming the problem, never a 500. Every refusal waits for the token check, so a bad token is
    still a 401.
    """
    try:
        text = raw.decode("utf-8") if raw else "null"
    except UnicodeDecodeError:
        return NOT_JSON
    deep = _too_deep(text, MAX_DEPTH)
    if deep:
        return BadBody(deep, f"The review is nested more than {MAX_DEPTH} levels deep.")
    value, why = parse_json_line(text)
    if why is None:
        return value
    return NOT_JSON if why.startswith("not valid JSON") else BadBody("body", f"The review could not be read: {why}.")


def _page(_request: Request) -> Response:
    return _asset("index.html", "text/html; charset=utf-8")


def _script(_request: Request) -> Response:
    return _asset("app.js", "text/javascript; charset=utf-8")


def _style(_request: Request) -> Response:
    return _asset("app.css", "text/css; charset=utf-8")


def _unauthorized(_request: Request, _exc: Exception) -> Response:
    headers = {**SECURITY_HEADERS, "WWW-Authenticate": "Bearer"}
    return Response(json.dumps({"error": "a valid token is required (Authorization: Bearer <token>)"}),
                    status_code=401, media_type="application/json", headers=headers)


def _queue_error(_request: Request, exc: Exception) -> Response:
    # Starlette registers handlers by exception class but types them for any Exception; this one is for QueueError
    return _error(exc)  # type: ignore[arg-type]


def _bearer(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, else ``None``."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None
