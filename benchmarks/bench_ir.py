"""Speed of IR evaluation and of the five retrieval modes (run by hand, not by pytest).

    .venv/bin/python benchmarks/bench_ir.py [--measures-only]

1. IR measures (R@10, nDCG@10, RR@10, P@10, AP) over 10,000 queries x 100 ranked documents, written
   as TREC files under benchmarks/out/, evaluated by assay and by pytrec_eval in the same run on the
   same files, in alternating rounds (median). Both sides are timed from the files (assay: read_qrels
   + read_run + evaluate; pytrec_eval: its own parse_qrel/parse_run + RelevanceEvaluator.evaluate),
   in CPU (process time, every thread: what a shared machine pays) and wall time; assay's CPU must
   be at most 1.0x pytrec_eval's. RR@10 has no pytrec_eval name, so pytrec_eval
   computes recip_rank on the full ranking (slightly less work than a cut); the values of the other
   measures are checked to agree to 1e-12.
2. The same through the command line: ``assay ir-eval`` as a process against a Python process
   running pytrec_eval's parse and evaluation (start-up and imports included on both sides), CPU.
3. All five modes over the 330-document demo (modelled latency off: wall clock), target < 30 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "out"
ROOT = Path(__file__).resolve().parents[1]


def write_files(n_queries: int = 10_000, depth: int = 100, seed: int = 0) -> tuple[Path, Path]:
    """Seeded qrels (about 20 judgments per query, grades -1..3) and a run with ties, as TREC files."""
    rng = np.random.default_rng(seed)
    OUT.mkdir(exist_ok=True)
    qrels, run = OUT / "bench.qrels", OUT / "bench.trec"
    q_lines, r_lines = [], []
    for q in range(n_queries):
        docs = rng.choice(1000, size=depth, replace=False)
        judged = rng.choice(docs[:40], size=20, replace=False)
        grades = rng.choice([-1, 0, 0, 1, 2, 3], size=20)
        q_lines += [f"q{q} 0 d{d} {g}\n" for d, g in zip(judged, grades, strict=True)]
        scores = np.round(rng.random(depth) * 20) / 2  # 41 distinct scores: many ties
        r_lines += [f"q{q} Q0 d{d} {i + 1} {s} bench\n" for i, (d, s) in enumerate(zip(docs, scores, strict=True))]
    qrels.write_text("".join(q_lines))
    run.write_text("".join(r_lines))
    return qrels, run


def bench_measures(rounds: int = 5) -> None:
    """Both sides from the files, alternating for ``rounds`` rounds; median CPU (process time, every thread) and wall."""
    import pytrec_eval

    from assay.relevance.measures import evaluate
    from assay.relevance.trec import read_qrels, read_run

    qrels_path, run_path = write_files()
    ours_cpu, theirs_cpu, ours_wall, theirs_wall = [], [], [], []
    for _ in range(rounds):
        c0, t0 = time.process_time(), time.perf_counter()
        qrels, run = read_qrels(qrels_path), read_run(run_path)
        c1, t1 = time.process_time(), time.perf_counter()
        ours = evaluate(qrels, run, "R@10,nDCG@10,RR@10,P@10,AP")
        c2, t2 = time.process_time(), time.perf_counter()
        with open(qrels_path) as fq, open(run_path) as fr:
            tq, tr = pytrec_eval.parse_qrel(fq), pytrec_eval.parse_run(fr)
        c3, t3 = time.process_time(), time.perf_counter()
        evaluator = pytrec_eval.RelevanceEvaluator(tq, {"recall_10", "ndcg_cut_10", "recip_rank", "P_10", "map"})
        theirs = evaluator.evaluate(tr)
        c4, t4 = time.process_time(), time.perf_counter()
        ours_cpu.append((c1 - c0, c2 - c1))
        theirs_cpu.append((c3 - c2, c4 - c3))
        ours_wall.append((t1 - t0, t2 - t1))
        theirs_wall.append((t3 - t2, t4 - t3))
    worst = max(abs(ours.per_query.loc[q, m] - v[n]) for q, v in theirs.items()
                for m, n in (("R@10", "recall_10"), ("nDCG@10", "ndcg_cut_10"), ("P@10", "P_10"), ("AP", "map")))

    def median(pairs: list[tuple[float, float]]) -> tuple[float, float, float]:
        read, ev = (float(np.median([p[i] for p in pairs])) for i in (0, 1))
        return read, ev, float(np.median([a + b for a, b in pairs]))

    print(f"IR measures, 10,000 queries x 100 documents ({len(run.table):,} run lines), median of {rounds} "
          "alternating rounds:")
    for what, ours_t, theirs_t in (("CPU ", ours_cpu, theirs_cpu), ("wall", ours_wall, theirs_wall)):
        (r0, e0, a0), (r1, e1, a1) = median(ours_t), median(theirs_t)
        print(f"  {what} assay        read {r0:6.2f} s  evaluate {e0:6.2f} s  total {a0:6.2f} s")
        print(f"  {what} pytrec_eval  read {r1:6.2f} s  evaluate {e1:6.2f} s  total {a1:6.2f} s")
        print(f"  {what} assay / pytrec_eval: total {a0 / a1:.2f}x (target <= 1.0), read {r0 / r1:.2f}x, "
              f"evaluate {e0 / e1:.2f}x")
    print(f"  max |diff| {worst:.1e}")


PYTREC_SCRIPT = """
import sys, pytrec_eval
with open(sys.argv[1]) as fq, open(sys.argv[2]) as fr:
    qrels, run = pytrec_eval.parse_qrel(fq), pytrec_eval.parse_run(fr)
