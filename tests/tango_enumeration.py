"""Exact coverage of Tango's paired interval by enumeration, for every n at once in numpy.

Tango's limits depend only on the discordant counts (better ``b``, worse ``c``) and ``n``, and
``(b, c, rest)`` is Multinomial(n, (improve, regress, 1 - improve - regress)); so the coverage at a
pair of discordant probabilities is the multinomial mass of the ``(b, c)`` whose interval holds the
true difference. :func:`limits` computes the interval of every ``(b, c)`` of one ``n`` at once, by
a vectorised bisection of Tango's score written again here from Tango (1998), eq. 3 (tests/test_paired.py
checks it equals :func:`assay.stats.paired.paired_diff_ci` to 1e-9). Used by tests/test_paired.py and
benchmarks/bench_tango.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy.special import gammaln
from scipy.stats import norm

Z95 = float(norm.ppf(0.975))


def _score(b: np.ndarray, c: np.ndarray, n: int, d: np.ndarray) -> np.ndarray:
    """Tango's score ``(b - c - n d) / sqrt(n (2 q + d (1 - d)))``, q the constrained MLE of P(worse)."""
    big_b = -b - c + (2 * n - b + c) * d
    big_c = -c * d * (1 - d)
    q = (np.sqrt(np.maximum(big_b * big_b - 8 * n * big_c, 0.0)) - big_b) / (4 * n)
    top = b - c - n * d
    spread = n * (2 * q + d * (1 - d))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(spread > 0, top / np.sqrt(np.where(spread > 0, spread, 1.0)),
                        np.where(top == 0, 0.0, np.sign(top) * np.inf))


@cache
def limits(n: int, z: float = Z95, most: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(b, c, low, high)`` for every pair with ``b + c <= most`` (default n), clipped as the library clips."""
    most = n if most is None else min(n, most)
    b, c = (x.ravel() for x in np.meshgrid(np.arange(most + 1), np.arange(most + 1), indexing="ij"))
    keep = b + c <= most
    b, c = b[keep].astype(float), c[keep].astype(float)

    def root(target: float) -> np.ndarray:
        lo, hi = np.full(b.size, -1.0), np.full(b.size, 1.0)
        for _ in range(60):  # 2 / 2**60: below 1e-17
            mid = (lo + hi) / 2
            above = _score(b, c, n, mid) > target
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        return (lo + hi) / 2

    diff = (b - c) / n
    low = np.where(c == n, -1.0, root(z))
    high = np.where(b == n, 1.0, root(-z))
    return b, c, np.maximum(-1.0, np.minimum(low, diff)), np.minimum(1.0, np.maximum(high, diff))


@dataclass(frozen=True)
class Coverage:
    two_sided: float
    lower: float  # P(low <= truth)
    upper: float  # P(truth <= high)


def coverage(n: int, improve: float, regress: float) -> Coverage:
    """Exact coverage at discordant probabilities ``improve`` (better) and ``regress`` (worse) on ``n`` cases."""
    share = improve + regress
    most = int(min(n, np.ceil(n * share + 12 * np.sqrt(n * share * (1 - share)) + 12)))  # mass beyond: < 1e-30
    b, c, low, high = limits(n, Z95, most)
    rest = n - b - c
    logp = gammaln(n + 1) - gammaln(b + 1) - gammaln(c + 1) - gammaln(rest + 1)
    for k, p in ((b, improve), (c, regress), (rest, 1 - share)):
        logp = logp + (np.where(k > 0, k * np.log(p), 0.0) if p > 0 else np.where(k > 0, -np.inf, 0.0))
    prob = np.exp(logp)
    truth = improve - regress
    below, above = low <= truth + 1e-12, truth - 1e-12 <= high
    return Coverage(float(prob[below & above].sum()), float(prob[below].sum()), float(prob[above].sum()))
