"""Time two-rater agreement over 1,000,000 label pairs (target: well under 5 s on 2 cores).

Run by hand: ``.venv/bin/python benchmarks/bench_agreement.py [N]``. It times the whole report
(observed, expected, kappa, its interval, confusion, disagreement count and list) from Python lists
of strings, the form labels come in from JSONL, and the same from numpy string arrays.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from assay.stats.agreement import agreement_report, contingency


def labels(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """Two raters over a/b/tie who agree about 70% of the time."""
    rng = np.random.default_rng(seed)
    names = np.array(["a", "b", "tie"], dtype=object)
    first = rng.integers(0, 3, n)
    second = np.where(rng.random(n) < 0.7, first, rng.integers(0, 3, n))
    return names[first].tolist(), names[second].tolist()


def timed(label: str, fn) -> object:
    start = time.perf_counter()
    out = fn()
    print(f"{label:<52} {time.perf_counter() - start:6.3f} s")
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    a, b = labels(n)
    ids = [f"p{i:07d}" for i in range(n)]
    print(f"{n:,} label pairs, 3 labels")
    timed("contingency table only (first call, incl. pandas import)", lambda: contingency(a, b))
    report, pairs = timed("full report + disagreement list (lists of str)",
                          lambda: agreement_report(ids, a, b))
    timed("full report, linear weights (lists of str)", lambda: agreement_report(ids, a, b, "linear"))
    na, nb = np.array(a), np.array(b)
    timed("full report (numpy <U3 arrays)", lambda: agreement_report(None, na, nb))
    print(f"kappa {report['kappa']:.4f}  interval {report['kappa_ci_low']:.4f} to {report['kappa_ci_high']:.4f}  "
          f"disagreements {report['disagreements']:,} (list of {len(pairs):,})")


if __name__ == "__main__":
    main()
