"""The key never leaves the environment (issue 31): an echoing server on 127.0.0.1 plays the API key
back in every form the red team found (reversed, ROT13, 7-character pieces spread over JSON fields,
base64 of the reversed key, as ``model``, ``system_fingerprint`` or ``id``, in a 401 body), the
judge and calibrate stages and ``assay judge doctor`` run against it, and then every file under the
project and everything printed is searched for each form."""

from __future__ import annotations

import base64
import codecs
import json
import os
import secrets
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml

from conftest import BIN, make_clone

KEY = "sk-" + secrets.token_hex(14)  # made at run time (every 7 characters random), so no file holds it unless assay wrote it
REVERSED = KEY[::-1]
ROT13 = codecs.encode(KEY, "rot13")
B64_REVERSED = base64.b64encode(REVERSED.encode()).decode()
PIECES = [KEY[i:i + 7] for i in range(0, len(KEY) - 6, 7)]


def forms() -> dict[str, str]:
    """Every form searched for afterwards, by name (each 7-character piece on its own)."""
    out = {"key": KEY, "reversed": REVERSED, "rot13": ROT13, "base64 of the reversed key": B64_REVERSED,
           "rot13 reversed": ROT13[::-1]}
    out.update({f"piece {i}": p for i, p in enumerate(PIECES)})
    return out


def reply(n: int) -> dict:
    """The n-th completion: a valid verdict whose body carries the key in one of its forms.

    Every fifth request puts a form into ``model``, ``system_fingerprint`` or ``id`` (such a reply
    must be refused, not kept); the others carry the forms in the reason, in fields assay does not
    read, and spread as 7-character pieces across several fields.
    """
    reason = f"reversed {REVERSED} rot13 {ROT13} b64 {B64_REVERSED} " + " | ".join(PIECES)
    body = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": "echo-model-1",
            "choices": [{"index": 0, "message": {"role": "assistant",
                                                  "content": json.dumps({"winner": "first", "reason": reason})},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "note": PIECES[0]}, "debug": {"auth": KEY, "b64": B64_REVERSED},
            **{f"x_{i}": p for i, p in enumerate(PIECES)}}
    if n % 5 == 0:
        field, value = [("model", KEY), ("model", REVERSED), ("system_fingerprint", ROT13),
                        ("system_fingerprint", PIECES[1]), ("id", PIECES[2])][(n // 5) % 5]
        body[field] = value
    return body


class EchoServer:
    """A chat-completions server on 127.0.0.1 that plays the key back; ``/deny/...`` answers 401."""

    def __init__(self) -> None:
        self.requests = 0
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with outer.lock:
                    outer.requests += 1
                    n = outer.requests
                if self.path.startswith("/deny/"):
                    status, body = 401, {"error": {"message": f"Incorrect API key provided: {KEY}; reversed "
                                                              f"{REVERSED}; rot13 {ROT13}; b64 {B64_REVERSED}",
                                                   "pieces": PIECES}}
                else:
                    status, body = 200, reply(n)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> EchoServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def run(root, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "ASSAY_TEST_KEY": KEY}
    return subprocess.run(list(args), cwd=root, env=env, capture_output=True, text=True)


@pytest.mark.e2e
def test_no_form_of_the_key_reaches_a_file_or_the_output(tmp_path):
    root = make_clone(tmp_path / "clone")
    with EchoServer() as server:
        params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
        params["judge"]["kind"] = "openai"
        params["judge"]["openai"] = {"base_url": server.base_url, "model": "judge-model", "api_key_env": "ASSAY_TEST_KEY",
                                     "concurrency": 8, "retries": 0, "timeout": 5, "max_failed_share": 0.25,
                                     "cache_path": ".assay/judge_cache.sqlite", "progress": False}
        (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
        outputs = [run(root, sys.executable, f"stages/{name}.py") for name in ("judge", "calibrate")]
        assert [p.returncode for p in outputs] == [0, 0], [p.stderr for p in outputs]
        doctor = run(root, str(BIN / "assay"), "judge", "doctor", "--base-url", server.base_url.replace("/v1", "/deny/v1"),
                     "--model", "judge-model", "--api-key-env", "ASSAY_TEST_KEY", "--parallel", "2", "--timeout", "5")
        assert server.requests > 168
    assert doctor.returncode != 0 and "401" in doctor.stdout + doctor.stderr  # a status and an excerpt are shown
    replies = [json.loads(line) for line in (root / "data/derived/judge/pairwise_v2.jsonl").read_text().splitlines()]
    refused = [r for r in replies if r["status"] == "failed"]
    # the identity forms are refused (the redactor has already starred the key out of them, so they are no plain name)
    assert refused and {r["reason"].split(" is ")[0].split(" holds ")[0] for r in refused} == {
        "HTTP 200: the server's model", "HTTP 200: the server's system_fingerprint", "HTTP 200: the server's id"}
    assert {r["model_version"] for r in replies if r["status"] == "ok"} == {"echo-model-1"}
    written = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
    printed = "".join(p.stdout + p.stderr for p in [*outputs, doctor])
    found = [(name, str(path.relative_to(root))) for name, form in forms().items()
             for path, data in written.items() if form.encode() in data]
    found += [(name, "output") for name, form in forms().items() if form in printed]
    assert found == []