per_query = pytrec_eval.RelevanceEvaluator(qrels, {"recall_10", "ndcg_cut_10", "recip_rank", "P_10", "map"}).evaluate(run)
for m in ("recall_10", "ndcg_cut_10", "recip_rank", "P_10", "map"):
    print(m, sum(v[m] for v in per_query.values()) / len(per_query))
"""


def child_cpu(cmd: list[str]) -> float:
    """User + system CPU seconds of one child process run to the end."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def bench_cli(rounds: int = 3) -> None:
    """``assay ir-eval`` against a Python process running pytrec_eval on the same files (start-up included), alternating."""
    qrels_path, run_path = OUT / "bench.qrels", OUT / "bench.trec"
    bin_dir = Path(sys.executable).parent
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(child_cpu([str(bin_dir / "assay"), "ir-eval", str(qrels_path), str(run_path)]))
        theirs.append(child_cpu([sys.executable, "-c", PYTREC_SCRIPT, str(qrels_path), str(run_path)]))
    a, b = float(np.median(ours)), float(np.median(theirs))
    print(f"CLI, whole processes, median CPU of {rounds} alternating rounds: assay ir-eval {a:.2f} s, "
          f"python + pytrec_eval {b:.2f} s: {a / b:.2f}x (target <= 1.0)")


def bench_modes() -> None:
    from assay.relevance.modes.runner import run_mode
    from assay.relevance.params import RelevanceParams
    from assay.relevance.corpus import load_documents, load_queries

    params = RelevanceParams(latency="measured")
    docs = load_documents(str(ROOT / params.corpus))
    queries = load_queries(str(ROOT / params.queries))
    start = time.perf_counter()
    print(f"Five modes over the demo ({len(docs)} documents, {len(queries)} queries, wall-clock latency):")
    for mode in params.modes:
        t = time.perf_counter()
        out = run_mode(mode, params, docs, queries)
        lat = np.array(list(out.latency_ms.values()))
        print(f"  {mode:<9} {time.perf_counter() - t:6.2f} s (fit + search)  per query p50 {np.median(lat):6.2f} ms  "
              f"p95 {np.percentile(lat, 95):6.2f} ms")
    print(f"  all five modes: {time.perf_counter() - start:.2f} s (target < 30 s)")


if __name__ == "__main__":
    bench_measures()
    bench_cli()
    if "--measures-only" not in sys.argv:
        bench_modes()
