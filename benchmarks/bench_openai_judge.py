"""Benchmark: the OpenAI-compatible judge against the local fake server.

2,000 pairs in both orders (4,000 requests), 20 ms latency per reply, concurrency 32: target under
10 seconds. Then the same run again, served wholly from the response cache: target zero requests.

Run by hand from the repository root: ``.venv/bin/python benchmarks/bench_openai_judge.py``
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai_server import FakeOpenAIServer  # noqa: E402

from assay.judge.openai import OpenAIJudge, OpenAIJudgeParams  # noqa: E402
from assay.judge.orders import judge_pairs  # noqa: E402
from assay.data.pairs import Pair  # noqa: E402
from assay.judge.prompts import load_prompt  # noqa: E402

N_PAIRS, LATENCY, CONCURRENCY, TARGET_SECONDS = 2000, 0.020, 32, 10.0


def make_pairs(n: int) -> list[Pair]:
    return [Pair(id=f"p{i}", case_question=f"How many days is the trial for plan {i}?", facts=["14 days"],
                 a=f"The trial lasts 14 days [source: kb-{i}].", b=f"Plan {i} has a 7 day trial.", kind="clear",
                 lang="en", ann1="a", ann2="a", final="a") for i in range(n)]


def main() -> int:
    prompt = load_prompt(ROOT / "data" / "prompts" / "pairwise_v2.md")
    pairs = make_pairs(N_PAIRS)
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(latency=LATENCY) as server:
        params = OpenAIJudgeParams(base_url=server.base_url, model="bench-model", concurrency=CONCURRENCY,
                                   cache_path=str(Path(tmp) / "cache.sqlite"), progress=False)
        judge = OpenAIJudge(params)
        start = time.perf_counter()
        first = judge_pairs(judge, pairs, prompt, swap=True)
        cold = time.perf_counter() - start
        cold_requests, peak = server.requests, server.max_in_flight
        server.reset()
        start = time.perf_counter()
        second = judge_pairs(OpenAIJudge(params), pairs, prompt, swap=True)
        warm = time.perf_counter() - start
        warm_requests = server.requests
    same = [r.label for r in first] == [r.label for r in second]
    floor = 2 * N_PAIRS * LATENCY / CONCURRENCY
    print(f"pairs {N_PAIRS}, requests {2 * N_PAIRS}, latency {LATENCY * 1000:.0f} ms, concurrency {CONCURRENCY}")
    print(f"cold run : {cold:6.2f} s  requests seen by the server {cold_requests}  peak in flight {peak}  "
          f"(latency floor {floor:.2f} s, target < {TARGET_SECONDS:.0f} s)")
    print(f"cached   : {warm:6.2f} s  requests seen by the server {warm_requests}  labels identical {same}")
    ok = cold < TARGET_SECONDS and cold_requests == 2 * N_PAIRS and warm_requests == 0 and same
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
