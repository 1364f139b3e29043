"""Coverage of the mean over repeated runs: the cluster-robust interval against Wilson over every run as if independent.

Per cell, per-case pass chances are drawn from a Beta (means 0.5 to 0.95, from spread out to concentrated),
each case is run k times, and the 95% interval of the mean over runs is checked against the Beta's mean,
``--reps`` times (seeded). Prints one row per cell (Beta, n, k) with the coverage of
:func:`assay.stats.clustered.clustered_share` and of the naive Wilson interval on the n * k runs, then the
worst cell of each. tests/test_clustered.py runs a smaller grid as a test.

Usage: ``python benchmarks/bench_repeats.py [--reps 1000] [--seed 1]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from assay.stats.clustered import clustered_share
from assay.stats.proportion import proportion_ci

BETAS = [(1.0, 1.0), (0.5, 0.5), (4.0, 1.0), (9.0, 1.0), (2.0, 0.2), (45.0, 5.0), (19.0, 1.0), (9.5, 0.5)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000, help="simulated evaluations per cell")
    parser.add_argument("--seed", type=int, default=1, help="the generator's seed")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.process_time()
    rows = []
    print(f"{'beta':>12} {'mean':>6} {'n':>4} {'k':>2} {'clustered':>10} {'naive':>7}")
    for a, b in BETAS:
        mu = a / (a + b)
        for n in (50, 200):
            for k in (1, 3, 5):
                p = rng.beta(a, b, size=(args.reps, n))
                s = rng.binomial(k, p)
                trials = np.full(n, k)
                clustered = naive = 0
                for r in range(args.reps):
                    share = clustered_share(s[r], trials)
                    clustered += share.low <= mu <= share.high
                    low, high = proportion_ci(int(s[r].sum()), n * k)
                    naive += low <= mu <= high
                rows.append(((a, b), n, k, clustered / args.reps, naive / args.reps))
                print(f"{f'({a:g}, {b:g})':>12} {mu:6.3f} {n:4d} {k:2d} {clustered / args.reps:10.3f} {naive / args.reps:7.3f}")
    worst = min(rows, key=lambda row: row[3])
    worst_naive = min(rows, key=lambda row: row[4])
    print(f"worst clustered: {worst[3]:.3f} at Beta{worst[0]}, n {worst[1]}, k {worst[2]}; "
          f"worst naive: {worst_naive[4]:.3f} at Beta{worst_naive[0]}, n {worst_naive[1]}, k {worst_naive[2]}; "
          f"{args.reps} reps per cell, {time.process_time() - started:.1f} CPU s")


if __name__ == "__main__":
    main()
