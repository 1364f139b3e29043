"""A system behind HTTP (``system: http``): each case POSTed to the team's endpoint.

The transport is the judge's (:func:`assay.judge.http.post_json` over a
:class:`~assay.judge.http.ClientPool`): ``concurrency`` requests in flight, ``timeout_s`` per
attempt, ``retries`` more attempts after HTTP 429, any 5xx, a connection error or a timeout
(``Retry-After`` honoured, else exponential backoff with jitter), no redirects followed, the key
sent only in the ``Authorization: Bearer`` header and scrubbed from every text kept
(:class:`assay.core.redaction.Redactor`). Replies are stored and replayed like a callable's
(:mod:`assay.rag.called`), so a replay (``assay verify``) needs neither the endpoint nor the key.

Two shapes (``shape:`` in the version):

``assay`` (default). Request body::

    {"case_id": "t1", "question": "...", "lang": "en", "k": 3, "permissions": [],
     "settings": {...the version's settings...}, "tools": [...OpenAI tools shape, only with a catalogue...]}

With ``repeats`` above 1 the body of the second and later runs of a case also holds ``"repeat": i``
(the run's index; absent means run 0).

Reply body: a JSON object with ``answer``, ``citations``, ``abstained`` and optionally
``retrieved``, ``latency_ms`` and ``tool_calls`` (what a callable's dict may hold; any other key is
refused naming the closest known one). A body that is not a JSON object is kept as the reply text
and scored as such (``format_ok`` false unless it is the contract's JSON).

``openai``: an OpenAI-compatible chat-completions endpoint (``url`` ending ``/chat/completions``).
Request body: ``{"model": model, "messages": [{"role": "user", "content": question}], "tools":
[...only with a catalogue...], **settings}`` (so ``settings`` carries ``temperature``,
``max_tokens`` and the like). Reply: the first
choice's ``message.content`` is the reply text (parsed against the contract), its
``message.tool_calls`` the calls made; retrieval and latency are unknown.

A request that still fails after its retries fails the case (see ``max_failed_share``); a 2xx
body that is not what the shape says is a failed case too, naming the problem.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any

from assay.core.plugins import PluginError
from assay.core.redaction import Redactor
from assay.data.corpus import Document
from assay.data.tools import ToolCatalogue
from assay.rag.called import CalledSystem, dict_output
from assay.rag.calls import CallFailed, CallPolicy
from assay.rag.systems import SystemOutput, SystemRequest
from assay.rag.tool_calls import parse_tool_calls

#: Base delay and cap of the waits between attempts (seconds), as the judge's defaults.
BACKOFF_S, MAX_WAIT_S = 0.5, 30.0


class MissingSystemKey(PluginError):
    """The environment variable a version's ``api_key_env`` names is unset or empty."""


class HttpSystem(CalledSystem):
    """The team's system at ``url``, asked one case per POST (see the module docstring for the shapes)."""

    def __init__(self, url: str, corpus: Mapping[str, Document], param: str = "url",
                 tools: ToolCatalogue | None = None, shape: str = "assay", model: str | None = None,
                 api_key_env: str | None = None, settings: Mapping[str, Any] | None = None,
                 policy: CallPolicy | None = None, max_failed_share: float = 0.0):
        self.url, self.param, self.corpus, self.label = url, param, corpus, f"POST {url}"
        self.tools = () if tools is None else tuple(tools.tools)
        self.shape, self.model, self.api_key_env = shape, model, api_key_env
        self.settings = dict(settings or {})
        given = policy or CallPolicy()
        self.timeout_s, self.retries = given.timeout_s, given.retries
        # post_json retries; call_all only caps the whole case (every attempt and wait) and bounds the tasks
        cap = given.timeout_s * (given.retries + 1) + MAX_WAIT_S * given.retries + 5.0
        self.policy = CallPolicy(concurrency=given.concurrency, timeout_s=cap, retries=0)
        self.max_failed_share = max_failed_share
        self._pool: Any = None
        self._scrub: Callable[[str], str] = lambda text: text

    def _key(self) -> str | None:
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env, "")
        if not key.strip():
            version = self.param.rsplit(".", 1)[0]
            raise MissingSystemKey(f"{version}.api_key_env: environment variable {self.api_key_env} is unset or empty "
                                   f"(fix: export {self.api_key_env}=<the key your endpoint takes>, or remove "
                                   "api_key_env for an endpoint without auth)")
        return key

    def opened(self) -> AbstractAsyncContextManager[Any]:
        """The client pool, opened in the event loop the calls run on (the key is read here, only when asking)."""
        return self._opened()

    @contextlib.asynccontextmanager
    async def _opened(self) -> AsyncIterator[None]:
        """The client pool, opened in the event loop the calls run on (the key is read here, only when asking)."""
        from assay.judge.http import ClientPool, env_proxy

        key = self._key()
        self._scrub = Redactor(key) if key else (lambda text: text)
        headers = {"authorization": f"Bearer {key}"} if key else {}
        async with ClientPool(self.policy.concurrency, headers, self.timeout_s, proxy=env_proxy(self.url)) as pool:
            self._pool = pool
            try:
                yield
            finally:
                self._pool = None

    def body(self, request: SystemRequest) -> dict[str, Any]:
        """The JSON body POSTed for one case, in the version's shape."""
        tools = {"tools": request.openai_tools()} if request.tools else {}
        if self.shape == "openai":
            return {**dict(request.settings), "model": self.model,
                    "messages": [{"role": "user", "content": request.question}], **tools}
        return {**request.shown(), "settings": dict(request.settings), **tools}

    async def post(self, request: SystemRequest) -> str:
        """POST one case; the 2xx body text, or :class:`CallFailed` naming the last failure."""
        from assay.judge.http import post_json

        outcome = await post_json(self._pool, self.url, self.body(request), timeout=self.timeout_s,
                                  retries=self.retries, backoff=BACKOFF_S, max_wait=MAX_WAIT_S, scrub=self._scrub)
        if outcome.text is None:
            raise CallFailed(f"{self.label}: {outcome.error}")
        return outcome.text

    def target(self) -> Callable[[SystemRequest], Any]:
        """:meth:`post`, awaited with the pool :meth:`opened` gives."""
        return self.post

    def output(self, case_id: str, value: object) -> SystemOutput:
        """The reply body as an output (see the module docstring for each shape)."""
        text = str(value)
        where = self.where(case_id)
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        if self.shape == "assay":
            return dict_output(where, case_id, data) if isinstance(data, dict) else SystemOutput(case_id, text, None, None)
        try:
            message = data["choices"][0]["message"]
            content = message.get("content") or ""
            calls = parse_tool_calls(message.get("tool_calls") or None)
        except (TypeError, KeyError, IndexError, AttributeError, ValueError) as error:
            return SystemOutput(case_id, "", None, None,
                                error=f"{self.label}: the body is not a chat completion ({type(error).__name__}: "
                                      f"{error}): {text[:200]!r}")
        return SystemOutput(case_id, str(content), None, None, tool_calls=calls)
