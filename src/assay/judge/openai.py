"""A real judge: any OpenAI-compatible chat-completions endpoint (hosted APIs, vLLM, llama.cpp, Ollama).

:class:`OpenAIJudge` renders each item with the versioned prompt (``assay.judge.prompts.render``), posts
the requests concurrently (at most ``concurrency`` in flight, retries with backoff, see
:mod:`assay.judge.http`), keeps every completed response in a persistent cache
(:mod:`assay.judge.cache`), and parses each reply strictly with ``assay.judge.prompts.parse_verdict``.

Every item gets a verdict; none is dropped. A status other than ``ok`` is scored as a tie:

- ``refused``: the endpoint or the model declined. Detected when ``finish_reason`` is
  ``content_filter``, when the message carries a non-empty ``refusal`` field, or when a reply
  that does not parse is a refusal by :func:`is_refusal` (no ``{`` anywhere, and an English
  refusal phrase such as "I can't help with that" or "I'm sorry, but" in its first 300
  characters). Refusals in other languages are counted as ``invalid``: still a tie, only the
  bucket differs.
- ``invalid``: a completion whose text breaks the output contract (or is empty).
- ``failed``: no usable completion after the retries (timeouts, connection errors, 429/5xx to the
  end, any other 4xx, or a 2xx body that is not a chat completion). Failed requests are not cached.

If more than ``max_failed_share`` of a call's items are ``failed``, ``invalid`` or ``refused``, the
call raises :class:`JudgeFailures` instead of returning ties that would quietly become a
calibration. A 401 or 403 from the server says to check the key's environment variable, by name.
A server that refuses the ``response_format`` shape (llama-cpp-python's answers ``json_schema``
with HTTP 500, "Input should be 'text' or 'json_object'") is not retried: the first such answer
stops the call with :class:`ResponseFormatRefused`, one line naming the other shape as the fix.

What the judge said is kept for a report: :meth:`OpenAIJudge.counts` (items, requests, cache hits,
HTTP attempts and one count per status, over every call) and :meth:`OpenAIJudge.invalid_samples`
(a few invalid or refused replies, truncated, secrets redacted). ``response_format`` asks servers
with structured output for a reply that follows :data:`assay.judge.prompts.VERDICT_SCHEMA`.

The API key is read from the environment variable named by ``api_key_env`` at each call and used
only in the ``Authorization`` header. It is never stored on the judge, and it never reaches a
cache key, a cache row, a log line, a verdict reason, an error message, ``repr`` or ``identity``
(every server text is scrubbed of it before it is kept, by :class:`assay.core.redaction.Redactor`: in any
letter case, reversed, in ROT13, in base64 (of the key and of its reverse), hex and URL encodings, spaced
out, and fragments of 6 (text forms) or 8 (encoded forms) characters). Only the parsed fields of a reply
are kept, with the raw body's SHA-256 (:func:`kept_response`), and a reply whose ``model``, ``id`` or
``system_fingerprint`` is no plain name or holds a piece of the key is refused as failed
(:func:`identity_problem`), so the key never becomes the judge's identity in provenance or reports.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import ConfigDict, Field, field_validator

from assay.core.errors import AssayError
from assay.judge.base import (FAILURE_STATUSES, STATUSES, UNUSABLE_REPLY_STATUSES, JSONObject, JudgeIdentity, JudgeItem,
                              Verdict)
from assay.core.redaction import Redactor
from assay.judge.cache import DEFAULT_CACHE_PATH, ResponseCache, request_key
from assay.core.records import InputModel

T = TypeVar("T")

if TYPE_CHECKING:  # pragma: no cover
    from assay.judge.http import Outcome
    from assay.judge.prompts import PromptVersion

AUTH_STATUSES = (401, 403)
# secrets a server might echo besides the key itself: bearer tokens and key-like strings
_SECRET = re.compile(r"(?i)\bbearer\s+[^\s\"',;}]+|\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}"
                     r"|\b(?:api[_-]?key|token|secret|password)(\W{1,3})[^\s\"',;}]{6,}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: What a server's ``model``, ``id`` and ``system_fingerprint`` may look like to be kept (they become the
#: judge's identity in provenance and reports): a short name of letters, digits and ``._:/@+-``.
SAFE_IDENTITY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}")
_HEADER_SAFE = re.compile(r"[\x21-\x7e]+")  # visible ASCII: what an HTTP header value can carry
_REFUSAL = re.compile(
    r"\b(?:i|we)\s*(?:am|'m|’m)?\s*(?:can\s*not|can't|can’t|cannot|won't|won’t|will not|unable to|not able to)"
    r"\s+(?:help|assist|comply|provide|do that|answer|fulfil|fulfill|complete|evaluate|judge|compare|engage)"
    r"|\b(?:i'm|i’m|i am) sorry,? but\b|\bsorry,? (?:but )?i (?:can't|can’t|cannot)\b"
    r"|\bas an ai\b[^.]{0,60}\b(?:can't|can’t|cannot|unable|not able)\b",
    re.IGNORECASE,
)


class JudgeFailures(AssayError):
    """Too many requests of a judge run failed or gave unparseable replies to trust the result."""


class ResponseFormatRefused(AssayError):
    """The server refused the ``response_format`` shape the judge sent; the message names the other shape."""


class MissingApiKey(AssayError):
    """The environment variable named by ``judge.openai.api_key_env`` is unset, empty or not a header value."""


class OpenAIJudgeParams(InputModel):
    """The ``judge`` settings for an OpenAI-compatible endpoint (``kind: openai`` in params.yaml).

    ``base_url`` is the API root including the version path, as the OpenAI SDK takes it
    (``https://api.openai.com/v1``, ``http://127.0.0.1:8000/v1`` for vLLM,
    ``http://127.0.0.1:11434/v1`` for Ollama); ``/chat/completions`` is appended.
    ``api_key_env`` names an environment variable (never the key itself); leave it out for a local
    server without auth. ``cache_path`` ``None`` turns the response cache off. ``response_format``
    (see :func:`response_format_body`) is part of the request body, so changing it misses the cache.
    """

    model_config = ConfigDict(extra="forbid")
    base_url: str = Field(min_length=1)
    model: str = Field(min_length=1)
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(default=256, gt=0)
    timeout: float = Field(default=60.0, gt=0, description="seconds for one attempt")
    concurrency: int = Field(default=8, ge=1, le=1024)
    retries: int = Field(default=4, ge=0, le=20)
    backoff: float = Field(default=0.5, ge=0, description="base seconds of the exponential backoff")
    max_wait: float = Field(default=60.0, gt=0, description="cap on one wait, Retry-After included")
    api_key_env: str | None = None
    max_failed_share: float = Field(default=0.05, ge=0.0, le=1.0)
    cache_path: str | None = DEFAULT_CACHE_PATH
    progress: bool = True
    response_format: Literal["json_schema", "json_object"] | None = Field(
        default=None, description="structured output: json_schema (OpenAI, vLLM, llama.cpp server) or json_object "
                                  "(llama-cpp-python's server); None sends no response_format")

    @field_validator("base_url")
    @classmethod
    def _root_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} must start with http:// or https://")
        if value.endswith("/chat/completions"):
            raise ValueError(f"{value!r} must be the API root; drop '/chat/completions' (it is appended)")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        # the message never repeats the value: a key pasted here by mistake must not be echoed
        if value is not None and not _ENV_NAME.fullmatch(value):
            raise ValueError("must be the NAME of an environment variable (letters, digits, _), "
                             "not the key itself; export the key in that variable")
        return value


@dataclass(frozen=True)
class Completion:
    """The parts of a chat-completion response the judge reads."""

    content: str | None
    finish_reason: str | None
    refusal: str | None
    model: str | None
    response_id: str | None = None  # the server's "id": kept with the reply, as a forger cannot easily make one up
    system_fingerprint: str | None = None  # the server's backend configuration, where it gives one


def response_format_body(kind: str) -> JSONObject:
    """The ``response_format`` request field asking for a reply that follows the verdict schema.

    ``json_schema`` is the OpenAI shape (hosted APIs, vLLM, the llama.cpp server);
    ``json_object`` with a ``schema`` is what llama-cpp-python's server takes (it answers
    ``json_schema`` with a 500).

    >>> response_format_body("json_object")["type"], sorted(response_format_body("json_schema")["json_schema"])
    ('json_object', ['name', 'schema'])
    """
    from assay.judge.prompts import VERDICT_SCHEMA

    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "verdict", "schema": VERDICT_SCHEMA}}
    if kind == "json_object":
        return {"type": "json_object", "schema": VERDICT_SCHEMA}
    raise ValueError(f"response_format {kind!r} is not one of json_schema, json_object")


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with each of ``secrets`` and anything that looks like a key or bearer token replaced by ``***``.

    >>> redact("key sk-abcdefghijkl and Bearer xyz123 and api_key=hunter22 ok")
    'key *** and *** and api_key=*** ok'
    """
    for secret in secrets:
        text = Redactor(secret)(text)  # the secret in any case, encoding or fragment of 8+ characters
    return _SECRET.sub(lambda m: f"{m.group(0)[:m.start(1) - m.start(0)]}{m.group(1)}***" if m.group(1) else "***", text)


