"""Time ppi_mean_ci at n = 500 labels and N = 100,000 judged cases (target: under 5 ms, single-threaded),
and print the coverage grids: judge quality x labelled n x judged N, with PPI++'s mean width over the
human-only one's, and the default interval's worst cells over agreement x win rate x n x N.

Run by hand: ``.venv/bin/python benchmarks/bench_ppi.py [REPS]`` (samples per coverage cell, default
100,000; the worst-cell grid uses REPS / 5). Timing is the median of 200 calls on fresh arrays, with ppi-python's ``ppi_mean_ci``
beside it when it is installed. Coverage uses tests/ppi_simulation.py (pass/fail values summed up
by their counts; tests/test_ppi.py checks it computes ppi_mean_ci's statistic sample by sample).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

from assay.stats.ppi import ppi_mean_ci

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from ppi_simulation import PASS_RATE, cell, flip_rates, judge_rates  # noqa: E402


def median_ms(fn, y, f, u, calls: int = 200) -> float:
    fn(y, f, u)  # warm (imports, caches)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn(y, f, u)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def timing() -> None:
    rng = np.random.default_rng(0)
    n, big_n = 500, 100_000
    y = (rng.random(n) < 0.7).astype(float)
    f = np.where(rng.random(n) < 0.85, y, 1 - y)
    u = (rng.random(big_n) < 0.72).astype(float)
    print(f"ppi_mean_ci, n = {n}, N = {big_n:,} (median of 200 calls)")
    print(f"  assay interval='bounded' (default) {median_ms(lambda *a: ppi_mean_ci(*a), y, f, u):6.2f} ms")
    print(f"  assay interval='t'             {median_ms(lambda *a: ppi_mean_ci(*a, interval='t'), y, f, u):6.2f} ms")
    print(f"  assay interval='z'             {median_ms(lambda *a: ppi_mean_ci(*a, interval='z'), y, f, u):6.2f} ms")
    try:
        import ppi_py
    except ImportError:
        print("  ppi-python                     not installed")
    else:
        print(f"  ppi-python ppi_mean_ci         {median_ms(lambda *a: ppi_py.ppi_mean_ci(*a, alpha=0.05), y, f, u):6.2f} ms")
        print(f"  ppi-python + pointestimate     "
              f"{median_ms(lambda *a: (ppi_py.ppi_mean_ci(*a, alpha=0.05), ppi_py.ppi_mean_pointestimate(*a)), y, f, u):6.2f} ms")


def grid(reps: int) -> None:
    judges = {f"agree {a:.2f}": judge_rates(a) for a in (0.60, 0.70, 0.80, 0.90, 0.95)}
    judges["TPR .92 FPR .25"] = (0.92, 0.25)
    print(f"\ncoverage of 95% intervals, pass rate {PASS_RATE}, {reps:,} samples per cell; "
          "ratio = mean PPI++ width / mean human-only width")
    print(f"{'judge':<16}{'n':>5}{'N':>9}  {'default':>8}{'lower':>7}{'PPI t':>7}{'PPI z':>7}{'human':>7}{'ratio':>7}")
    worst = (2.0, "")
    for name, (tpr, fpr) in judges.items():
        for n in (50, 100, 200, 500):
            for big_n in (1_000, 10_000, 100_000):
                seed = n * 7 + big_n
                b = cell(tpr, fpr, n, big_n, reps, seed)
                t, z = cell(tpr, fpr, n, big_n, reps, seed, interval="t"), cell(tpr, fpr, n, big_n, reps, seed, interval="z")
                print(f"{name:<16}{n:>5}{big_n:>9,}  {b.coverage:8.4f}{b.lower:7.4f}{t.coverage:7.4f}{z.coverage:7.4f}"
                      f"{b.coverage_human:7.4f}{b.width_ratio_t:7.3f}")
                worst = min(worst, (b.coverage, f"{name}, n = {n}, N = {big_n:,}"))
    print(f"worst default coverage: {worst[0]:.4f} ({worst[1]})")


def worst_cells(reps: int, show: int = 8) -> None:
    """The default interval over judges that flip a label with probability 1 - agreement (any win rate)."""
    rows = []
    for a in (0.6, 0.7, 0.8, 0.9, 0.95, 0.98):
        for p in (0.02, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.98):
            for n in (40, 70, 100, 140, 200, 300, 500):
                for big_n in (1_000, 10_000, 100_000):
                    c = cell(*flip_rates(a), n, big_n, reps, seed=hash((a, p, n, big_n)) % 2**31, pass_rate=p)
                    rows.append((a, p, n, big_n, c))
    print(f"\ndefault interval (bounded), flip judges: {len(rows)} cells (agreement 0.6-0.98, win rate 0.02-0.98, "
          f"n 40-500, N 1,000-100,000), {reps:,} samples per cell")
    header = f"{'agree':>6}{'win':>6}{'n':>5}{'N':>9}  {'2-sided':>8}{'lower':>7}{'human':>7}{'ratio t':>8}{'ratio':>7}"
    for title, key in (("two-sided", lambda r: r[4].coverage), ("lower bound", lambda r: r[4].lower)):
        print(f"worst {show} cells by {title} coverage\n{header}")
        for a, p, n, big_n, c in sorted(rows, key=key)[:show]:
            print(f"{a:6.2f}{p:6.2f}{n:5d}{big_n:9,}  {c.coverage:8.4f}{c.lower:7.4f}{c.coverage_human:7.4f}"
                  f"{c.width_ratio_t:8.3f}{c.width_ratio:7.3f}")
    ratios = sorted(r[4].width_ratio_t for r in rows)
    print("width over the plain human-only t interval's (ratio t): "
          f"min {ratios[0]:.3f}, median {ratios[len(ratios) // 2]:.3f}, max {ratios[-1]:.3f}; "
          "over the default human-only one's (ratio): "
          f"median {sorted(r[4].width_ratio for r in rows)[len(rows) // 2]:.3f}")


if __name__ == "__main__":
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    timing()
    grid(reps)
    worst_cells(max(1_000, reps // 5))
