"""Coverage and width of the betting mean (running intersection, the default) against the betting
interval at t = n only (``method="betting_final"``, the old default) and Student's t (clipped).

Run by hand: ``.venv/bin/python benchmarks/bench_mean.py [REPS]`` (default 1,000 seeded samples a
cell). Cells: Bernoulli(mu) and Beta(2 mu, 2 (1 - mu)) at mu 0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98, an
nDCG-like mixture (80% at 1, the rest uniform; mean 0.9), and n 10, 20, 50, 100, 200, 500. Prints per
cell the coverage of each interval and the median width ratios running / final and running / t (over
samples where the t interval has a width), then the worst running-intersection cell. Several minutes
of CPU at the default REPS.
"""

from __future__ import annotations

import sys

import numpy as np

from assay.stats.mean import mean_ci

MEANS = (0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98)
SIZES = (10, 20, 50, 100, 200, 500)


def sample(kind: str, mu: float, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "bernoulli":
        return (rng.random(n) < mu).astype(float)
    if kind == "beta":
        return rng.beta(2 * mu, 2 * (1 - mu), n)
    return np.where(rng.random(n) < 0.8, 1.0, rng.random(n))  # ndcg-like, mean 0.9


def main(reps: int) -> None:
    rng = np.random.default_rng(2023)
    cells = [(kind, mu) for kind in ("bernoulli", "beta") for mu in MEANS] + [("ndcg-like", 0.9)]
    print(f"betting mean, {reps} samples a cell; coverage of running / final / t, median width ratios")
    print(f"{'data':<10}{'mean':>6}{'n':>5}{'run':>8}{'final':>8}{'t':>8}{'run/fin':>9}{'run/t':>8}")
    worst = (2.0, "", 0.0, 0)
    for kind, mu in cells:
        for n in SIZES:
            hits = np.zeros(3)
            vs_final, vs_t = [], []
            for _ in range(reps):
                x = sample(kind, mu, n, rng)
                run = mean_ci(x, bounds=(0.0, 1.0))
                fin = mean_ci(x, bounds=(0.0, 1.0), method="betting_final")
                t = mean_ci(x, bounds=(0.0, 1.0), method="t")
                hits += [lo <= mu <= hi for lo, hi in (run, fin, t)]
                vs_final.append((run[1] - run[0]) / (fin[1] - fin[0]))
                if t[1] > t[0]:
                    vs_t.append((run[1] - run[0]) / (t[1] - t[0]))
            cover = hits / reps
            worst = min(worst, (float(cover[0]), kind, mu, n))
            ratio_t = f"{np.median(vs_t):8.2f}" if vs_t else f"{'-':>8}"
            print(f"{kind:<10}{mu:6.2f}{n:5d}{cover[0]:8.3f}{cover[1]:8.3f}{cover[2]:8.3f}"
                  f"{np.median(vs_final):9.3f}{ratio_t}", flush=True)
    print(f"worst running-intersection coverage: {worst}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