def invalid_replies(verdicts: list[Verdict], limit: int = 5, width: int = 300) -> list[JSONObject]:
    """A sample of the replies that were ``invalid`` or ``refused``, for a report a person reads.

    The first ``limit`` distinct replies in ``verdicts`` order, each ``{"status", "reason", "reply",
    "chars"}``: ``reply`` truncated to ``width`` characters (``…`` marks a cut) with secrets
    redacted (:func:`redact`), ``chars`` the length of the reply as kept on the verdict (the judge
    keeps at most 500). Failed requests have no reply and are not sampled. ``[]`` when every reply
    was valid.
    """
    out, seen = [], set()
    for v in verdicts:
        if v.status not in UNUSABLE_REPLY_STATUSES:
            continue
        reply = str(v.extra.get("reply") or "")
        if (v.status, reply) in seen:
            continue
        seen.add((v.status, reply))
        cut = redact(reply[:width]) + ("…" if len(reply) > width else "")
        out.append({"status": v.status, "reason": redact(v.reason or "")[:width], "reply": cut, "chars": len(reply)})
        if len(out) == limit:
            break
    return out


def read_completion(text: str) -> Completion | None:
    """Read a chat-completion body; ``None`` when it is not one (no ``choices[0].message`` object).

    >>> read_completion('{"model": "m", "choices": [{"message": {"content": "x"}, "finish_reason": "stop"}]}')
    Completion(content='x', finish_reason='stop', refusal=None, model='m', response_id=None, system_fingerprint=None)
    >>> read_completion("<html>bad gateway</html>") is None
    True
    """
    try:
        data = json.loads(text)
    except ValueError:
        return None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return None

    def text_or_none(value: object) -> str | None:
        return value if isinstance(value, str) else None

    return Completion(text_or_none(message.get("content")), text_or_none(choices[0].get("finish_reason")),
                      text_or_none(message.get("refusal")), text_or_none(data.get("model")),
                      text_or_none(data.get("id")), text_or_none(data.get("system_fingerprint")))


