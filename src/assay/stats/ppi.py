"""Prediction-powered inference for a mean: a judge's scores on many cases, corrected by human labels on a few.

A judge scores ``N`` cases no person reads (``yhat_unlabeled``) and ``n`` cases a person also
labelled (``y`` the human value, ``yhat`` the judge's on the same case). The judge-only mean is
biased by exactly the judge's errors; the human-only mean of ``y`` is unbiased but wide. PPI
(Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, Science 2023) adds to the judge's mean the
average error it makes on the labelled cases; PPI++ (Angelopoulos, Duchi and Zrnic 2023,
arXiv:2311.01453) weights the judge by a power-tuning ``lam`` in [0, 1]::

    estimate = lam * mean(yhat_unlabeled) + mean(y - lam * yhat)
    se       = sqrt(var(lam * yhat_unlabeled) / N + var(y - lam * yhat) / n)     (variances with ddof 0)
    interval = estimate -/+ z * se,   z the normal quantile for ``level``

``lam = 1`` is classical PPI, ``lam = 0`` the human-only (CLT) interval. With ``lam=None`` the
variance-minimising value is estimated from the data and clipped to [0, 1]::

    lam = cov(y, yhat) / ((1 + n / N) * var(yhat and yhat_unlabeled pooled))

(the covariance with ddof 0 over the labelled cases, the pooled variance with ddof 1), so a judge
that carries no information gets ``lam`` near 0 and the interval falls back to about the human-only
one. With ``interval="z"`` these are exactly ppi-python's ``ppi_mean_ci`` /
``ppi_mean_pointestimate`` (unweighted, one-dimensional; its default ``alpha=0.1`` is a 90%
interval, here ``level=0.95``); tests/test_ppi.py compares the two to 1e-9.

The default, ``interval="bounded"``, is for values in [0, 1] (pass/fail, win values, rescaled
rubric scores): the same ``lam`` and estimate (so the point is still ppi-python's
``ppi_mean_pointestimate``), and the interval

    estimate -/+ t(n - 1) * sqrt(lam**2 var(yhat_unlabeled) / N + var4(y - lam * yhat) / n)

clipped to [0, 1], where ``var4`` is the ddof-1 variance of the labelled rectifier values plus six
pseudo-values: three human 0s and three human 1s, each with the judge's labelled mean as its
prediction (:data:`PSEUDO_LABELS`; Agresti and Caffo's "add successes and failures", used for the
variance only). The pseudo-values keep a width when every label agrees with the judge (a win rate
of 0.98 with 40 labels often has a rectifier of variance 0, and the plain ``"t"`` interval then
covers 0.47-0.55); they never move the centre, so the interval is centred on the estimate, and
they are divided by the real ``n``, so in the middle the width is the plain t interval's. Why six:
with all ``n`` labels 1 (``lam`` is then 0) the lower bound is about ``1 - 3.4 / n``, and a true
rate just below it gives n passes with probability about ``exp(-3.4) = 0.033``; four pseudo-values
give ``1 - 2.8 / n`` and a lower bound that covers only 0.940 at n 140, win rate 0.98 (the
audit's "add two and two" also moves the centre by ``2 / n``, which is what made it cover, and
what made it under-cover for good judges). The cost is width for very good judges at small n:
about 8% more than four at agreement 0.95, n 40. A value outside [0, 1] is refused: use ``"t"``
for other means.

Coverage of the default at 95%, by seeded simulation (benchmarks/bench_ppi.py: judges that flip
each human pass/fail label with probability 1 - agreement; agreement 0.6-0.98, win rates
0.02-0.98, n 40-500, N 1,000-100,000; 1,134 cells of 20,000 samples): worst two-sided 0.945
(agreement 0.6, win rate 0.5, n 100, N 1,000), worst lower bound 0.962 (agreement 0.7, win rate
0.95, n 500, N 10,000); tests/test_ppi.py runs 144 of those cells and asserts at least 0.93 and
0.95. Median width 0.98 of the plain human-only t interval's (0.30 for the best judges with
N >> n; up to 1.67 at the bounds, where the plain interval under-covers).

``interval="t"`` takes both variances with ddof 1 and the Student-t quantile with ``n - 1``
degrees of freedom, unclipped and with no pseudo-values. With 50 pass/fail labels the ``"z"``
interval covers only about 0.924 at 95% for a biased judge (TPR .92, FPR .25 at a 0.70 pass rate;
100,000 simulated samples), the ``"t"`` one 0.934. With ``lam = 0`` the ``"t"`` interval is
:func:`assay.stats.mean.mean_ci`'s (unclipped).

The labelled cases must be a uniform random sample of the same population as the unlabelled ones
(a random-fill review queue, never a hard fill), and they are not repeated in ``yhat_unlabeled``.

Helpers turn what people and judges record into values in [0, 1]: :func:`win_values` (a pairwise
choice: first = 1, second = 0, tie = 0.5) and :func:`rubric_values` (a 1-5 score as ``(s - 1) / 4``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Literal

import numpy as np

from assay.core.errors import AssayError


class PPIError(AssayError):
    """Inputs that do not describe a prediction-powered estimate: lengths, values, level or lam out of range."""

    exit_code = 2


@dataclass(frozen=True)
class PPIEstimate:
    """A mean with its interval, and how it was made.

    ``interval`` is ``"bounded"`` (the default: values in [0, 1], centred on the estimate, clipped),
    ``"t"`` (small-sample: ddof 1, Student t with ``n - 1`` df) or ``"z"`` (ppi-python's).

    Attributes:
        estimate: the point estimate.
        low, high: the interval; clipped to [0, 1] for ``"bounded"``, not for ``"t"`` or ``"z"`` (where a
            mean of values in [0, 1] can get a bound outside).
        se: the standard error behind the interval.
        lam: the judge's weight; 0 is the human-only estimate, 1 classical PPI.
        n: labelled cases (human and judge).
        n_unlabeled: judged-only cases.
        level: the interval's confidence level.
    """

    estimate: float
    low: float
    high: float
    se: float
    lam: float
    n: int
    n_unlabeled: int
    level: float
    interval: str

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low


def _vector(name: str, values: Sequence[float] | np.ndarray, minimum: int) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    if x.ndim != 1:
        raise PPIError(f"ppi_mean_ci: {name} has shape {x.shape}; give one value per case (a 1-d sequence)")
    if x.size < minimum:
        raise PPIError(f"ppi_mean_ci: {name} has {x.size} value(s); at least {minimum} are needed for a variance")
    if not np.isfinite(x).all():
        bad = int(np.flatnonzero(~np.isfinite(x))[0])
        raise PPIError(f"ppi_mean_ci: {name}[{bad}] is {float(x[bad])!r}; every value must be finite "
                       "(drop a case with a failed judge reply or a missing label, do not impute it)")
    return x


Interval = Literal["bounded", "t", "z"]
INTERVALS = ("bounded", "t", "z")

#: Human values added, each predicted by the judge's labelled mean, to the rectifier's variance of the
#: ``"bounded"`` interval (not to the estimate); see the module docstring.
PSEUDO_LABELS = (0.0, 0.0, 0.0, 1.0, 1.0, 1.0)


@lru_cache(maxsize=256)
def _quantile(level: float, interval: str, n: int) -> float:
    if not 0 < level < 1:
        raise PPIError(f"ppi_mean_ci: level {level!r} must be between 0 and 1, for example 0.95")
    if interval == "z":
        return NormalDist().inv_cdf(0.5 + level / 2)
    if interval in ("t", "bounded"):
        from scipy.stats import t

        return float(t.ppf(0.5 + level / 2, n - 1))
    raise PPIError(f"ppi_mean_ci: interval {interval!r} is not one of {', '.join(INTERVALS)}")


def ppi_mean_ci(y: Sequence[float] | np.ndarray, yhat: Sequence[float] | np.ndarray,
                yhat_unlabeled: Sequence[float] | np.ndarray, level: float = 0.95,
                lam: float | None = None, interval: Interval = "bounded") -> PPIEstimate:
    """PPI++ estimate of a mean with its normal interval (see the module docstring for the formulas).

    Args:
        y: the human values on the labelled cases.
        yhat: the judge's values on the same cases, in the same order.
        yhat_unlabeled: the judge's values on the cases nobody labelled.
        level: confidence level in (0, 1); ppi-python's ``alpha`` is ``1 - level``.
        lam: the judge's weight in [0, 1]; None estimates the variance-minimising one (PPI++),
            1 is classical PPI, 0 the human-only interval (``mean(y) -/+ q * std(y) / sqrt(n)``).
            The tuned ``lam`` is the same for both intervals.
        interval: ``"bounded"`` (default; values in [0, 1]: the t interval with the pseudo-values'
            variance, centred on the estimate and clipped to [0, 1]), ``"t"`` (ddof-1 variances,
            Student t with ``n - 1`` df, any values) or ``"z"`` (ddof-0 variances, normal quantile:
            exactly ppi-python's ``ppi_mean_ci``).

    Returns:
        A :class:`PPIEstimate`. When the judge's values do not vary at all (pooled variance 0)
        and ``lam`` is None, ``lam`` is 0: a constant judge carries no information (ppi-python
        gives nan there, 0 / 0). When ``y - lam * yhat`` and the judge's values are all
        constant, ``se`` is 0 and the interval is the point (never for ``"bounded"``: the
            pseudo-values keep a width).

    Raises:
        PPIError: ``y`` and ``yhat`` of different lengths, fewer than 2 labelled or 1 unlabelled
            values, a value that is not finite, ``level`` outside (0, 1), ``lam`` outside [0, 1],
            an unknown ``interval``, a value outside [0, 1] with ``"bounded"``.

    >>> e = ppi_mean_ci([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 1, 1, 0, 1, 1], lam=1.0)
    >>> e.estimate  # mean(yhat_unlabeled) + mean(y - yhat) = 0.75 + 0.25
    1.0
    >>> e.high, round(e.low, 3)  # clipped at 1; the pseudo-values keep a width below
    (1.0, 0.027)
    """
    y = _vector("y", y, 2)
    yhat = _vector("yhat", yhat, 2)
    u = _vector("yhat_unlabeled", yhat_unlabeled, 1)
    z = _quantile(level, interval, y.size)
    if y.size != yhat.size:
        raise PPIError(f"ppi_mean_ci: y has {y.size} values and yhat {yhat.size}; give the judge's value for each labelled case")
    if lam is not None and not 0.0 <= lam <= 1.0:  # also refuses nan
        raise PPIError(f"ppi_mean_ci: lam {lam!r} must be in [0, 1] (0: human only, 1: classical PPI) or None to tune it")
    if interval == "bounded":
        _within_unit(y=y, yhat=yhat, yhat_unlabeled=u)
    n, big_n = y.size, u.size
    # one pass over the large array: its mean and sum of squares about the mean. einsum, not `@`: a dot
    # product of 1-d arrays goes to BLAS, which may start threads (17 ms instead of 0.4 on 2 loaded cores)
    mean_u = float(u.mean())
    du = u - mean_u
    ss_u = float(np.einsum("i,i->", du, du))
    mean_y, mean_f = float(y.mean()), float(yhat.mean())
    dy, df = y - mean_y, yhat - mean_f
    ss_f = float(np.einsum("i,i->", df, df))
    if lam is None:
        cov = float(np.einsum("i,i->", dy, df)) / n
        # pooled sum of squares of yhat and yhat_unlabeled about their common mean (no concatenation)
        ss_pool = ss_u + ss_f + n * big_n / (n + big_n) * (mean_u - mean_f) ** 2
        var_pool = ss_pool / (n + big_n - 1)
        lam = 0.0 if var_pool == 0 else min(1.0, max(0.0, cov / ((1 + n / big_n) * var_pool)))
    lam = float(lam)
    estimate = lam * mean_u + (mean_y - lam * mean_f)
    dr = dy - lam * df
    ss_rect = float(np.einsum("i,i->", dr, dr))
    small = interval != "z"  # ddof 1
    values = n
    if interval == "bounded":
        ss_rect = _with_pseudo_labels(ss_rect, mean_y - lam * mean_f, n, lam * mean_f)
        values += len(PSEUDO_LABELS)
    var_rect = ss_rect / (values - 1 if small else values)
    var_imputed = lam * lam * ss_u / (max(big_n - 1, 1) if small else big_n)  # one judged case: no spread to estimate
    se = math.sqrt(var_imputed / big_n + var_rect / n)
    low, high = estimate - z * se, estimate + z * se
    if interval == "bounded":
        low, high = max(0.0, low), min(1.0, high)
    return PPIEstimate(estimate=estimate, low=low, high=high, se=se, lam=lam,
                       n=n, n_unlabeled=big_n, level=level, interval=interval)


def _within_unit(**arrays: np.ndarray) -> None:
    for name, x in arrays.items():
        if x.min() >= 0 and x.max() <= 1:
            continue
        bad = np.flatnonzero((x < 0) | (x > 1))
        if bad.size:
            raise PPIError(f"ppi_mean_ci: {name}[{int(bad[0])}] is {float(x[bad[0]])!r}, outside [0, 1]; the default "
                           "interval 'bounded' is for shares, win values and rescaled scores (fix: rescale the "
                           "values to [0, 1], or pass interval='t' for a mean of other values)")


def _with_pseudo_labels(ss: float, mean: float, n: int, prediction: float) -> float:
    """The sum of squares about their mean of ``n`` rectifier values (sum of squares ``ss``, mean ``mean``)
    and the pseudo-values ``h - prediction``, ``h`` in :data:`PSEUDO_LABELS` (no concatenation)."""
    extra = [h - prediction for h in PSEUDO_LABELS]
    pooled_mean = (n * mean + sum(extra)) / (n + len(extra))
    return ss + n * (mean - pooled_mean) ** 2 + sum((v - pooled_mean) ** 2 for v in extra)


WIN, LOSS, TIE = 1.0, 0.0, 0.5


def win_values(choices: Sequence[str], first: str = "first", second: str = "second", tie: str = "tie") -> np.ndarray:
    """A pairwise choice per case as a value: ``first`` 1, ``second`` 0, ``tie`` 0.5; its mean is the first's win rate.

    The labels are the caller's (the review queue's source letters are ``"a"``, ``"b"``, ``"tie"``).
    A failed or missing choice is not a tie: drop the case before calling.

    Raises:
        PPIError: a choice that is none of the three, naming its position and the valid set.

    >>> win_values(["a", "b", "tie", "a"], first="a", second="b").tolist()
    [1.0, 0.0, 0.5, 1.0]
    """
    value = {first: WIN, second: LOSS, tie: TIE}
    if len(value) != 3:
        raise PPIError(f"win_values: first {first!r}, second {second!r} and tie {tie!r} must be three different labels")
    out = np.empty(len(choices), dtype=float)
    for i, c in enumerate(choices):
        if c not in value:
            raise PPIError(f"win_values: choice {i} is {c!r}, not one of {first!r}, {second!r}, {tie!r}; "
                           "drop cases with no valid choice (a failed reply is not a tie)")
        out[i] = value[c]
    return out


RUBRIC_LOW, RUBRIC_HIGH = 1, 5


def rubric_values(scores: Sequence[float], low: int = RUBRIC_LOW, high: int = RUBRIC_HIGH) -> np.ndarray:
    """Rubric scores on ``low``..``high`` (default 1-5) rescaled to [0, 1]: ``(s - low) / (high - low)``.

    Fractional scores (an average of criteria) are allowed within the range.

    Raises:
        PPIError: a score outside [low, high] or not finite, naming its position; ``low >= high``.

    >>> rubric_values([1, 3, 5, 4.5]).tolist()
    [0.0, 0.5, 1.0, 0.875]
    """
    if not low < high:
        raise PPIError(f"rubric_values: low {low!r} must be below high {high!r}")
    s = np.asarray(scores, dtype=float)
    bad = np.flatnonzero(~np.isfinite(s) | (s < low) | (s > high)) if s.size else np.array([], dtype=int)
    if len(bad):
        raise PPIError(f"rubric_values: score {int(bad[0])} is {float(s[bad[0]])!r}, outside {low}..{high}; "
                       "drop unscored cases, or give the rubric's range as low/high")
    return (s - low) / (high - low)
