"""Leakage at corpus scale: time, peak memory and exactness of the exact join, local and on Dask.

Run: .venv/bin/python benchmarks/bench_leakage.py [--sizes 30000,100000,300000] [--no-reference]
     [--big [--big-lines 10000000] [--big-cases 100000]]   (--big adds part 3: tens of minutes)

1. For each size N: N cases against an N-line source (the synthetic data of bench_pipeline.py:
   template questions over a 6,000-word Zipf vocabulary, planted near-duplicates), through
   ``leakage_report`` (dev x holdout and cases x source, source streamed in chunks), each size in a
   fresh process so its peak RSS is its own. Targets at 300k: under 40 s and 1.5 GB; growth exponent
   log(t_max / t_min) / log(N_max / N_min) at most 1.5.
2. Exactness on the same data: the pair set equals the previous implementation (sparse prefix
   products, kept below as the reference) for sizes up to 100k, and a 3,000 x 3,000 sub-block equals
   an all-pairs dense computation.
3. With ``--big``, a ``--big-lines`` source file (written to a temporary folder first) against ``--big-cases`` cases,
   streamed from disk: local engine, then a 2-worker LocalCluster; time, peak RSS (client and each
   worker), and whether the two reports are identical.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import brute_block, synth  # noqa: E402

from assay.data.cases import CaseRecord  # noqa: E402
from assay.data.leakage import leakage_report, near_duplicates, words  # noqa: E402
from assay.data.leakage.sources import SourceFolder, SourceTexts  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_cases(rows) -> tuple[list, dict]:
    cases = [CaseRecord.model_construct(**r) for _, r in rows]
    sides = {c.id: ("holdout" if int(c.id[1:]) * 2654435761 % 100 < 30 else "dev") for c in cases}
    return cases, sides


def reference_join(left: list[str], right: list[str], t: float, block: int = 4096) -> set[tuple[int, int]]:
    """The previous implementation (prefix filter + sparse row products), for the exactness check."""
    from scipy import sparse

    lsets, rsets = [words(x) for x in left], [words(x) for x in right]
    vocab: dict[str, int] = {}
    for s in (*lsets, *rsets):
        for w in s:
            vocab.setdefault(w, len(vocab))

    def matrix(sets):
        indptr = np.r_[0, np.cumsum([len(s) for s in sets])]
        idx = np.fromiter((vocab[w] for s in sets for w in s), dtype=np.int64, count=int(indptr[-1]))
        m = sparse.csr_matrix((np.ones(idx.size, np.float32), idx, indptr), shape=(len(sets), len(vocab)))
        m.sort_indices()
        return m

    L, R = matrix(lsets), matrix(rsets)
    df = np.asarray(L.sum(0)).ravel() + np.asarray(R.sum(0)).ravel()
    rank = np.empty(len(vocab), np.int64)
    rank[np.lexsort((np.arange(len(vocab)), df))] = np.arange(len(vocab))

    def prefix(m):
        rows, cols = [], []
        for i in range(m.shape[0]):
            toks = m.indices[m.indptr[i]:m.indptr[i + 1]]
            keep = toks.size - math.ceil(t * toks.size - 1e-9) + 1
            chosen = toks[np.argsort(rank[toks], kind="stable")[:keep]]
            rows.append(np.full(chosen.size, i))
            cols.append(chosen)
        r, c = np.concatenate(rows), np.concatenate(cols)
        return sparse.csr_matrix((np.ones(r.size, np.float32), (r, c)), shape=m.shape)

    PL, PRt = prefix(L), prefix(R).T.tocsr()
    ls, rs = np.diff(L.indptr), np.diff(R.indptr)
    out = set()
    for start in range(0, L.shape[0], block):
        cand = (PL[start:start + block] @ PRt).tocoo()
        i, j = cand.row + start, cand.col
        a, b = ls[i], rs[j]
        ok = (b >= t * a - 1e-9) & (a >= t * b - 1e-9)
        i, j, a, b = i[ok], j[ok], a[ok], b[ok]
        inter = np.asarray(L[i].multiply(R[j]).sum(axis=1)).ravel()
        keep = inter / (a + b - inter) >= t - 1e-12
        out |= set(zip(i[keep].tolist(), j[keep].tolist(), strict=True))
    return out


def one_size(n: int, t: float, reference: bool) -> dict:
    rows, source = synth(n, n)
    cases, sides = make_cases(rows)
    base = peak_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    report = leakage_report(cases, sides, SourceTexts({"synthetic": source}), t)
    out = {"n": n, "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
           "peak_mb": peak_mb(), "data_mb": base, "dev_holdout": len(report["dev_holdout"]),
           "sources": len(report["sources"])}
    planted = {(rows[(k * 7) % n][1]["id"], k + 1) for k in range(0, n, 5000)}
    out["planted_found"] = len(planted & {(r["case"], r["line"]) for r in report["sources"]})
    out["planted"] = len(planted)
    qs = [c.question for c in cases]
    if reference:
        t0 = time.perf_counter()
        ref = reference_join(qs, source, t)
        out["reference_seconds"] = time.perf_counter() - t0
        ids = {c.id: k for k, c in enumerate(cases)}
        out["equals_reference"] = ref == {(ids[r["case"]], r["line"] - 1) for r in report["sources"]}
    rnd = random.Random(1)
    li, rj = rnd.sample(range(n), min(n, 3000)), rnd.sample(range(n), min(n, 3000))
    left, right = [qs[i] for i in li], [source[j] for j in rj]
    out["block_equals_all_pairs"] = {(i, j) for i, j, _ in near_duplicates(left, right, t)} == brute_block(left, right, t)
    return out


def write_big_source(path: Path, lines: int, cases: list[str], seed: int = 11) -> None:
    """``lines`` synthetic questions (bench_pipeline's generator), a case copied in every 5,000th line."""
    rnd = random.Random(seed)
    vocab = [f"{rnd.choice('bcdfghklmnprstvz')}{rnd.choice('aeiou')}{rnd.choice('bcdfghklmnprstvz')}{i}" for i in range(6000)]
    cum = np.cumsum([1 / (r + 1) for r in range(len(vocab))])
    nprnd = np.random.default_rng(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for start in range(0, lines, 100_000):
            size = min(100_000, lines - start)
            lengths = nprnd.integers(5, 13, size)
            picks = np.searchsorted(cum, nprnd.random(int(lengths.sum())) * cum[-1])
            ends = np.cumsum(lengths)
            out = []
            for k in range(size):
                if (start + k) % 5000 == 0:
                    out.append(cases[((start + k) * 7) % len(cases)])
                else:
                    out.append("how do i " + " ".join(vocab[p] for p in picks[ends[k] - lengths[k]:ends[k]]) + "?")
            fh.write("\n".join(out) + "\n")


def big(lines: int, n_cases: int, t: float, engine: str, folder: str) -> dict:
    rows, _ = synth(n_cases, 0)
    cases, sides = make_cases(rows)
    sources = SourceFolder(Path(folder), chunk_lines=100_000)
    workers = {}
    t0 = time.perf_counter()
    if engine == "dask":
        from distributed import Client, LocalCluster

        from assay.data.leakage.engine import DaskEngine

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            t0 = time.perf_counter()
            report = leakage_report(cases, sides, sources, t, engine=DaskEngine(client=client))
            seconds = time.perf_counter() - t0
            workers = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    else:
        report = leakage_report(cases, sides, sources, t)
        seconds = time.perf_counter() - t0
    digest = json.dumps(report, sort_keys=True)
    import hashlib

    return {"engine": engine, "lines": lines, "cases": n_cases, "seconds": seconds, "peak_mb": peak_mb(),
            "worker_peak_mb": sorted(workers.values()), "sources": len(report["sources"]),
            "dev_holdout": len(report["dev_holdout"]), "report_sha256": hashlib.sha256(digest.encode()).hexdigest()}


def child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="30000,100000,300000")
    ap.add_argument("--threshold", type=float, default=0.6)
    ap.add_argument("--big-lines", type=int, default=10_000_000)
    ap.add_argument("--big-cases", type=int, default=100_000)
    ap.add_argument("--no-reference", action="store_true")
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--no-sizes", action="store_true")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--big-run", help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one_size(args.one, args.threshold, not args.no_reference and args.one <= 100_000)))
        return
    if args.big_run:
        print(json.dumps(big(args.big_lines, args.big_cases, args.threshold, args.big_run, args.folder)))
        return
    if not args.no_sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
        results = []
        for n in sizes:
            r = child("--one", str(n), "--threshold", str(args.threshold), *(["--no-reference"] if args.no_reference else []))
            results.append(r)
            ref = (f", reference {r['reference_seconds']:.1f} s, identical: {r['equals_reference']}"
                   if "reference_seconds" in r else "")
            print(f"{n:>8} cases x {n} lines: {r['seconds']:6.1f} s (cpu {r['cpu_seconds']:.1f} s), peak {r['peak_mb']:.0f} MB "
                  f"(data {r['data_mb']:.0f} MB); {r['dev_holdout']} across the split, {r['sources']} with the source; "
                  f"planted {r['planted_found']}/{r['planted']}; 3000x3000 block = all pairs: {r['block_equals_all_pairs']}{ref}",
                  flush=True)
        if len(results) > 1:
            a, b = results[0], results[-1]
            exponent = math.log(b["seconds"] / a["seconds"]) / math.log(b["n"] / a["n"])
            cpu_exp = math.log(b["cpu_seconds"] / a["cpu_seconds"]) / math.log(b["n"] / a["n"])
            print(f"growth exponent {a['n']} -> {b['n']}: {exponent:.2f} (cpu {cpu_exp:.2f}); target <= 1.5")
    if args.big:
        with tempfile.TemporaryDirectory() as folder:
            rows, _ = synth(args.big_cases, 0)
            t0 = time.perf_counter()
            write_big_source(Path(folder) / "crawl.txt", args.big_lines, [r["question"] for _, r in rows])
            size = (Path(folder) / "crawl.txt").stat().st_size / 2**20
            print(f"wrote {args.big_lines} lines ({size:.0f} MB) in {time.perf_counter() - t0:.0f} s", flush=True)
            runs = []
            for engine in ("local", "dask"):
                r = child("--big-run", engine, "--folder", folder, "--big-lines", str(args.big_lines),
                          "--big-cases", str(args.big_cases), "--threshold", str(args.threshold))
                runs.append(r)
                print(f"{engine:>6}: {r['lines']} lines x {r['cases']} cases: {r['seconds']:.0f} s, peak {r['peak_mb']:.0f} MB"
                      + (f", workers {', '.join(f'{w:.0f}' for w in r['worker_peak_mb'])} MB" if r["worker_peak_mb"] else "")
                      + f"; {r['sources']} with the source", flush=True)
            print(f"dask report identical to local: {runs[0]['report_sha256'] == runs[1]['report_sha256']}")


if __name__ == "__main__":
    main()