def identity_problem(completion: Completion, scrub: Redactor) -> str | None:
    """Why the server's ``model``, ``id`` or ``system_fingerprint`` cannot be kept, else ``None``.

    Each must match :data:`SAFE_IDENTITY` and hold no form of the key :class:`Redactor` knows (a
    6-character piece of the key, its reverse or its ROT13 is enough): a server that plays the key
    back as its model name would otherwise write it into provenance and calibration.md. The value
    itself is never repeated.

    >>> c = Completion("x", "stop", None, "sk-Abcdef0123456789")
    >>> identity_problem(c, Redactor("sk-Abcdef0123456789")), identity_problem(c, Redactor(None))
    ("the server's model holds a piece of the API key", None)
    >>> identity_problem(Completion("x", "stop", None, "gpt 4<script>"), Redactor(None))
    "the server's model is not a plain name (1 to 128 letters, digits and ._:/@+-)"
    """
    for field, value in (("model", completion.model), ("id", completion.response_id),
                         ("system_fingerprint", completion.system_fingerprint)):
        if value is None:
            continue
        if not SAFE_IDENTITY.fullmatch(value):
            return f"the server's {field} is not a plain name (1 to 128 letters, digits and ._:/@+-)"
        if scrub.holds(value):
            return f"the server's {field} holds a piece of the API key"
    return None


