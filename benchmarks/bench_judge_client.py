"""CPU the judge's HTTP client spends per request, against a real HTTP server on 127.0.0.1.

    .venv/bin/python benchmarks/bench_judge_client.py [--requests 3000] [--concurrency 32] [--repeats 3]

The fake OpenAI-compatible server (tests/fake_openai_server.py, no added latency) runs in its own
process, so the CPU time measured here (``time.process_time`` of this process) is the client's
alone. The same chat-completion bodies (the judge's real request bodies) are posted by

- ``assay``: :func:`assay.judge.http.post_json` over a :class:`assay.judge.http.ClientPool`
  (aiohttp since issue 25; retries, timeouts, Retry-After and redaction included), the judge's transport;
- ``aiohttp``: a bare ``aiohttp.ClientSession`` with a connector of the same size, the reference;
- ``httpx``: a bare ``httpx.AsyncClient`` with a pool of the same size (the judge's transport
  before: it spent 3.7 times aiohttp's CPU per request at concurrency 32).

Also prints what building a pool of ``--concurrency`` slots costs: TLS contexts created (each
loads the CA bundle) and CPU milliseconds. Best of ``--repeats`` for each figure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bodies(n: int) -> list[dict]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_openai_judge import make_pairs

    from assay.judge.openai import OpenAIJudge, OpenAIJudgeParams
    from assay.judge.orders import items_for
    from assay.judge.prompts import load_prompt

    prompt = load_prompt(ROOT / "data" / "prompts" / "pairwise_v2.md")
    judge = OpenAIJudge(OpenAIJudgeParams(base_url="http://127.0.0.1:1/v1", model="bench-model", cache_path=None))
    return [judge.request_body(item, prompt) for item in items_for(make_pairs(n), swap=False)]


async def with_assay(url: str, todo: list[dict], concurrency: int) -> int:
    from assay.judge.http import ClientPool, post_json

    async with ClientPool(concurrency, {}, 30.0) as pool:
        outs = await asyncio.gather(*(post_json(pool, url, b, timeout=30.0, retries=0, backoff=0.1, max_wait=1.0)
                                      for b in todo))
    return sum(o.text is not None for o in outs)


async def with_aiohttp(url: str, todo: list[dict], concurrency: int) -> int:
    import aiohttp

    async def one(session, body) -> bool:
        async with session.post(url, json=body) as response:
            return response.status < 400 and bool(await response.text())

    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as session:
        return sum(await asyncio.gather(*(one(session, b) for b in todo)))


async def with_httpx(url: str, todo: list[dict], concurrency: int) -> int:
    import httpx

    slots = asyncio.Semaphore(concurrency)  # httpcore's pool slows down with thousands of waiters: wait here

    async def one(client, body) -> bool:
        async with slots:
            response = await client.post(url, json=body)
        return response.status_code < 400 and bool(response.text)

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(30.0, pool=None)) as client:
        return sum(await asyncio.gather(*(one(client, b) for b in todo)))


def measure(fn, *args) -> tuple[float, float, float, int]:
    """Wall seconds, user and system CPU seconds of this process, and the count of good replies."""
    wall, before = time.perf_counter(), os.times()
    ok = asyncio.run(fn(*args))
    after = os.times()
    return time.perf_counter() - wall, after.user - before.user, after.system - before.system, ok


def pool_cost(concurrency: int) -> tuple[int, float]:
    """TLS contexts created and CPU seconds to build (and close) a pool of ``concurrency`` slots."""
    import ssl

    from assay.judge.http import ClientPool

    made = 0
    original = ssl.SSLContext.load_verify_locations

    def counting(self, *args, **kwargs):
        nonlocal made
        made += 1
        return original(self, *args, **kwargs)

    async def build() -> None:
        async with ClientPool(concurrency, {}, 30.0):
            pass

    ssl.SSLContext.load_verify_locations = counting
    try:
        cpu = time.process_time()
        asyncio.run(build())
        return made, time.process_time() - cpu
    finally:
        ssl.SSLContext.load_verify_locations = original


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    todo = bodies(args.requests)
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_openai_server.py"), "--latency", "0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip() + "/chat/completions"
        asyncio.run(with_assay(url, todo[:50], 4))  # warm both paths (imports, first connections)
        asyncio.run(with_aiohttp(url, todo[:50], 4))
        asyncio.run(with_httpx(url, todo[:50], 4))
        results = {}
        for name, fn in (("assay", with_assay), ("aiohttp", with_aiohttp), ("httpx", with_httpx)):
            runs = [measure(fn, url, todo, args.concurrency) for _ in range(args.repeats)]
            if any(run[-1] != len(todo) for run in runs):
                raise SystemExit(f"{name}: not every request succeeded")
            results[name] = min(runs, key=lambda run: run[1] + run[2])[:3]
    finally:
        server.terminate()
        server.wait()
    print(f"{len(todo):,} requests, concurrency {args.concurrency}, server in its own process on 127.0.0.1, "
          f"best of {args.repeats}")
    for name, (wall, user, system) in results.items():
        cpu = user + system
        print(f"{name:14}: wall {wall:6.2f} s  client CPU {cpu:6.2f} s (user {user:.2f}, system {system:.2f}) "
              f"= {cpu / len(todo) * 1e6:6.0f} us/request")
    for name in ("assay", "httpx"):
        print(f"{name} / aiohttp CPU per request: {sum(results[name][1:]) / sum(results['aiohttp'][1:]):.2f}x")
    contexts, seconds = min(pool_cost(args.concurrency) for _ in range(args.repeats))
    print(f"building another pool of {args.concurrency} slots in the same process: {contexts} CA-bundle load(s), "
          f"{seconds * 1000:.0f} ms CPU")


if __name__ == "__main__":
    main()
