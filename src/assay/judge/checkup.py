"""A judge server's checkup (``assay judge doctor``): which ``response_format`` shapes it takes, how
long one request takes, how many it serves at once, and the ``judge.openai`` settings that follow.

The checkup sends, with no retries and bypassing the response cache:

1. one request per ``response_format`` shape (none, ``json_object``, ``json_schema``), in that
   order, so the first one also absorbs a server's warm-up (Ollama loads the model on the first
   request); each is a real judge request (the project's prompt, a two-answer arithmetic item) and
   its reply is parsed as a verdict;
2. one request alone, timed (``alone_seconds``);
3. ``parallel`` requests at once, each with a different item, timed together (``batch_seconds``).

From these (:func:`served_at_once`, :func:`suggested_timeout`): the server works on about
``parallel / round(batch / fastest)`` requests at once, ``fastest`` being the first of the batch to
finish (a server with one slot answers them one after another, in ``parallel`` rounds; one that
serves all of them answers them together, in one); ``concurrency`` is that number; ``timeout`` is three
times the time one request takes at that concurrency, at least 10 s (real items are longer than the
checkup's); ``response_format`` is the strictest shape that gave a verdict (``json_schema``, then
``json_object``, else none).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from assay.core.errors import AssayError
from assay.judge.base import JudgeItem

if TYPE_CHECKING:
    from assay.judge.http import ClientPool, Outcome
    from assay.judge.openai import OpenAIJudgeParams
    from assay.judge.prompts import PromptVersion

Shape = Literal["none", "json_object", "json_schema"]
SHAPES: tuple[Shape, ...] = ("none", "json_object", "json_schema")
MIN_TIMEOUT = 10


class CheckupFailed(AssayError):
    """The server answered none of the checkup's requests."""


class ShapeResult(BaseModel):
    """One request with one ``response_format`` shape: what came back and how long it took.

    ``outcome``: ``verdict`` (a reply that parses as a verdict), ``not_a_verdict`` (a completion
    that does not), ``refused`` (the server refused the shape, see
    :func:`assay.judge.http.refuses_response_format`) or ``error`` (any other HTTP error, a timeout,
    no connection). ``detail`` is short and has no secret in it.
    """

    model_config = ConfigDict(extra="forbid")
    shape: Shape
    outcome: Literal["verdict", "not_a_verdict", "refused", "error"]
    status_code: int | None
    seconds: float
    detail: str


class Checkup(BaseModel):
    """What :func:`run_checkup` measured and suggests; ``None`` where a measurement could not be made."""

    model_config = ConfigDict(extra="forbid")
    base_url: str
    model: str
    shapes: list[ShapeResult]
    parallel: int
    alone_seconds: float | None = None
    batch_seconds: float | None = None
    fastest_in_batch_seconds: float | None = None
    served_at_once: int | None = None
    concurrency: int | None = None
    timeout: int | None = None
    response_format: Literal["json_object", "json_schema"] | None = None
    notes: list[str] = []


def served_at_once(parallel: int, fastest: float, batch: float) -> int:
    """How many of ``parallel`` requests sent together the server worked on at once.

    ``fastest`` is the time of the first request of the batch to finish (one round), ``batch`` the
    time of the last; the batch took ``rounds = round(batch / fastest)`` (at least 1) rounds, so
    ``ceil(parallel / rounds)`` were served per round, within ``[1, parallel]``. Both times are
    measured in the same batch, so a slow machine stretches both alike. Exact when the server's
    slots divide ``parallel``; otherwise never more than the slots (``ceil(p / ceil(p / s)) <= s``).

    >>> served_at_once(4, 1.0, 4.1), served_at_once(4, 1.0, 1.2), served_at_once(4, 1.0, 2.1), served_at_once(4, 0.0, 1.0)
    (1, 4, 2, 1)
    """
    if fastest <= 0:
        return 1
    rounds = max(1, math.floor(batch / fastest + 0.5))
    return max(1, min(parallel, math.ceil(parallel / rounds)))


def suggested_timeout(alone: float, batch: float, parallel: int, concurrency: int) -> int:
    """Seconds for ``judge.openai.timeout``: three times one request's time with ``concurrency`` in flight.

    That time is ``batch * concurrency / parallel`` (the batch's time, scaled to the requests in
    flight), and never less than one request alone; the result is rounded up, at least 10.

    >>> suggested_timeout(20.0, 80.0, 4, 1), suggested_timeout(0.5, 0.6, 4, 4), suggested_timeout(30.0, 33.0, 4, 4)
    (60, 10, 99)
    """
    per_request = max(alone, batch * concurrency / parallel)
    return max(MIN_TIMEOUT, math.ceil(3 * per_request))


