"""evaluate at 10,000 documents: the reference system's block size, and the stand-in system (run by hand).

    .venv/bin/python benchmarks/bench_evaluate.py [--documents 10000] [--cases 2000] [--rounds 3] [--only blocks|stand-in]

1. Block size. ``run_version`` of a reference version with sentence chunking (the evaluate stage
   without its file reading and writing) over ``--cases`` synthetic cases against ``--documents``
   synthetic documents (``bench_rag``'s generators, seeded), once with 512-question blocks (what
   assay used before ``rag.block_mb``) and once with the default ``rag.block_mb``. Each run is a
   child process of its own, in alternating rounds; ``os.wait4`` gives its user and system CPU and
   its peak resident memory. The run tables' bytes must be equal.
2. The stand-in system (``systems/my_rag.py``, what ``assay init`` writes): CPU per case against
   the same corpus, the version before (kept as ``tests/fixtures/my_rag_before.py``: it tokenised
   every document for every case) against the current one, over the same cases, with equal
   replies; then what 100,000 cases would cost at the measured rate.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OLD_BLOCK_ROWS = 512


def corpus_and_cases(documents: int, cases: int):  # noqa: ANN201 - bench_rag's types
    """bench_rag's seeded corpus and cases, generated once (a minute at 10,000 documents) and kept under out/."""
    import pickle

    saved = HERE / "out" / f"evaluate_{documents}_{cases}.pickle"
    if saved.is_file():
        return pickle.loads(saved.read_bytes())
    sys.path.insert(0, str(HERE))
    from bench_rag import synthetic_cases, synthetic_corpus

    corpus = synthetic_corpus(documents)
    made = corpus, synthetic_cases(corpus, cases)
    saved.parent.mkdir(exist_ok=True)
    saved.write_bytes(pickle.dumps(made))
    return made


def child(args: argparse.Namespace) -> None:
    """One evaluate run in this process; prints the chunk count, block rows and the run table's sha256."""
    import io

    import pyarrow.parquet as pq

    from assay.rag.retrieval import BLOCK_MB, block_rows, chunk_corpus
    from assay.rag.runner import VersionParams, results_table, run_version

    corpus, cases = corpus_and_cases(args.documents, args.cases)
    version = VersionParams(chunking="sentence", min_score=0.3, min_margin=0.05)
    chunks = len(chunk_corpus(corpus, "sentence"))
    block_mb = BLOCK_MB if args.child == "default" else (OLD_BLOCK_ROWS + 0.5) * 8 * chunks / 2 ** 20
    start = time.process_time()
    table = results_table(run_version("bench", version, cases, corpus, k=3, block_mb=block_mb))
    spent = time.process_time() - start
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    print(chunks, block_rows(chunks, block_mb), f"{spent:.2f}", hashlib.sha256(buffer.getvalue()).hexdigest())


def run_child(kind: str, args: argparse.Namespace) -> tuple[float, float, float, list[str]]:
    """User CPU, system CPU, peak RSS (MB) and the printed fields of one child run."""
    proc = subprocess.Popen([sys.executable, __file__, "--child", kind, "--documents", str(args.documents),
                             "--cases", str(args.cases)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.exit(f"child {kind} failed ({proc.returncode})")
    return usage.ru_utime, usage.ru_stime, usage.ru_maxrss / 1024, out.split()


def bench_blocks(args: argparse.Namespace) -> None:
    corpus_and_cases(args.documents, args.cases)  # generated here once, read by every child
    rows: dict[str, list[tuple[float, float, float, float]]] = {"512 rows": [], "default": []}
    digests, shape = set(), {}
    for _ in range(args.rounds):
        for kind in ("512 rows", "default"):
            user, system, rss, (chunks, block, spent, digest) = run_child("old" if kind == "512 rows" else "default", args)
            rows[kind].append((user, system, rss, float(spent)))
            digests.add(digest)
            shape[kind] = (int(chunks), int(block))
    print(f"evaluate (reference, sentence chunks) over {args.cases:,} cases x {args.documents:,} documents "
          f"({shape['default'][0]:,} chunks), median of {args.rounds} alternating rounds, each its own process:")
    base = None
    for kind, runs in rows.items():
        user, system, rss, spent = (float(np.median([r[i] for r in runs])) for i in range(4))
        block = shape[kind][1]
        dense = block * shape[kind][0] * 8 / 2 ** 20
        ratio = "" if base is None else (f"\n{'':12}CPU {(user + system) / (base[0] + base[1]):.2f}x, system "
                                         f"{system / base[1]:.2f}x, run_version {spent / base[3]:.2f}x, "
                                         f"peak RSS {rss / base[2]:.2f}x")
        print(f"  {kind:<9} block {block:>4} rows ({dense:6.1f} MB dense)  user {user:6.2f} s  system {system:6.2f} s  "
              f"(run_version {spent:6.2f} s)  peak RSS {rss:7.1f} MB{ratio}")
        base = base or (user, system, rss, spent)
    print(f"  run tables identical: {len(digests) == 1}")


def bench_stand_in(args: argparse.Namespace) -> None:
    import importlib.util

    from assay.rag.systems import SystemRequest

    def load(path: Path, name: str):  # noqa: ANN202 - a module
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded)
        return loaded

    my_rag = load(ROOT / "src" / "assay" / "project" / "examples" / "minimal" / "systems" / "my_rag.py", "my_rag")
    old_answer = load(ROOT / "tests" / "fixtures" / "my_rag_before.py", "my_rag_before").answer
    corpus, cases = corpus_and_cases(args.documents, args.cases)
    requests = [SystemRequest(c.id, c.question, c.lang, 3, corpus, (), (), {"min_overlap": 1}) for c in cases]
    old_n = min(len(requests), args.old_cases)
    start = time.process_time()
    old = [old_answer(r) for r in requests[:old_n]]
    old_cpu = (time.process_time() - start) / old_n
    start = time.process_time()
    new = [my_rag.answer(r) for r in requests]
    new_total = time.process_time() - start
    new_cpu = new_total / len(requests)
    print(f"stand-in systems/my_rag.py against {args.documents:,} documents:")
    print(f"  before {old_cpu:8.4f} CPU-s per case (over {old_n} cases): 100,000 cases {old_cpu * 1e5 / 3600:6.2f} h")
    print(f"  now    {new_cpu:8.4f} CPU-s per case (over {len(requests)} cases, index built on the first, "
          f"{new_total:.2f} s in all): 100,000 cases {new_cpu * 1e5 / 60:6.1f} min; {old_cpu / new_cpu:.0f}x")
    print(f"  same replies on the {old_n} cases run both ways: {old == new[:old_n]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--cases", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--old-cases", type=int, default=50, help="cases the old stand-in runs (0.4 CPU-s each)")
    parser.add_argument("--only", choices=("blocks", "stand-in"))
    parser.add_argument("--child", choices=("old", "default"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.only != "stand-in":
        bench_blocks(args)
    if args.only != "blocks":
        bench_stand_in(args)


if __name__ == "__main__":
    main()
