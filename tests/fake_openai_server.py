"""A real HTTP server on 127.0.0.1 that answers ``POST /v1/chat/completions`` like the API, for tests.

Each request's behaviour is chosen, in this order, by

1. the scripted queue (``server.script("429:1", "good")``: the next requests take these, in arrival
   order; use it only with one request in flight, since concurrent arrival order is luck);
2. per-item faults (``server.fault("500", attempts=1, where=lambda content: ...)``): the first
   ``attempts`` requests *for one item* (the same message contents) that ``where`` selects get the
   behaviour, whatever order requests arrive in, so a concurrent run with retries is deterministic;
3. a marker ``[[fake:NAME]]`` anywhere in the request's message contents;
4. otherwise ``good``.

Behaviours: ``good`` (a JSON verdict), ``malformed`` (truncated JSON), ``notjson`` (prose),
``refuse`` (an "I'm sorry, but I can't help with that." reply), ``refusal_field`` (the message's
``refusal`` field set), ``content_filter`` (``finish_reason`` content_filter), ``empty`` (empty
content), ``length`` (truncated JSON with ``finish_reason`` length), ``429`` / ``429:SECONDS``
(rate limited, with ``Retry-After: SECONDS`` when given), ``500``, ``400``, ``401``, ``403``,
``slow`` (a good reply after ``slow_seconds``), ``echo_auth`` (401 whose body repeats the
Authorization header), ``echo_auth_ok`` (a good verdict whose reason repeats the Authorization
header), ``echo_auth_bad`` (prose, not a verdict, that repeats the Authorization header) and
``notcompletion`` (200 with a body that is not a chat completion), ``echo_forms`` (prose that repeats
the key in altered forms: see :func:`key_forms`) and ``echo_forms_ok`` (a good verdict whose reason does).

The ``good`` winner is deterministic from the content: ``[[winner:first|second|tie]]`` if present;
else if both ``[[best]]`` and ``[[plain]]`` occur, the answer holding ``[[best]]`` (``first`` when it
comes earlier in the text) and the opposite when ``[[flip]]`` occurs (a prompt wording that misleads
the judge); else a hash of the content picks first, second or tie.

A server built with ``response_formats`` (the ``response_format`` types it takes, ``"text"`` standing
for none) answers any other type with HTTP 500 and pydantic's complaint, as llama-cpp-python's
server does for ``json_schema`` (``response_formats=("text", "json_object")``). A server built with
``parallel=N`` works on at most N requests at once (the others queue, as llama.cpp with one slot).

Every reply waits ``latency`` seconds first. The server counts requests, keeps each body and
Authorization header, and tracks the most requests in flight at once
(``max_in_flight``) and the most worked on at once (``max_serving``, at most ``parallel``). ``python
tests/fake_openai_server.py --latency 0.02`` runs it in its own process (see :func:`main`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter, deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BEHAVIOURS = ("good", "malformed", "notjson", "refuse", "refusal_field", "content_filter", "empty", "length",
              "429", "500", "400", "401", "403", "slow", "echo_auth", "echo_auth_ok", "echo_auth_bad", "notcompletion",
              "echo_forms", "echo_forms_ok")


def key_forms(key: str) -> dict[str, str]:
    """The altered echoes of an API key the red team found committed (issue 22), by name."""
    import base64
    import urllib.parse

    return {"base64": base64.b64encode(key.encode()).decode(), "base64 in a header": base64.b64encode(
                f"Authorization: Bearer {key}".encode()).decode(),
            "urlsafe base64": base64.urlsafe_b64encode(key.encode()).decode(), "hex": key.encode().hex(),
            "HEX": key.encode().hex().upper(), "url": urllib.parse.quote(f"?k={key}&x=1", safe=""),
            "percent every byte": "".join(f"%{b:02x}" for b in key.encode()), "spaced": " ".join(key),
            "dashed": "-".join(key), "lower": key.lower(), "upper": key.upper(), "fragment 20": key[5:25],
            "last 8": key[-8:], "first 8": key[:8]}


def _winner(content: str) -> str:
    for choice in ("first", "second", "tie"):
        if f"[[winner:{choice}]]" in content:
            return choice
    best, plain = content.find("[[best]]"), content.find("[[plain]]")
    if best >= 0 and plain >= 0:
        first_is_best = best < plain
        if "[[flip]]" in content:
            first_is_best = not first_is_best
        return "first" if first_is_best else "second"
    return ("first", "second", "tie")[hashlib.sha256(content.encode()).digest()[0] % 3]


class FakeOpenAIServer:
    """The server; use as a context manager or call :meth:`start` and :meth:`stop`.

    Args:
        latency: seconds every reply waits before it is sent.
        slow_seconds: how long a ``slow`` reply waits.
        model: the ``model`` field every completion reports.
    """

    def __init__(self, latency: float = 0.0, slow_seconds: float = 2.0, model: str = "fake-judge-2026-01",
                 response_formats: tuple[str, ...] | None = None, parallel: int | None = None):
        self.response_formats = response_formats
        self._parallel = threading.BoundedSemaphore(parallel) if parallel else None
        self.latency = latency
        self.slow_seconds = slow_seconds
        self.model = model
        self._lock = threading.Lock()
        self._queue: deque[str] = deque()
        self._faults: list[tuple[str, int | None, Callable[[str], bool]]] = []
        self._stopping = threading.Event()
        self.reset()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- control -------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget counts, bodies and headers (not the script)."""
        with self._lock:
            self.requests = 0
            self.in_flight = 0
            self.max_in_flight = 0
            self.serving = 0  # requests being worked on (past the ``parallel`` queue)
            self.max_serving = 0
            self.behaviours: Counter = Counter()
            self.bodies: list[dict] = []
            self.auth_headers: list[str | None] = []
            self.attempts: Counter = Counter()  # requests seen per item (message contents)

    def script(self, *behaviours: str) -> None:
        """Queue behaviours for the next requests, in order (before markers are looked at)."""
        with self._lock:
            self._queue.extend(behaviours)

    def fault(self, behaviour: str, attempts: int | None = 1, where: Callable[[str], bool] = lambda content: True) -> None:
        """Give ``behaviour`` to the first ``attempts`` requests of every item ``where`` selects (``None``: all of them).

        An item is identified by its message contents, so the n-th request for an item gets the
        same behaviour however requests interleave. ``where`` receives the joined message contents.
        Faults are checked in the order they were added, after the scripted queue.
        """
        with self._lock:
            self._faults.append((behaviour, attempts, where))

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        server = self

        class Handler(_Handler):
            fake = server

        self._stopping.clear()
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        httpd.daemon_threads = True
        httpd.request_queue_size = 256  # the default backlog of 5 drops bursts of connections
        httpd.server_bind()
        httpd.server_activate()
        httpd.handle_error = lambda request, address: None  # a client that timed out is not news
        self._httpd = httpd
        self.port = httpd.server_address[1]
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- serving -------------------------------------------------------------------------
    def _choose(self, content: str) -> str:
        with self._lock:
            self.attempts[content] += 1
            attempt = self.attempts[content]
            if self._queue:
                return self._queue.popleft()
            faults = list(self._faults)
        for behaviour, attempts, where in faults:
            if (attempts is None or attempt <= attempts) and where(content):
                return behaviour
        for name in BEHAVIOURS:
            if f"[[fake:{name}]]" in content:
                return name
        return "good"

    def _completion(self, content: str | None, finish: str = "stop", refusal: str | None = None) -> dict:
        message = {"role": "assistant", "content": content}
        if refusal is not None:
            message["refusal"] = refusal
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": self.model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    def respond(self, body: dict, auth: str | None) -> tuple[int, dict[str, str], str]:
        """Status, headers and body text for one request (after the latency wait)."""
        content = "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if isinstance(m, dict))
        shape = (body.get("response_format") or {}).get("type", "text")
        if self.response_formats is not None and shape not in self.response_formats:
            with self._lock:
                self.behaviours["format_refused"] += 1
            allowed = " or ".join(repr(f) for f in self.response_formats)
            return 500, {}, json.dumps({"error": {"message": (
                "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should be "
                f"{allowed} [type=literal_error, input_value={shape!r}, input_type=str]"), "type": "internal_server_error"}})
        if self._parallel is None:
            return self._serve(body, auth, content)
        with self._parallel:
            return self._serve(body, auth, content)

    def _serve(self, body: dict, auth: str | None, content: str) -> tuple[int, dict[str, str], str]:
        with self._lock:
            self.serving += 1
            self.max_serving = max(self.max_serving, self.serving)
        try:
            return self._respond(body, auth, content)
        finally:
            with self._lock:
                self.serving -= 1

    def _respond(self, body: dict, auth: str | None, content: str) -> tuple[int, dict[str, str], str]:
        behaviour = self._choose(content)
        with self._lock:
            self.behaviours[behaviour.split(":")[0]] += 1
        self._stopping.wait(self.slow_seconds if behaviour == "slow" else self.latency)
        kind, _, arg = behaviour.partition(":")
        failure = self._failure(kind, arg, auth)
        if failure is not None:
            return failure
        reply = self._reply(kind, {"winner": _winner(content), "reason": "deterministic fake verdict"}, auth)
        if reply is None:
            raise ValueError(f"unknown fake behaviour {behaviour!r}; use one of {', '.join(BEHAVIOURS)}")
        return 200, {}, json.dumps(reply)

    @staticmethod
    def _failure(kind: str, arg: str, auth: str | None) -> tuple[int, dict[str, str], str] | None:
        """The status, headers and body of a behaviour that is not a chat completion; ``None`` for the others."""
        error = {"error": {"message": f"fake {kind}", "type": "fake", "code": kind}}
        if kind == "notcompletion":
            return 200, {}, "<html>proxy says hello</html>"
        if kind == "echo_auth":
            return 401, {}, json.dumps({"error": {"message": f"Incorrect API key provided: {auth}"}})
        if kind == "429":
            return 429, ({"Retry-After": arg} if arg else {}), json.dumps(error)
        if kind in ("500", "400", "401", "403"):
            return int(kind), {}, json.dumps(error)
        return None

    def _reply(self, kind: str, verdict: dict, auth: str | None) -> dict | None:
        """The chat completion a behaviour answers with; ``None`` for an unknown behaviour."""
        if kind in ("good", "slow"):
            reply = self._completion(json.dumps(verdict))
        elif kind == "malformed":
            reply = self._completion('{"winner": "first", "reason": ')
        elif kind == "notjson":
            reply = self._completion("The first answer is better because it cites a source.")
        elif kind == "refuse":
            reply = self._completion("I'm sorry, but I can't help with that.")
        elif kind == "refusal_field":
            reply = self._completion(None, refusal="I cannot evaluate this content.")
        elif kind == "content_filter":
            reply = self._completion("", finish="content_filter")
        elif kind == "empty":
            reply = self._completion("")
        elif kind == "length":
            reply = self._completion('{"winner": "sec', finish="length")
        elif kind == "echo_auth_bad":
            reply = self._completion(f"You sent {auth}. I think the first is better.")
        elif kind == "echo_auth_ok":
            reply = self._completion(json.dumps({**verdict, "reason": f"you sent {auth}"}))
        elif kind in ("echo_forms", "echo_forms_ok"):
            key = (auth or "").removeprefix("Bearer ")
            echoed = " | ".join(key_forms(key).values())
            reply = self._completion(f"Your key: {echoed}. The first is better." if kind == "echo_forms" else
                                     json.dumps({**verdict, "reason": f"key forms {echoed}"}))
        else:
            return None
        return reply


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    # one send per reply and no Nagle: headers and body in separate small packets would wait on the
    # client's delayed ACK (about 40 ms each), which would measure TCP, not the judge
    wbufsize = -1
    disable_nagle_algorithm = True
    fake: FakeOpenAIServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        return None

    def _send(self, status: int, headers: dict[str, str], text: str) -> None:
        data = text.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json" if text.startswith("{") else "text/html")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self.path != "/stats":
            self._send(404, {}, json.dumps({"error": {"message": f"no route {self.path}"}}))
            return
        fake = self.fake
        with fake._lock:
            stats = {"requests": fake.requests, "max_in_flight": fake.max_in_flight}
        self._send(200, {}, json.dumps(stats))

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/reset":
            self.fake.reset()
            self._send(200, {}, "{}")
            return
        if self.path != "/v1/chat/completions":
            self._send(404, {}, json.dumps({"error": {"message": f"no route {self.path}"}}))
            return
        fake = self.fake
        body = json.loads(raw)
        auth = self.headers.get("Authorization")
        with fake._lock:
            fake.requests += 1
            fake.in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
            fake.bodies.append(body)
            fake.auth_headers.append(auth)
        try:
            status, headers, text = fake.respond(body, auth)
        finally:
            with fake._lock:  # before the reply is written, so a client never sees a stale count
                fake.in_flight -= 1
        self._send(status, headers, text)


def make_prompt(folder, version: int, rubric: str = "Compare the two answers.", name: str = "pairwise"):
    """Write ``<folder>/<name>_v<version>.md`` in the prompt file format and load it (a real PromptVersion).

    ``rubric`` goes first in the system section (put ``[[flip]]`` there for a misleading wording).
    """
    from assay.judge.prompts import load_prompt

    text = (f"# {name} v{version}\n\n## system\n{rubric}\n1. correctness: every fact right\n"
            "2. evidence: cites a source\nReply with JSON {\"winner\": \"first\"|\"second\"|\"tie\", \"reason\": \"...\"}.\n\n"
            "## user\nQuestion: {{question}}\n<<<ANSWER_1\n{{first}}\nANSWER_1>>>\n<<<ANSWER_2\n{{second}}\nANSWER_2>>>\n")
    path = Path(folder) / f"{name}_v{version}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return load_prompt(path)


def main(argv: list[str] | None = None) -> None:
    """Run the server in its own process (for benchmarks): prints its base URL, serves until killed.

    ``GET /stats`` returns the request count and peak in-flight; ``POST /reset`` clears them.
    """
    import argparse
    import signal

    parser = argparse.ArgumentParser(description="fake OpenAI-compatible chat-completions server")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds every reply waits")
    args = parser.parse_args(argv)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})  # threads inherit the mask
    server = FakeOpenAIServer(latency=args.latency).start()
    print(server.base_url, flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    server.stop()


if __name__ == "__main__":
    main()