def checkup_item(i: int) -> JudgeItem:
    """The ``i``-th checkup item: ``What is i + i?`` with the right answer first (distinct per ``i``).

    >>> checkup_item(2).question, checkup_item(2).first, checkup_item(2).second
    ('What is 2 + 2?', '2 + 2 = 4.', '2 + 2 = 5.')
    """
    return JudgeItem(f"What is {i} + {i}?", (), f"{i} + {i} = {2 * i}.", f"{i} + {i} = {2 * i + 1}.")


def _shape_result(shape: Shape, outcome: Outcome, seconds: float) -> ShapeResult:
    from assay.judge.openai import classify, read_completion
    from assay.judge.prompts import parse_verdict

    if outcome.text is None:
        kind = "refused" if outcome.permanent else "error"
        detail = " ".join((outcome.error or "no reply").split())[:240]
        return ShapeResult(shape=shape, outcome=kind, status_code=outcome.status_code, seconds=seconds, detail=detail)
    completion = read_completion(outcome.text)
    if completion is None:
        return ShapeResult(shape=shape, outcome="error", status_code=outcome.status_code, seconds=seconds,
                           detail="the body is not a chat completion")
    verdict = classify(completion, parse_verdict)
    if verdict.status == "ok":
        return ShapeResult(shape=shape, outcome="verdict", status_code=outcome.status_code, seconds=seconds,
                           detail=f"winner {verdict.winner}")
    return ShapeResult(shape=shape, outcome="not_a_verdict", status_code=outcome.status_code, seconds=seconds,
                       detail=f"{verdict.status}: {' '.join((verdict.reason or '').split())[:200]}")


async def _checkup(params: OpenAIJudgeParams, prompt: PromptVersion, parallel: int, timeout: float,
                   log: Callable[[str], None]) -> Checkup:
    from assay.judge.http import ClientPool, env_proxy, post_json, refuses_response_format
    from assay.judge.openai import OpenAIJudge

    key = OpenAIJudge(params)._api_key()
    url = f"{params.base_url}/chat/completions"
    headers = {"Authorization": f"Bearer {key}"} if key else {}

    def scrub(text: str) -> str:
        from assay.judge.openai import redact

        return redact(text, (key,) if key else ())

    def body(shape: Shape, i: int) -> dict[str, Any]:
        fmt = None if shape == "none" else shape
        judge = OpenAIJudge(params.model_copy(update={"response_format": fmt}), require_key=False)
        return judge.request_body(checkup_item(i), prompt)

    async def timed(pool: ClientPool, b: dict[str, Any], seconds: float) -> tuple[Outcome, float]:
        start = time.perf_counter()
        out = await post_json(pool, url, b, timeout=seconds, retries=0, backoff=0.0, max_wait=0.0, scrub=scrub,
                              permanent=refuses_response_format if "response_format" in b else None)
        return out, time.perf_counter() - start

    checkup = Checkup(base_url=params.base_url, model=params.model, shapes=[], parallel=parallel)
    async with ClientPool(parallel, headers, timeout * parallel, proxy=env_proxy(url)) as pool:
        for n, shape in enumerate(SHAPES, 1):
            log(f"request {n} of {len(SHAPES) + 1 + parallel}: response_format {shape}")
            out, seconds = await timed(pool, body(shape, 1), timeout)
            checkup.shapes.append(_shape_result(shape, out, seconds))
        by_shape = {s.shape: s for s in checkup.shapes}
        answered = [s.shape for s in checkup.shapes if s.outcome in ("verdict", "not_a_verdict")]
        if not answered:
            worst = checkup.shapes[0]
            refused = next((s for s in checkup.shapes if s.status_code in (401, 403)), None)
            if refused is not None:
                raise CheckupFailed(_key_refused(url, params.api_key_env, refused))
            raise CheckupFailed(f"judge doctor: the server at {url} answered no request: {worst.detail} (fix: start the "
                                "server, check judge.openai.base_url (the API root, ending in /v1) and model, or pass a "
                                "longer --timeout for a slow first request)")
        checkup.response_format = next((s for s in ("json_schema", "json_object") if by_shape[s].outcome == "verdict"), None)
        use: Shape = checkup.response_format or "none"
        log(f"request {len(SHAPES) + 1} of {len(SHAPES) + 1 + parallel}: one request alone")
        out, alone = await timed(pool, body(use, 2), timeout)
        if out.text is None:
            checkup.notes.append(f"the timed request failed: {' '.join((out.error or '').split())[:200]}")
            return checkup
        log(f"requests {len(SHAPES) + 2} to {len(SHAPES) + 1 + parallel}: {parallel} at once")
        start = time.perf_counter()
        batch = await asyncio.gather(*(timed(pool, body(use, 3 + i), timeout * parallel) for i in range(parallel)))
        batch_seconds = time.perf_counter() - start
    failed = [o for o, _ in batch if o.text is None]
    checkup.alone_seconds = round(alone, 3)
    checkup.batch_seconds = round(batch_seconds, 3)
    fastest = min(seconds for _, seconds in batch)
    checkup.fastest_in_batch_seconds = round(fastest, 3)
    if failed:
        checkup.notes.append(f"{len(failed)} of the {parallel} requests sent at once failed: "
                             f"{' '.join((failed[0].error or '').split())[:200]}; the server may drop requests it cannot queue")
        return checkup
    checkup.served_at_once = served_at_once(parallel, fastest, batch_seconds)
    checkup.concurrency = checkup.served_at_once
    checkup.timeout = suggested_timeout(alone, batch_seconds, parallel, checkup.concurrency)
    if checkup.served_at_once == parallel:
        checkup.notes.append(f"the server served all {parallel} requests at once; run again with --parallel "
                             f"{2 * parallel} to see whether it takes more")
    if checkup.response_format is None:
        if by_shape["none"].outcome == "verdict":
            checkup.notes.append("no response_format shape gave a verdict; leave response_format out")
        else:
            checkup.notes.append("no request gave a reply that parses as a verdict: check the model, the prompt and "
                                 "max_tokens (a reply cut off is not a verdict)")
    return checkup


