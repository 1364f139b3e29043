"""16 reviewers at once against the real review server on SQLite: latency of next+review and throughput.

Run by hand: ``.venv/bin/python benchmarks/bench_queue.py [ITEMS] [CLIENTS] [--db URL]``.
Starts ``assay queue serve`` (uvicorn) in a subprocess on a free 127.0.0.1 port over a fresh SQLite
file (or the database given with ``--db``), fills a queue with ITEMS judged pairs (default 2000),
and lets CLIENTS threads (default 16) each loop: POST next, POST review, until the queue is empty.
Prints p50/p95/p99 of one next+review round trip and reviews per second. Target: p95 < 50 ms on 2 cores.
The clients run on the same machine, so they take CPU from the server: the figures are pessimistic.
They follow the machine's load more than anything in the server: on 2 cores, p95 was 16-30 ms at a
load average of about 5 and 250-312 ms at 9-11. Compare two versions only by alternating runs.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from assay.queue.fill import item_rows
from assay.queue.items import JudgeOpinion, SourceItem
from assay.queue.rubric import load_rubric
from assay.queue.store import open_store

SERVE = "import sys; from assay.cli import main; sys.exit(main())"
SCORES = {"correctness": 4, "helpfulness": 4, "tone": 5, "format": 3}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare(db: str, n: int, clients: int) -> list[str]:
    store = open_store(db)
    items = [SourceItem(id=f"q{i:06d}", question=f"How long is the trial of plan {i}?",
                        answers={"a": f"The trial lasts 14 days (plan {i}).", "b": f"It lasts 30 days (plan {i})."},
                        models={"a": "m-one", "b": "m-two"}, judge=JudgeOpinion(verdict="a"), human="a")
             for i in range(n)]
    store.create_queue("bench", "bench", "random", 0, n, load_rubric(Path(__file__).parents[1] / "data/rubric.yaml"),
                       item_rows("bench", items, 0))
    tokens = [store.issue_token("reviewer", "bench", f"r{i:02d}") for i in range(clients)]
    store.engine.dispose()
    return tokens


def wait_up(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("server exited")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/me")
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("server did not start")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process (Linux /proc), in seconds."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def client(port: int, token: str, latencies: list[float], errors: list[str]) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    review = json.dumps({"choice": "A", "scores": {"A": SCORES, "B": SCORES}, "correction": None, "note": None})
    while True:
        start = time.perf_counter()
        conn.request("POST", "/api/queues/bench/next", headers=headers)
        response = conn.getresponse()
        raw = response.read()
        if response.status == 204:
            return
        item = json.loads(raw)
        conn.request("POST", f"/api/items/{item['item_id']}/review", body=review, headers=headers)
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            errors.append(f"review {response.status}")
            continue
        latencies.append(time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("items", nargs="?", type=int, default=2000)
    parser.add_argument("clients", nargs="?", type=int, default=16)
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "bench.sqlite")
        tokens = prepare(db, args.items, args.clients)
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-c", SERVE, "queue", "serve", "--db", db, "--port", str(port)])
        try:
            wait_up(port, proc)
            latencies: list[float] = []
            errors: list[str] = []
            threads = [threading.Thread(target=client, args=(port, t, latencies, errors)) for t in tokens]
            cpu0, start, client0 = cpu_seconds(proc.pid), time.perf_counter(), time.process_time()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed, server_cpu = time.perf_counter() - start, cpu_seconds(proc.pid) - cpu0
            client_cpu = time.process_time() - client0
        finally:
            proc.terminate()
            proc.wait(20)
    ms = np.array(latencies) * 1000
    print(f"{len(latencies)} reviews by {args.clients} concurrent clients on {'SQLite' if not args.db else args.db.split(':')[0]}"
          f" in {elapsed:.1f} s: {len(latencies) / elapsed:.0f} reviews/s; errors {len(errors)}")
    print(f"next+review latency: p50 {np.percentile(ms, 50):.1f} ms, p95 {np.percentile(ms, 95):.1f} ms, "
          f"p99 {np.percentile(ms, 99):.1f} ms, max {ms.max():.1f} ms (target p95 < 50 ms)")
    print(f"server CPU per review (next+review): {1000 * server_cpu / max(len(latencies), 1):.2f} ms; "
          f"the clients' CPU per review: {1000 * client_cpu / max(len(latencies), 1):.2f} ms; "
          f"load average at the end: {Path('/proc/loadavg').read_text().split()[0]} on {__import__('os').cpu_count()} cores")


if __name__ == "__main__":
    main()
