"""Overhead of ``compare`` over the statistics it reports: 100,000 synthetic paired cases.

    .venv/bin/python benchmarks/bench_compare.py [--cases 100000] [--repeats 5]

Two run tables over the same ids are written to Parquet and read back with
:func:`assay.rag.compare.read_run`, as the compare stage does; the split (40% holdout) is the split
table the stage passes. Two layouts of the candidate's rows: sorted by id (what the evaluate stage
writes) and shuffled (pairing has to look every id up).

- ``compare_runs``: the library call the stage makes (pairing by id, split check, holdout filter,
  counts, every statistic, by-task rates, per-metric regressions and the id lists).
- ``direct``: the underlying tests called directly on the holdout rows already paired: the
  columns read into numpy arrays (from the run tables read by read_run, rows already aligned and
  filtered), numpy counts, then proportion_ci for both pass rates and each task, paired_diff_ci,
  sign_test, mcnemar_exact and the regression counts. ``tests only`` is the same without reading
  the columns (arrays handed over ready).

Prints the best of ``--repeats`` for each, and the ratios (target: compare within 2x of direct).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from assay.data.cases import TASKS
from assay.data.split import split_table
from assay.rag.compare import NO_REGRESSION, TOOL_COLUMNS, compare_runs, read_run
from assay.stats.paired import mcnemar_exact, paired_diff_ci, sign_test
from assay.stats.proportion import proportion_ci


def synthetic(n: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """Baseline passes 80%; the candidate flips 5% of cases; ``None`` where a metric is undefined."""
    rng = np.random.default_rng(seed)
    ids = np.array([f"c{i:06d}" for i in range(n)], dtype=object)
    tasks = rng.choice(TASKS, size=n)
    tool = rng.random(n) < 0.1  # a tenth are tool cases: the tool-use columns are undefined on the rest
    base = rng.random(n) < 0.8
    cand = np.where(rng.random(n) < 0.05, rng.random(n) < 0.9, base)

    def table(passed, order):
        answer = tasks[order] != "unanswerable"
        p = passed[order]
        col = pd.Series(np.where(answer, p, None), dtype=object)
        return pd.DataFrame({"id": ids[order], "task": tasks[order], "passed": p, "answer_correct": col,
                             "abstain_correct": pd.Series(np.where(answer, None, p), dtype=object),
                             "citation_support": col, "format_ok": np.ones(n, dtype=bool),
                             **dict.fromkeys(TOOL_COLUMNS, pd.Series(np.where(tool[order], p, None), dtype=object))})

    sides = dict(zip(ids.tolist(), np.where(rng.random(n) < 0.4, "holdout", "dev").tolist(), strict=True))
    return table(base, np.arange(n)), table(cand, rng.permutation(n)), sides


def arrays(b, c) -> dict:
    """The columns the tests read, as numpy arrays, from run tables (pandas or pyarrow) already aligned by id."""
    def col(t, name, dtype):
        x = t[name]
        return x.to_numpy(zero_copy_only=False).astype(dtype) if hasattr(x, "combine_chunks") else x.to_numpy().astype(dtype)

    tasks = col(b, "task", object)
    out = {"pb": col(b, "passed", bool), "pc": col(c, "passed", bool), "tasks": [tasks == t for t in TASKS]}
    for metric in NO_REGRESSION:
        out[metric] = (col(b, metric, "float64"), col(c, metric, "float64"))
    return out


def direct(a: dict):
    """The underlying tests on aligned arrays: numpy counts, then every statistic compare reports."""
    pb, pc = a["pb"], a["pc"]
    better, worse = int((~pb & pc).sum()), int((pb & ~pc).sum())
    still = int((~pb & ~pc).sum())
    both = len(pb) - better - worse - still
    out = [mcnemar_exact(both, worse, better, still), paired_diff_ci(both, worse, better, still),
           sign_test(better, worse), proportion_ci(int(pb.sum()), len(pb)), proportion_ci(int(pc.sum()), len(pc))]
    for at in a["tasks"]:
        n = int(at.sum())
        out.append((proportion_ci(int(pb[at].sum()), n), proportion_ci(int(pc[at].sum()), n)))
    for metric in NO_REGRESSION:
        vb, vc = a[metric]
        out.append((int(((vb == 1.0) & (vc == 0.0)).sum()), int((~np.isnan(vb) & ~np.isnan(vc)).sum())))
    return out


def best_of(repeats: int, fn) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    base, cand, sides = synthetic(args.cases)
    try:  # what the compare stage passes: the split table (before it paired by index: the id -> side dict)
        from assay.data.split import read_split_table  # noqa: F401
        split = split_table(sides)
    except ImportError:
        split = sides
    holdout = np.array([sides[i] == "holdout" for i in base["id"].tolist()])
    c_aligned = cand.set_index("id").loc[base["id"]].reset_index()  # the direct floor is handed aligned rows
    with tempfile.TemporaryDirectory() as tmp:  # the holdout rows, aligned, as read_run reads them
        base[holdout].to_parquet(Path(tmp) / "b.parquet")
        c_aligned[holdout].to_parquet(Path(tmp) / "c.parquet")
        b_hold, c_hold = read_run(Path(tmp) / "b.parquet"), read_run(Path(tmp) / "c.parquet")
    ready = arrays(b_hold, c_hold)
    t_tests, out = best_of(args.repeats, lambda: direct(ready))
    t_direct, _ = best_of(args.repeats, lambda: direct(arrays(b_hold, c_hold)))
    print(f"{args.cases:,} cases ({int(holdout.sum()):,} on the holdout), best of {args.repeats}")
    print(f"tests only (arrays ready): {t_tests * 1000:8.1f} ms")
    print(f"direct (columns + tests) : {t_direct * 1000:8.1f} ms")
    for layout, c in (("sorted", c_aligned), ("shuffled", cand)):
        with tempfile.TemporaryDirectory() as tmp:
            base.to_parquet(Path(tmp) / "b.parquet")
            c.to_parquet(Path(tmp) / "c.parquet")
            b_run, c_run = read_run(Path(tmp) / "b.parquet"), read_run(Path(tmp) / "c.parquet")
        t_compare, (metrics, _) = best_of(args.repeats, lambda b_run=b_run, c_run=c_run: compare_runs(b_run, c_run, split))
        if out[2] != metrics.p_sign or out[3][0] != metrics.baseline_pass_rate.ci_low:
            raise SystemExit("direct and compare disagree")
        print(f"compare_runs ({layout:8}): {t_compare * 1000:8.1f} ms  {t_compare / t_direct:6.2f}x direct, "
              f"{t_compare / t_tests:6.2f}x tests only")
    print("target: compare_runs within 2x of direct")


if __name__ == "__main__":
    main()
