"""The system under test run like the judge: a callable sleeping 1 s per case, and `system: http`'s CPU.

    .venv/bin/python benchmarks/bench_system.py [--cases 2000] [--serial-cases 100] [--http-requests 3000]

1. Wall time of a callable that sleeps 1 s per case (``time.sleep``: a stand-in for a RAG service's
   reply), through :class:`assay.rag.called.CallableSystem` with stored replies, at concurrency 1
   (``--serial-cases`` cases, extrapolated to ``--cases``: say so when quoting it), 16 and 64
   (``--cases`` cases each).
2. The same run at concurrency 64 in its own process, killed (SIGKILL) once half the cases were
   called, then resumed: the resumed run's wall time and how many cases it called.
3. A replay as CI's verify runs it (``ASSAY_SYSTEM_REPLAY=only``, the function raising if called):
   wall time and the calls made (0).
4. ``system: http`` (shape openai) against tests/fake_openai_server.py (no added latency, its own
   process) at concurrency 32: this process's CPU per request, against the judge's client
   (:func:`assay.judge.http.post_json` over the same pool, as benchmarks/bench_judge_client.py times
   it) on the same server and bodies of the same size. Best of ``--repeats``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PLUGIN = """
import os, time
from pathlib import Path

def answer(request):
    if os.environ.get("BENCH_REFUSE"):
        raise AssertionError("called during a replay")
    time.sleep(float(os.environ.get("BENCH_SLEEP", "1")))
    with open(os.environ["BENCH_LOG"], "a") as f:
        f.write(request.case_id + "\\n")
    return {"answer": "x " + request.question, "citations": ["d"], "abstained": False}
"""

RUNNER = """
import sys
sys.path.insert(0, {bench!r})
from bench_system import cases, run
print(run(int(sys.argv[1]), int(sys.argv[2])))
"""


def cases(n: int) -> list:
    from assay.data.cases import CaseRecord

    return [CaseRecord(id=f"c{i:06d}", question=f"How long is the warranty of product {i}?", task="lookup",
                       set="golden", lang="en", expect="answer", doc_ids=["d"], facts=["x"], why="a benchmark case")
            for i in range(n)]


def run(n: int, concurrency: int) -> int:
    """Run the sleeping callable over ``n`` cases with stored replies in the working directory; the cases asked."""
    from assay.rag.called import CallableSystem
    from assay.rag.calls import CallPolicy
    from assay.rag.reply_store import ReplyStore, replay_only

    system = CallableSystem("bench_plugin:answer", {}, param="rag.versions.bench.callable",
                            policy=CallPolicy(concurrency=concurrency, timeout_s=120, retries=0))
    with ReplyStore("bench", cache_path=None if replay_only() else ".assay/system_replies.sqlite") as store:
        system.run(cases(n), 3, store, "b" * 64)
        store.write()
    return store.asked


def _calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def sleeping(args: argparse.Namespace) -> None:
    for concurrency, n in ((1, args.serial_cases), (16, args.cases), (64, args.cases)):
        with tempfile.TemporaryDirectory(prefix="bench-system-") as tmp:
            env = _setup(Path(tmp))
            start = time.perf_counter()
            asked = int(subprocess.run([sys.executable, "-c", RUNNER.format(bench=str(ROOT / "benchmarks")),
                                        str(n), str(concurrency)], cwd=tmp, env=env, check=True, capture_output=True,
                                       text=True).stdout)
            wall = time.perf_counter() - start
            note = (f" -> {wall * args.cases / n:,.0f} s for {args.cases:,} cases (extrapolated)"
                    if n != args.cases else "")
            print(f"sleep 1 s/case, concurrency {concurrency:>2}: {n:,} cases asked {asked:,} in {wall:7.1f} s{note}")


def _setup(folder: Path) -> dict[str, str]:
    (folder / "bench_plugin.py").write_text(PLUGIN, encoding="utf-8")
    return {**os.environ, "BENCH_LOG": str(folder / "calls.log"), "PYTHONPATH": f"{folder}{os.pathsep}{ROOT / 'src'}",
            "PYTHONUNBUFFERED": "1"}


def resumed(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-system-") as tmp:
        env = _setup(Path(tmp))
        log = Path(tmp) / "calls.log"
        cmd = [sys.executable, "-c", RUNNER.format(bench=str(ROOT / "benchmarks")), str(args.cases), "64"]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.DEVNULL)
        while _calls(log) < args.cases // 2:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed_at, first = _calls(log), time.perf_counter() - start
        start = time.perf_counter()
        asked = int(subprocess.run(cmd, cwd=tmp, env=env, check=True, capture_output=True, text=True).stdout)
        wall = time.perf_counter() - start
        print(f"killed after {killed_at:,} calls ({first:.1f} s); resumed run asked {asked:,} of {args.cases:,} "
              f"in {wall:.1f} s (calls in all: {_calls(log):,})")
        start = time.perf_counter()
        replay_env = {**env, "ASSAY_SYSTEM_REPLAY": "only", "BENCH_REFUSE": "1"}
        asked = int(subprocess.run(cmd, cwd=tmp, env=replay_env, check=True, capture_output=True, text=True).stdout)
        print(f"replay as CI's verify runs it: {asked} call(s), {time.perf_counter() - start:.1f} s wall")


def _cpu(fn) -> tuple[float, int]:
    before = os.times()
    ok = fn()
    after = os.times()
    return after.user - before.user + after.system - before.system, ok


def http_cpu(args: argparse.Namespace) -> None:
    from assay.judge.http import ClientPool, post_json
    from assay.rag.calls import CallPolicy
    from assay.rag.http_system import HttpSystem

    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_openai_server.py"), "--latency", "0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip() + "/chat/completions"  # type: ignore[union-attr]
        todo = cases(args.http_requests)
        system = HttpSystem(url, {}, shape="openai", model="bench-model",
                            policy=CallPolicy(concurrency=32, timeout_s=30, retries=0), max_failed_share=1.0)
        bodies = [system.body(r) for r in system.requests(todo, 3)]

        def with_system() -> int:
            return sum(o.error is None for o in system.run(todo, 3))

        async def judge_client() -> int:
            async with ClientPool(32, {}, 30.0) as pool:
                outs = await asyncio.gather(*(post_json(pool, url, b, timeout=30.0, retries=0, backoff=0.1,
                                                        max_wait=1.0) for b in bodies))
            return sum(o.text is not None for o in outs)

        with_system()
        asyncio.run(judge_client())  # warm both paths
        best = {name: min(_cpu(fn) for _ in range(args.repeats))
                for name, fn in (("system: http", with_system), ("judge client", lambda: asyncio.run(judge_client())))}
    finally:
        server.terminate()
        server.wait()
    for name, (cpu, ok) in best.items():
        print(f"{name:13}: {ok:,} of {len(todo):,} requests, client CPU {cpu:.2f} s = {cpu / len(todo) * 1e6:.0f} us/request")
    print(f"system: http / judge client CPU per request: {best['system: http'][0] / best['judge client'][0]:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--serial-cases", type=int, default=100)
    ap.add_argument("--http-requests", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", choices=("sleeping", "resumed", "http"))
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    for name, fn in (("http", http_cpu), ("sleeping", sleeping), ("resumed", resumed)):
        if args.only in (None, name):
            fn(args)


if __name__ == "__main__":
    main()