def kept_response(completion: Completion, raw: str) -> str:
    """What the response cache keeps of a reply: only the fields :func:`read_completion` parses, and the raw body's SHA-256.

    Whatever else a server put in its body (echoed headers, usage, its own debugging fields) is not
    stored; :func:`read_completion` reads the kept text as it read the reply.

    >>> c = read_completion(kept_response(Completion("x", "stop", None, "m", "id-1"), "{...}"))
    >>> c.content, c.model, c.response_id
    ('x', 'm', 'id-1')
    """
    import hashlib

    return json.dumps({"id": completion.response_id, "model": completion.model,
                       "system_fingerprint": completion.system_fingerprint,
                       "choices": [{"message": {"content": completion.content, "refusal": completion.refusal},
                                    "finish_reason": completion.finish_reason}],
                       "raw_sha256": hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()},
                      sort_keys=True, ensure_ascii=False)


def is_refusal(text: str) -> bool:
    """Whether a reply that broke the output contract is a refusal rather than a malformed verdict.

    The rule: the reply contains no ``{`` (it did not even try to write the JSON verdict) and an
    English refusal phrase appears in its first 300 characters. Only call it on replies that did
    not parse; a valid verdict is never a refusal.

    >>> is_refusal("I'm sorry, but I can't help with that."), is_refusal("I cannot compare these answers.")
    (True, True)
    >>> is_refusal('{"winner": "first"'), is_refusal("The second one is better.")
    (False, False)
    """
    return "{" not in text and _REFUSAL.search(text[:300]) is not None


def classify(completion: Completion, parse_verdict: Callable[[str], Verdict]) -> Verdict:
    """The verdict for one completion: ``refused``, ``ok`` or ``invalid`` as the module describes.

    ``parse_verdict`` is ``assay.judge.prompts.parse_verdict`` (a ``ValueError`` it raises counts as
    ``invalid``). ``extra`` carries ``finish_reason`` and the server-reported ``model_version``.
    """
    extra = {"finish_reason": completion.finish_reason, "model_version": completion.model}
    if completion.finish_reason == "content_filter":
        return Verdict("tie", "refused", "endpoint content filter (finish_reason content_filter)",
                       {**extra, "reply": (completion.content or "")[:500]})
    if completion.refusal:
        return Verdict("tie", "refused", f"model refused: {completion.refusal[:200]}",
                       {**extra, "reply": completion.refusal[:500]})
    content = completion.content or ""
    if not content.strip():
        return Verdict("tie", "invalid", f"empty reply (finish_reason {completion.finish_reason})", extra)
    try:
        parsed = parse_verdict(content)
    except ValueError as error:
        parsed = Verdict("tie", "invalid", str(error))
    if parsed.status == "ok":
        return Verdict(parsed.winner, "ok", parsed.reason, {**parsed.extra, **extra})
    if is_refusal(content):
        return Verdict("tie", "refused", f"model refused: {content[:200]}", {**extra, "reply": content[:500]})
    reason = parsed.reason or "reply does not follow the output contract"
    if completion.finish_reason == "length":
        reason += " (reply cut off at max_tokens)"
    return Verdict("tie", "invalid", reason, {**parsed.extra, **extra})