def _key_refused(url: str, key_env: str | None, result: ShapeResult) -> str:
    """The message for a server that answered HTTP 401 or 403: the key, not the server, is the problem.

    With ``key_env`` ``None`` no key was sent, so the fix is to name one in ``judge.openai.api_key_env``.
    """
    said = f"the server at {url} refused the key ({result.detail})"
    if key_env is None:
        return (f"judge doctor: {said[:-1]}; no key was sent) (fix: set judge.openai.api_key_env to the name of the "
                "environment variable holding the server's key, or pass --api-key-env)")
    return (f"judge doctor: {said} (fix: check the key in the environment variable {key_env} that "
            "judge.openai.api_key_env names: export the key this server accepts)")


def run_checkup(params: OpenAIJudgeParams, prompt: PromptVersion, parallel: int = 4, timeout: float = 120.0,
                log: Callable[[str], None] = lambda line: None) -> Checkup:
    """Check the server ``params`` (:class:`~assay.judge.openai.OpenAIJudgeParams`) names, as the module says.

    Args:
        params: the judge's settings; their ``response_format``, ``retries``, ``concurrency``,
            ``timeout`` and ``cache_path`` are not used (the checkup measures what to set them to).
        prompt: the prompt version the requests are rendered with.
        parallel: requests sent at once to measure the server's parallelism (at least 2).
        timeout: seconds for one request; a request sent with ``parallel`` others gets ``parallel``
            times this.
        log: called with a line before each step (the CLI prints them to stderr).

    Raises:
        CheckupFailed: no request got a completion (server down, wrong URL, every request timed out,
            or the server refused the key with HTTP 401 or 403: the message says so).
        MissingApiKey: ``params.api_key_env`` names an unset variable.
    """
    from assay.judge.openai import _run_sync

    if parallel < 2:
        raise ValueError(f"run_checkup: parallel {parallel} must be at least 2 to measure parallelism")
    return _run_sync(lambda: _checkup(params, prompt, parallel, timeout, log))


def checkup_text(c: Checkup) -> str:
    """The checkup as a person reads it, ending with the suggested ``judge.openai`` lines (YAML)."""
    lines = [f"judge doctor: {c.base_url} model {c.model}"]
    for s in c.shapes:
        status = f"HTTP {s.status_code}" if s.status_code is not None else "no answer"
        lines.append(f"  response_format {s.shape:<11} {status:<9} {s.seconds:7.2f} s  {s.outcome.replace('_', ' ')}: {s.detail}")
    if c.alone_seconds is not None:
        lines.append(f"  one request alone: {c.alone_seconds:.2f} s")
    if c.batch_seconds is not None:
        served = f", about {c.served_at_once} served at once" if c.served_at_once is not None else ""
        first = f" (the first answered in {c.fastest_in_batch_seconds:.2f} s)" if c.fastest_in_batch_seconds is not None else ""
        lines.append(f"  {c.parallel} requests at once: {c.batch_seconds:.2f} s{first}{served}")
    lines += [f"  note: {n}" for n in c.notes]
    lines.append("suggested judge.openai settings:")
    if c.concurrency is not None:
        lines += [f"  concurrency: {c.concurrency}", f"  timeout: {c.timeout}"]
    lines.append(f"  response_format: {c.response_format}" if c.response_format else "  # response_format: (leave it out)")
    return "\n".join(lines)
