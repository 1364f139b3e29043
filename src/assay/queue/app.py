"""The review web app: a JSON API and one HTML page that uses it (Starlette, served by uvicorn).

Every API call needs ``Authorization: Bearer <token>``. Reviewers take and review items of their
own queue; only the coordinator sees results and exports. Endpoints:

- ``GET /api/me``: ``{"role", "queue", "pseudonym"}`` of the token.
- ``POST /api/queues/{queue}/next``: 200 with the blind item (``item_id``, ``question``,
  ``answers`` as ``A``/``B``, ``rubric``, ``lease_expires``) or 204 when nothing is left.
- ``POST /api/items/{item_id}/review``: 200 with the reveal (``models``, ``judge``); 409 when
  already reviewed or the lease is not yours; 422 ``{"error", "field"}`` on a bad body.
- ``GET /api/queues`` and ``GET /api/queues/{queue}/results`` (coordinator): counts and results,
  with a hard-fill queue flagged as biased for overall agreement.

Blindness: before a review is saved nothing the server sends (HTML, JSON or headers) names a model
or the judge's verdict; the page shell holds no data at all. The page renders every answer with
``textContent`` and the Content-Security-Policy allows only this server's own script, so an answer
containing ``<script>`` or ``<img onerror=...>`` is shown as text and never runs.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from assay.core.io import dumps_json
from assay.queue.errors import NotAllowed, QueueError
from assay.queue.leases import DEFAULT_LEASE_SECONDS, claim, save_review
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


def _json(data, status: int = 200) -> Response:
    body = dumps_json(data).encode("utf-8")  # nan becomes null: browsers cannot parse NaN
    return Response(body, status_code=status, media_type="application/json", headers=SECURITY_HEADERS)


def _error(error: QueueError) -> Response:
    payload = {"error": str(error)}
    if isinstance(error, ReviewInvalid):
        payload["field"] = error.field
    return _json(payload, error.status)


@lru_cache(maxsize=8)
def _asset_text(name: str) -> str:
    return resources.files("assay.queue").joinpath("static", name).read_text(encoding="utf-8")


def _asset(name: str, media_type: str) -> Response:
    return Response(_asset_text(name), media_type=media_type, headers=SECURITY_HEADERS)


def create_app(store: QueueStore, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> Starlette:
    """The web app over ``store``; leases last ``lease_seconds``."""

    def principal(request: Request) -> Principal:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        who = store.principal(token.strip()) if scheme.lower() == "bearer" else None
        if who is None:
            raise _Unauthorized()
        return who

    def reviewer_of(request: Request, queue: str) -> Principal:
        who = principal(request)
        if who.role != "reviewer":
            raise NotAllowed("only a reviewer takes and reviews items; the coordinator creates queues and reads results")
        if who.queue != queue:
            raise NotAllowed(f"your token is for queue {who.queue!r}, not {queue!r}")
        return who

    def coordinator(request: Request) -> Principal:
        who = principal(request)
        if who.role != "coordinator":
            raise NotAllowed("only the coordinator sees results and exports")
        return who

    def me(request: Request) -> Response:
        who = principal(request)
        return _json({"role": who.role, "queue": who.queue, "pseudonym": who.pseudonym})

    def next_item(request: Request) -> Response:
        queue = request.path_params["queue"]
        who = reviewer_of(request, queue)
        item = claim(store, queue, who.pseudonym, lease_seconds)
        if item is None:
            return Response(status_code=204, headers=SECURITY_HEADERS)
        return _json(item)

    def review_sync(request: Request, raw: bytes) -> Response:
        who = principal(request)
        if who.role != "reviewer":
            raise NotAllowed("only a reviewer saves reviews")
        try:
            body = json.loads(raw or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ReviewInvalid("body", "not valid JSON") from None
        return _json(save_review(store, who.queue, request.path_params["item_id"], who.pseudonym, body))

    async def review(request: Request) -> Response:
        # read the body on the event loop, then do every database call in one worker-thread hop
        return await run_in_threadpool(review_sync, request, await request.body())

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

        return _json(summarize(snapshot_rows(store, request.path_params["queue"])))

    def page(_request: Request) -> Response:
        return _asset("index.html", "text/html; charset=utf-8")

    def script(_request: Request) -> Response:
        return _asset("app.js", "text/javascript; charset=utf-8")

    def style(_request: Request) -> Response:
        return _asset("app.css", "text/css; charset=utf-8")

    def unauthorized(_request: Request, _exc: Exception) -> Response:
        headers = {**SECURITY_HEADERS, "WWW-Authenticate": "Bearer"}
        return Response(json.dumps({"error": "a valid token is required (Authorization: Bearer <token>)"}),
                        status_code=401, media_type="application/json", headers=headers)

    def queue_error(_request: Request, exc: Exception) -> Response:
        return _error(exc)  # type: ignore[arg-type]

    routes = [
        Route("/", page), Route("/app.js", script), Route("/app.css", style),
        Route("/api/me", me), Route("/api/queues", queue_list),
        Route("/api/queues/{queue}/next", next_item, methods=["POST"]),
        Route("/api/queues/{queue}/results", results),
        Route("/api/items/{item_id}/review", review, methods=["POST"]),
    ]
    return Starlette(routes=routes, exception_handlers={_Unauthorized: unauthorized, QueueError: queue_error})


class _Unauthorized(Exception):
    """No valid bearer token."""
