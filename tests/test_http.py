"""The judge's transport: one TLS context per process, the environment's proxy, httpx's JSON bytes."""

from __future__ import annotations

import asyncio
import json
import ssl
import sys
from pathlib import Path

import httpx

from assay.judge.http import ClientPool, env_proxy, post_json, tls_context

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai_server import FakeOpenAIServer


def test_every_pool_shares_one_tls_context(monkeypatch):
    loads = []
    original = ssl.SSLContext.load_verify_locations
    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations",
                        lambda self, *a, **k: (loads.append(1), original(self, *a, **k))[1])
    tls_context.cache_clear()

    async def build():
        for _ in range(3):
            async with ClientPool(32, {}, 5.0) as pool:
                assert pool._session.connector.limit == 32
    asyncio.run(build())
    assert len(loads) == 1  # one CA-bundle load per process, not one per pool or per connection


def test_a_proxy_gets_the_request_with_the_absolute_url():
    # the "proxy" is a second fake server: it answers 404 naming the path it was asked for, which a proxy
    # receives as the absolute URL of the real target
    with FakeOpenAIServer() as proxy:
        async def send():
            async with ClientPool(1, {}, 5.0, proxy=f"http://127.0.0.1:{proxy.port}") as pool:
                return await post_json(pool, "http://judge.invalid:8000/v1/chat/completions", {"model": "m"},
                                       timeout=5.0, retries=0, backoff=0.0, max_wait=0.0)
        outcome = asyncio.run(send())
    assert outcome.status_code == 404 and "no route http://judge.invalid:8000/v1/chat/completions" in outcome.error


def test_a_redirect_is_not_followed():
    with FakeOpenAIServer() as server:
        async def send():
            async with ClientPool(1, {}, 5.0) as pool:
                return await post_json(pool, f"{server.base_url}/redirect", {"model": "m"}, timeout=5.0, retries=0,
                                       backoff=0.0, max_wait=0.0)
        outcome = asyncio.run(send())
        assert server.requests == 0
    assert outcome.status_code == 404 and "(not retried)" in outcome.error


def test_env_proxy_follows_the_proxy_variables_and_no_proxy(monkeypatch):
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert env_proxy("https://api.example.com/v1") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    assert env_proxy("https://api.example.com/v1") == "http://proxy.internal:3128"
    assert env_proxy("http://127.0.0.1:8000/v1") is None  # no http proxy set
    monkeypatch.setenv("NO_PROXY", "api.example.com")
    assert env_proxy("https://api.example.com/v1") is None


def test_the_body_is_sent_as_httpx_would_encode_it():
    body = {"model": "m", "messages": [{"role": "user", "content": "délai de 14 jours ≥ 7"}], "temperature": 0.0}
    with FakeOpenAIServer() as server:
        async def send():
            async with ClientPool(2, {"Authorization": "Bearer k"}, 5.0) as pool:
                return await post_json(pool, f"{server.base_url}/chat/completions", body, timeout=5.0, retries=0,
                                       backoff=0.0, max_wait=0.0)
        outcome = asyncio.run(send())
        assert outcome.status_code == 200 and outcome.error is None and json.loads(outcome.text)["choices"]
        assert server.bodies[-1] == body and server.auth_headers[-1] == "Bearer k"
    assert httpx.Request("POST", "http://x/", json=body).content == json.dumps(
        body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