def _run_sync(coro_factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion from sync code, also when called inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:  # e.g. inside Jupyter
        return pool.submit(lambda: asyncio.run(coro_factory())).result()


class OpenAIJudge:
    """A pairwise judge behind an OpenAI-compatible ``/chat/completions`` endpoint.

    Args:
        params: endpoint, model and run settings.
        progress: overrides ``params.progress`` (the bar is shown only when stderr is a TTY).
        require_key: check the key variable now; ``False`` builds a judge only to read its
            ``identity`` (:meth:`judge_many` still checks the key before sending anything).

    Raises:
        MissingApiKey: ``require_key`` and ``params.api_key_env`` is set but that variable is unset or empty.

    Attributes:
        last_counts: after each :meth:`judge_many`, scalar counts for the calibration record:
            ``items``, ``requests`` (distinct request bodies), ``cached`` (served from the cache),
            ``sent`` (HTTP attempts, retries included), and one count per status.
        totals: the same counts summed over every call on this judge (see :meth:`counts`).
    """

    def __init__(self, params: OpenAIJudgeParams, *, progress: bool | None = None, require_key: bool = True):
        self.params = params
        self.progress = params.progress if progress is None else progress
        self._models: set[str] = set()
        self.last_counts: dict[str, int] = {}
        self.totals: Counter = Counter()
        self._bad_replies: list[Verdict] = []
        if require_key:  # fail before any work when the key is missing
            self._api_key()

    @property
    def url(self) -> str:
        """The chat-completions URL requests go to."""
        return f"{self.params.base_url}/chat/completions"

    @property
    def identity(self) -> JudgeIdentity:
        """Provider, endpoint, model, temperature and the model the server reported (``None`` before any reply).

        When replies named several models (a load balancer in front of two versions), they are
        listed sorted, joined by ``", "``.
        """
        return {
            "provider": "openai-compatible",
            "base_url": self.params.base_url,
            "model": self.params.model,
            "model_version": ", ".join(sorted(self._models)) or None,
            "temperature": self.params.temperature,
        }

    def __repr__(self) -> str:
        return f"OpenAIJudge(base_url={self.params.base_url!r}, model={self.params.model!r})"

    def _api_key(self) -> str | None:
        name = self.params.api_key_env
        if name is None:
            return None
        key = os.environ.get(name, "").strip()
        if not key:
            raise MissingApiKey(f"OpenAIJudge: environment variable {name} (judge.openai.api_key_env) is unset or empty "
                                f"(fix: export {name}=<your key>, or remove api_key_env for a server without auth)")
        if not _HEADER_SAFE.fullmatch(key):
            raise MissingApiKey(f"OpenAIJudge: environment variable {name} holds characters an HTTP header cannot "
                                "carry (spaces, quotes, non-ASCII) (fix: export the bare key)")
        return key

    def counts(self) -> dict[str, int]:
        """Request counts over every :meth:`judge_many` call on this judge, for the judge's record.

        ``items`` judged; ``requests``: distinct request bodies; ``cache_hits``: of those, served
        from the response cache; ``http_attempts``: HTTP requests sent, retries included;
        ``failures``: requests with no usable completion after the retries; then one count per
        verdict status (``ok``, ``invalid``, ``refused``, ``failed``, counted per item). All 0
        before the first call.
        """
        t = self.totals
        return {"items": t["items"], "requests": t["requests"], "cache_hits": t["cached"], "http_attempts": t["sent"],
                "failures": t["failed_requests"], **{s: t[s] for s in STATUSES}}

    def invalid_samples(self, limit: int = 5, width: int = 300) -> list[JSONObject]:
        """A sample of the invalid or refused replies seen so far (see :func:`invalid_replies`); never the key."""
        return invalid_replies(self._bad_replies, limit, width)

    def request_body(self, item: JudgeItem, prompt: PromptVersion) -> JSONObject:
        """The exact JSON body sent for ``item`` (and hashed into its cache key); no secret in it.

        ``response_format`` is included only when ``params.response_format`` is set, so bodies (and
        cache keys) without it are unchanged.
        """
        from assay.judge.prompts import render

        body = {
            "model": self.params.model,
            "messages": render(prompt, item.question, item.first, item.second),
            "temperature": self.params.temperature,
            "max_tokens": self.params.max_tokens,
        }
        if self.params.response_format is not None:
            body["response_format"] = response_format_body(self.params.response_format)
        return body

    def _failure_reason(self, outcome: Outcome) -> str:
        """The reason of a failed request; a rejected key names the variable to check (never its value)."""
        reason = outcome.error or "no completion"
        if outcome.status_code not in AUTH_STATUSES:
            return reason
        name = self.params.api_key_env
        if name is None:
            return (f"{reason} (fix: the server wants an API key: export it in an environment variable and name that "
                    "variable in judge.openai.api_key_env)")
        return (f"{reason} (fix: the server rejected the key: check the key in environment variable {name} "
                "(judge.openai.api_key_env) and that it may use this model)")

    def judge_many(self, items: list[JudgeItem], prompt: PromptVersion) -> list[Verdict]:
        """Verdicts for ``items`` in order; requests not in the cache go to the endpoint concurrently.

        Identical request bodies are sent once. An empty ``items`` returns ``[]`` without a request.
        Each verdict's ``extra`` adds ``cached`` and ``reply`` (the completion's text, ``None`` for a
        failed request; the judge stage stores it, truncated, in the replies file).
        Completed responses are committed to the cache as they arrive, so an interrupted call loses
        none of them.

        Raises:
            JudgeFailures: more than ``max_failed_share`` of the items are ``failed``, ``invalid`` or
                ``refused``; the message gives the counts and the most common reasons (a rejected
                key names its environment variable).
            MissingApiKey: the key variable is unset or empty.
        """
        from assay.judge.prompts import parse_verdict

        if not items:
            self.last_counts = {"items": 0, "requests": 0, "cached": 0, "sent": 0, **dict.fromkeys(STATUSES, 0)}
            return []
        key = self._api_key()
        bodies = [self.request_body(item, prompt) for item in items]
        keys = [request_key(self.url, self.params.model, body) for body in bodies]
        unique = dict(zip(keys, bodies, strict=True))
        cache = ResponseCache(self.params.cache_path) if self.params.cache_path else None
        try:
            texts: dict[str, str] = {}
            if cache is not None:
                scrub = Redactor(key)
                for k in unique:
                    hit = cache.get(k)
                    if hit is not None:  # scrubbed again: a row kept before the key changed form or by an older assay
                        texts[k] = scrub(hit.response)
            n_cached = len(texts)
            todo = [(k, b) for k, b in unique.items() if k not in texts]
            outcomes = _run_sync(lambda: self._fetch(todo, cache, key)) if todo else {}
        finally:
            if cache is not None:
                cache.close()
        failures = {k: o for k, o in outcomes.items() if o.text is None}
        vet = Redactor(key)
        texts.update({k: o.text for k, o in outcomes.items() if o.text is not None})
        by_key: dict[str, Verdict] = {}
        for k in unique:
            if k in failures:
                by_key[k] = Verdict("tie", "failed", self._failure_reason(failures[k]))
                continue
            completion = read_completion(texts[k])
            if completion is None:  # a cache row written by something else; not a chat completion
                by_key[k] = Verdict("tie", "failed", "cached response is not a chat completion")
                continue
            if (problem := identity_problem(completion, vet)) is not None:  # a row kept by an older assay
                by_key[k] = Verdict("tie", "failed", problem)
                continue
            if completion.model:
                self._models.add(completion.model)
            verdict = classify(completion, parse_verdict)
            by_key[k] = Verdict(verdict.winner, verdict.status, verdict.reason,
                                {**verdict.extra, "cached": k not in outcomes, "reply": completion.content,
                                 "response_id": completion.response_id,
                                 "system_fingerprint": completion.system_fingerprint})
        verdicts = [by_key[k] for k in keys]
        statuses = Counter(v.status for v in verdicts)
        self.last_counts = {"items": len(items), "requests": len(unique), "cached": n_cached,
                            "sent": sum(o.attempts for o in outcomes.values()),
                            **{s: statuses.get(s, 0) for s in STATUSES}}
        self.totals.update({**self.last_counts, "failed_requests": len(failures)})
        self._bad_replies += [by_key[k] for k in unique if by_key[k].status in UNUSABLE_REPLY_STATUSES]
        self._check_failures(verdicts)
        return verdicts

    def _format_refused(self, outcome: Outcome) -> ResponseFormatRefused:
        """The one-line error for a server that refused ``params.response_format`` (``outcome.permanent``)."""
        sent = self.params.response_format
        other = "json_object" if sent == "json_schema" else "json_schema"
        server = " (llama-cpp-python's server takes only json_object)" if other == "json_object" else ""
        said = " ".join((outcome.error or "").split())
        return ResponseFormatRefused(
            f"OpenAIJudge: the server at {self.url} does not accept response_format {sent}: {said} "
            f"(fix: set `response_format: {other}` in the judge params (judge.openai.response_format){server}, "
            "or leave response_format out to send none)")

    def _check_failures(self, verdicts: list[Verdict]) -> None:
        bad = [v for v in verdicts if v.status in FAILURE_STATUSES]  # what max_failed_share counts
        share = len(bad) / len(verdicts)
        if share <= self.params.max_failed_share:
            return
        reasons = Counter(f"{v.status}: {v.reason}" for v in bad).most_common(3)
        shown = "; ".join(f"{n} x {r}" for r, n in reasons)
        counts = ", ".join(f"{s} {self.last_counts[s]}" for s in STATUSES)
        raise JudgeFailures(
            f"OpenAIJudge.judge_many: {len(bad)} of {len(verdicts)} items ({share:.1%}) failed, gave unparseable "
            f"replies or were refused, more than judge.openai.max_failed_share {self.params.max_failed_share} ({counts}) at {self.url} "
            f"model {self.params.model}. Most common: {shown} (fix: check the endpoint, model and prompt; failed "
            "requests are retried on the next run, completed ones come from the cache)"
        )

    async def _fetch(self, todo: list[tuple[str, JSONObject]], cache: ResponseCache | None,
                     key: str | None) -> dict[str, Outcome]:
        """Send ``todo`` concurrently; commit each completion to ``cache`` as it arrives."""
        from tqdm import tqdm

        from assay.judge.http import ClientPool, Outcome, env_proxy, post_json, refuses_response_format

        p = self.params

        scrub = Redactor(key)  # the key in any case, base64/hex/URL form, spaced out, or a fragment of 8+

        headers = {"Authorization": f"Bearer {key}"} if key else {}
        results: dict[str, Outcome] = {}
        show = self.progress and len(todo) > 1 and sys.stderr.isatty()
        permanent = refuses_response_format if p.response_format is not None else None
        with tqdm(total=len(todo), desc=f"judge {p.model}", unit="req", file=sys.stderr, disable=not show) as bar:
            async with ClientPool(p.concurrency, headers, p.timeout, proxy=env_proxy(self.url)) as pool:

                async def one(k: str, body: JSONObject) -> None:
                    out = await post_json(pool, self.url, body, timeout=p.timeout, retries=p.retries,
                                          backoff=p.backoff, max_wait=p.max_wait, scrub=scrub, permanent=permanent)
                    if out.permanent:  # the same answer for every request: stop them all, say it once
                        pool.stop()  # before any await: no request waiting for a slot is sent after this
                        raise self._format_refused(out)
                    if (text := out.text) is not None:
                        completion = read_completion(text)
                        problem = None if completion is None else identity_problem(completion, scrub)
                        if completion is None:
                            out = Outcome(out.status_code, None, f"HTTP {out.status_code}: response is not a chat "
                                          f"completion: {text[:200]!r}", out.attempts)
                        elif problem is not None:
                            out = Outcome(out.status_code, None, f"HTTP {out.status_code}: {problem}", out.attempts)
                        else:
                            out = Outcome(out.status_code, kept_response(completion, text), None, out.attempts)
                            if cache is not None:
                                cache.put(k, out.text or "", completion.model)
                    results[k] = out
                    bar.update(1)

                try:
                    async with asyncio.TaskGroup() as group:  # the first refusal cancels the rest
                        for k, b in todo:
                            group.create_task(one(k, b))
                except BaseExceptionGroup as group:  # raise as gather did: one exception, a refusal first
                    refused = [e for e in group.exceptions if isinstance(e, ResponseFormatRefused)]
                    raise (refused[0] if refused else group.exceptions[0]) from None
        return results
