"""`system: http` against a real HTTP server on 127.0.0.1: both shapes, retries, the key, stored replies."""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from assay.data.cases import load_cases
from assay.data.corpus import load_corpus
from assay.rag.calls import CallPolicy
from assay.rag.http_system import HttpSystem, MissingSystemKey
from assay.rag.reply_store import REPLAY_ENV, ReplyStore
from assay.rag.runner import VersionParams, run_version

TINY = Path(__file__).parent / "fixtures" / "tiny_corpus"
KEY = "sk-test-0123456789abcdefghij"


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.bodies: list[dict] = []
        self.auth: list[str | None] = []
        self.per_case: Counter = Counter()
        self.fail_first: dict[str, int] = {}  # case id -> how many 503s before a good reply
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        server: Server = self.server  # type: ignore[assignment]
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        with server.lock:
            server.bodies.append(body)
            server.auth.append(self.headers.get("authorization"))
            case = body.get("case_id") or body["messages"][0]["content"]
            server.per_case[case] += 1
            failing = server.per_case[case] <= server.fail_first.get(case, 0)
        if failing:
            self._send(503, {"error": "busy"}, {"retry-after": "0"})
        elif self.path.endswith("/chat/completions"):
            reply = {"answer": "thirty days", "citations": [], "abstained": False}
            self._send(200, {"choices": [{"message": {"role": "assistant", "content": json.dumps(reply)}}]})
        else:
            self._send(200, {"answer": f"{body['question']} {body['settings']}", "citations": [],
                             "abstained": False, "retrieved": ["kb-fees-bn"], "latency_ms": 7})

    def _send(self, status, data, headers=None):
        raw = json.dumps(data).encode()
        self.send_response(status)
        for k, v in {"content-type": "application/json", **(headers or {})}.items():
            self.send_header(k, v)
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def server():
    srv = Server()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(TINY / "corpus")


@pytest.fixture(scope="module")
def cases(corpus):
    return load_cases(TINY / "cases.jsonl", corpus)


def test_assay_shape_posts_each_case_with_settings_and_key_and_retries(server, corpus, cases, monkeypatch):
    monkeypatch.setenv("TEAM_KEY", KEY)
    server.fail_first = {"t1": 2}
    system = HttpSystem(server.url + "/answer", corpus, param="rag.versions.svc.url", api_key_env="TEAM_KEY",
                        settings={"top_k": 5}, policy=CallPolicy(concurrency=4, timeout_s=5, retries=2))
    out = {o.case_id: o for o in system.run(cases, k=3)}
    assert set(out) == {c.id for c in cases} and all(o.error is None for o in out.values())
    assert json.loads(out["t1"].reply)["answer"].endswith("{'top_k': 5}")
    assert out["t1"].retrieved == ("kb-fees-bn",) and out["t1"].latency_ms == 7.0
    assert server.per_case["t1"] == 3 and server.per_case["t2"] == 1  # two 503s retried, then answered
    assert set(server.auth) == {f"Bearer {KEY}"}
    first = next(b for b in server.bodies if b["case_id"] == "t2")
    assert first == {"case_id": "t2", "question": cases[1].question, "lang": cases[1].lang, "k": 3,
                     "permissions": [], "settings": {"top_k": 5}}


def test_a_case_failing_after_its_retries_fails_naming_status_and_attempts(server, corpus, cases):
    server.fail_first = {"t1": 99}
    system = HttpSystem(server.url + "/answer", corpus, param="rag.versions.svc.url", max_failed_share=0.5,
                        policy=CallPolicy(concurrency=2, timeout_s=5, retries=1))
    out = {o.case_id: o for o in system.run(cases, k=3)}
    assert out["t1"].reply == "" and out["t1"].error.startswith(f"POST {server.url}/answer: HTTP 503: ")
    assert "(gave up after 2 attempt(s))" in out["t1"].error and server.per_case["t1"] == 2


def test_openai_shape(server, corpus, cases):
    system = HttpSystem(server.url + "/v1/chat/completions", corpus, shape="openai", model="team-model",
                        settings={"temperature": 0})
    [out] = system.run(cases[:1], k=3)
    assert json.loads(out.reply) == {"answer": "thirty days", "citations": [], "abstained": False}
    assert server.bodies[0] == {"model": "team-model", "temperature": 0,
                                "messages": [{"role": "user", "content": cases[0].question}]}


def test_unset_key_names_the_setting(server, corpus, cases, monkeypatch):
    monkeypatch.delenv("TEAM_KEY", raising=False)
    system = HttpSystem(server.url, corpus, param="rag.versions.svc.url", api_key_env="TEAM_KEY")
    with pytest.raises(MissingSystemKey, match=r"rag.versions.svc.api_key_env: environment variable TEAM_KEY is unset"):
        system.run(cases[:1], k=3)
    assert server.bodies == []


def test_stored_replies_replay_with_the_server_stopped_and_no_key(server, corpus, cases, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TEAM_KEY", KEY)
    version = VersionParams(system="http", url=server.url + "/answer", api_key_env="TEAM_KEY", concurrency=3)
    with ReplyStore("svc") as store:
        first = run_version("svc", version, cases, corpus, 3, store=store, identity_sha="h" * 64)
        store.write()
    assert len(server.bodies) == len(cases)
    committed = (tmp_path / "data/derived/replies/svc.jsonl").read_text(encoding="utf-8")
    assert KEY not in committed
    server.shutdown()
    monkeypatch.delenv("TEAM_KEY")
    monkeypatch.setenv(REPLAY_ENV, "only")
    with ReplyStore("svc", cache_path=None) as store:
        again = run_version("svc", version, cases, corpus, 3, store=store, identity_sha="h" * 64)
    assert again == first and store.asked == 0
