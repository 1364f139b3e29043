"""How many cases or labels a decision needs: power of the paired test, kappa's lower bound, PPI's width.

Three questions an evaluation lead asks before labelling, each answered from a few rates:

- :func:`holdout_size` / :func:`paired_power` / :func:`detectable_change`: the holdout size at which
  a paired change in pass rate is detected (two-sided, at ``level``) with a given power, given the
  discordance (the share of cases on which the two versions differ, ``better + worse``). Two
  methods:

  * ``"exact"`` (default): the exact power of the exact McNemar test the pipeline runs
    (:func:`assay.stats.paired.mcnemar_exact`, detected when its p <= 1 - level), summed over
    the binomial number of discordant cases. No approximation; the tests check it against a
    seeded simulation of that test.
  * ``"normal"``: the unconditional McNemar z-test (Connor 1987, Biometrics 43:207), variance
    ``discordance`` under no change and ``discordance - change**2`` under the change; this is
    statsmodels' ``normal_power_het`` with those two standard deviations, and its sample size
    ``((z_a sqrt(psi) + z_b sqrt(psi - d**2)) / d)**2``.

- :func:`kappa_pairs`: labelled pairs needed for Cohen's kappa's lower bound (the pipeline's
  ``kappa - z * se`` with the large-sample se of Fleiss, Cohen and Everitt 1969) to clear
  ``min_kappa`` with a given probability, when the true kappa is ``expected``, for two pass/fail
  raters. By seeded simulation of that bound; the large-sample formula
  ``n = v * (z_level + z_power)**2 / (expected - min_kappa)**2`` is reported beside it and is
  optimistic (about 0.74 instead of 0.8 at the size it gives for kappa 0.8 against 0.6).

- :func:`ppi_labels`: human labels PPI++ needs for a target interval width, given the judge's
  moments (:class:`JudgeMoments`: from its TPR/FPR, its agreement, or a correlation) and the
  number of judged-only cases. With ``rho`` the judge-human correlation and the power-tuned
  weight, the variance is ``var_y / n * (1 - rho**2 * N / (N + n))`` (when the weight is not
  clipped at 1); the smallest ``n`` reaching the width is found by bisection on the exact
  expression with clipping.

:func:`threshold_check` puts (a) to a plan's blocking metric: the smallest change its holdout
detects, and a warning when the threshold sits closer to the current value than that.

Sizes come back as frozen dataclasses; bad inputs raise :class:`PowerError` naming the
argument, its value and the valid range.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

from assay.core.errors import AssayError

Method = Literal["exact", "normal"]
METHODS = ("exact", "normal")
MAX_N = 1_000_000  # sizes beyond this are reported as unreachable rather than searched for
_N = NormalDist()


class PowerError(AssayError):
    """A rate, level or power outside its range, or a change the data could not show."""

    exit_code = 2


def _check(name: str, value: float, low: float, high: float, closed: tuple[bool, bool] = (False, False)) -> float:
    ok_low = value >= low if closed[0] else value > low
    ok_high = value <= high if closed[1] else value < high
    if not (isinstance(value, (int, float)) and ok_low and ok_high):  # nan fails both comparisons
        brackets = ("[" if closed[0] else "(") + f"{low}, {high}" + ("]" if closed[1] else ")")
        raise PowerError(f"{name} {value!r} must be in {brackets}")
    return float(value)


def _z_two(level: float) -> float:
    return _N.inv_cdf(0.5 + level / 2)


# ---------------------------------------------------------------------------------------------
# (a) paired change in pass rate


@dataclass(frozen=True)
class HoldoutPower:
    """Cases needed to detect a paired change.

    Attributes:
        n: a holdout size whose power reaches ``target`` while ``n - 1``'s does not (the normal
            power rises with n, so that is the smallest; the exact test's is saw-toothed, see
            :func:`holdout_size`).
        power: the power at ``n``.
        change: the change in pass rate to detect (candidate minus baseline).
        discordance: the share of cases the two versions score differently.
        target: the power asked for.
        level: the test's confidence level (two-sided test at ``1 - level``).
        method: ``"exact"`` or ``"normal"``.
    """

    n: int
    power: float
    change: float
    discordance: float
    target: float
    level: float
    method: str


def _paired_args(change: float, discordance: float, level: float) -> tuple[float, float, float]:
    _check("discordance", discordance, 0.0, 1.0, (False, True))
    _check("level", level, 0.0, 1.0)
    if not (isinstance(change, (int, float)) and 0 < abs(change) <= discordance):
        raise PowerError(f"change {change!r} must be non-zero and at most the discordance {discordance!r} in size "
                         "(a change of d needs at least d of the cases to differ between the versions)")
    return float(change), float(discordance), float(level)


def _exact_power(n: int, change: float, discordance: float, level: float) -> float:
    """Exact power of the exact McNemar test (p <= 1 - level) on n cases."""
    from scipy.stats import binom

    alpha = 1 - level
    # the number of discordant cases is Binomial(n, discordance); outside 12 sd of its mean the weights are < 1e-30
    mean, sd = n * discordance, math.sqrt(n * discordance * (1 - discordance))
    m = np.arange(max(0, math.floor(mean - 12 * sd)), min(n, math.ceil(mean + 12 * sd)) + 1)
    # the sign test rejects at x <= c or x >= m - c, c the largest with 2 * P(X <= c | 1/2) <= alpha
    c = binom.ppf(alpha / 2, m, 0.5)
    c = np.where(2 * binom.cdf(c, m, 0.5) <= alpha * (1 + 1e-12), c, c - 1)
    q = (discordance + change) / (2 * discordance)  # P(better | discordant)
    reject = np.where(c >= 0, binom.cdf(c, m, q) + binom.sf(m - c - 1, m, q), 0.0)  # the tails are disjoint: c < m / 2
    weights = binom.pmf(m, n, discordance)
    return float(min(1.0, weights @ reject))


def _normal_power(n: float, change: float, discordance: float, level: float) -> float:
    z = _z_two(level)
    sd0, sd1 = math.sqrt(discordance), math.sqrt(max(discordance - change * change, 0.0))
    shift = abs(change) * math.sqrt(n)
    if sd1 == 0:
        return 1.0 if shift > z * sd0 else 0.0
    return _N.cdf((shift - z * sd0) / sd1) + _N.cdf((-shift - z * sd0) / sd1)


def paired_power(n: int, change: float, discordance: float, level: float = 0.95, method: Method = "exact") -> float:
    """Power to detect ``change`` on ``n`` paired cases with ``discordance`` (see the module docstring).

    Raises:
        PowerError: ``n < 1``; discordance outside (0, 1]; change 0 or larger than the discordance;
            level outside (0, 1); an unknown method.

    >>> round(paired_power(100, 0.1, 0.2, method="normal"), 4)
    0.6115
    """
    change, discordance, level = _paired_args(change, discordance, level)
    if not isinstance(n, int) or n < 1:
        raise PowerError(f"n {n!r} must be a whole number of cases, at least 1")
    if method == "exact":
        return _exact_power(n, change, discordance, level)
    if method == "normal":
        return _normal_power(n, change, discordance, level)
    raise PowerError(f"method {method!r} is not one of {', '.join(METHODS)}")


def _first_reaching(ok: Callable[[int], bool], start: int) -> int:
    """An n with ``ok(n)`` and not ``ok(n - 1)`` (or n = 1), bracketed from ``start`` by doubling steps, then bisected."""
    step = max(1, start // 50)
    if ok(start):
        hi, lo = start, start - step
        while lo >= 1 and ok(lo):
            hi, lo, step = lo, lo - 2 * step, 2 * step
        lo = max(lo, 0)
    else:
        lo, hi = start, start + step
        while not ok(hi):
            lo, hi, step = hi, hi + 2 * step, 2 * step
            if hi > MAX_N:
                raise PowerError(f"the exact test needs more than {MAX_N:,} cases")
    while hi - lo > 1:  # ok(hi); not ok(lo), or lo = 0
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def holdout_size(change: float, discordance: float, power: float = 0.8, level: float = 0.95,
                 method: Method = "exact") -> HoldoutPower:
    """The smallest holdout on which ``change`` is detected with probability ``power``.

    The normal size is Connor's closed form, rounded up. The exact test's power is saw-toothed in
    n (the rejection region moves in whole cases), so the exact size is found from the normal one
    by bracketing and bisection: it reaches the power and the size one below does not; a few
    sizes further below may reach it too, and some sizes just above may not.

    Raises:
        PowerError: as :func:`paired_power`; power outside (0, 1); a size above 1,000,000.

    >>> holdout_size(0.1, 0.2, method="normal").n  # ((1.96 sqrt(.2) + 0.8416 sqrt(.19)) / .1)**2 = 154.8
    155
    """
    change, discordance, level = _paired_args(change, discordance, level)
    _check("power", power, 0.0, 1.0)
    if method not in METHODS:
        raise PowerError(f"method {method!r} is not one of {', '.join(METHODS)}")
    z_a, z_b = _z_two(level), _N.inv_cdf(power)
    sd0, sd1 = math.sqrt(discordance), math.sqrt(discordance - change * change)
    n = max(1, math.ceil(((z_a * sd0 + z_b * sd1) / abs(change)) ** 2 - 1e-9))
    if n > MAX_N:
        raise PowerError(f"detecting a change of {change} with discordance {discordance} needs more than {MAX_N:,} cases")
    if method == "exact":
        n = _first_reaching(lambda k: _exact_power(k, change, discordance, level) >= power, n)
    achieved = paired_power(n, change, discordance, level, method)
    return HoldoutPower(n=n, power=achieved, change=change, discordance=discordance, target=power, level=level,
                        method=method)


@dataclass(frozen=True)
class DetectableChange:
    """The smallest change in pass rate detectable on a holdout (both directions are symmetric)."""

    change: float
    n: int
    discordance: float
    power: float
    level: float
    method: str


def detectable_change(n: int, discordance: float, power: float = 0.8, level: float = 0.95,
                      method: Method = "normal") -> DetectableChange:
    """The smallest ``|change|`` that ``n`` paired cases detect with probability ``power``.

    ``None`` is not returned: when even a change equal to the discordance is not detected,
    :class:`PowerError` says so. Found by bisection on the (monotone in change) power to 1e-6.

    >>> round(detectable_change(155, 0.2).change, 3)  # the inverse of holdout_size's doctest
    0.1
    """
    _check("discordance", discordance, 0.0, 1.0, (False, True))
    _check("power", power, 0.0, 1.0)
    if not isinstance(n, int) or n < 1:
        raise PowerError(f"n {n!r} must be a whole number of cases, at least 1")
    if paired_power(n, discordance, discordance, level, method) < power:
        raise PowerError(f"{n} cases with discordance {discordance} cannot detect any change with power {power}: "
                         "even a change as large as the discordance is missed; add cases")
    lo, hi = 0.0, discordance
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        if mid > 0 and paired_power(n, mid, discordance, level, method) >= power:
            hi = mid
        else:
            lo = mid
    return DetectableChange(change=hi, n=n, discordance=discordance, power=power, level=level, method=method)


@dataclass(frozen=True)
class ThresholdCheck:
    """Whether a holdout can tell a metric's threshold from its current value.

    Attributes:
        name: the metric.
        n: holdout cases.
        value, threshold: the current value (a share of cases) and the plan's threshold.
        discordance: the share of cases two versions score differently, observed or assumed.
        discordance_source: ``"observed"`` or ``"assumed: 2 p (1 - p)"`` (independent outcomes at the current value).
        detectable: the smallest paired change detected with ``power``; None when none is.
        margin: ``|value - threshold|``; None when either is missing.
        warning: why the threshold is not testable on this holdout, or None.
        power, level, method: as for :func:`detectable_change`.
    """

    name: str
    n: int
    value: float | None
    threshold: float | None
    discordance: float | None
    discordance_source: str
    detectable: float | None
    margin: float | None
    warning: str | None
    power: float
    level: float
    method: str


def threshold_check(name: str, n: int, value: float | None, threshold: float | None, discordance: float | None = None,
                    power: float = 0.8, level: float = 0.95, method: Method = "exact") -> ThresholdCheck:
    """The smallest change a holdout of ``n`` cases detects on a share metric, and a warning when the
    plan's threshold sits closer to the current value than that.

    ``discordance`` is the share of cases the versions score differently on this metric, when it has
    been observed; without it the two versions' outcomes are taken as independent at the current
    value, ``2 p (1 - p)`` (versions that agree case by case more often than that have a lower
    discordance and detect smaller changes: this errs on the side of warning). Meant for the plan
    stage, once per blocking metric.

    Edge cases: no current value (nothing measured yet) gives ``detectable`` from the assumed
    discordance at the threshold, and no margin or warning; a value of exactly 0 or 1 with no
    observed discordance has discordance 0, so no change is detectable: a warning says so.

    >>> c = threshold_check("answer_correct", 66, 0.80, 0.75)
    >>> round(c.discordance, 2), c.warning is not None
    (0.32, True)
    """
    for label, x in (("value", value), ("threshold", threshold)):
        if x is not None:
            _check(label, x, 0.0, 1.0, (True, True))
    if discordance is not None:
        source = "observed"
    else:
        p = value if value is not None else threshold
        if p is None:
            raise PowerError(f"{name}: neither a current value nor a threshold to plan with; give one")
        discordance, source = 2 * p * (1 - p), "assumed: 2 p (1 - p)"
    margin = abs(value - threshold) if value is not None and threshold is not None else None
    detectable: float | None
    if discordance == 0:
        detectable, why = None, f"{name}: discordance 0 ({source}): with no case scored differently no change is detectable"
    else:
        try:
            detectable, why = detectable_change(n, discordance, power, level, method).change, None
        except PowerError:
            detectable, why = None, (f"{name}: {n} holdout cases detect no change with power {power:g} "
                                     f"(discordance {discordance:.3f})")
    warning = why if value is not None else None
    if detectable is not None and margin is not None and margin < detectable:
        warning = (f"{name}: threshold {threshold:g} is {margin:.3f} from the current value {value:.3f}, closer than "
                   f"the {detectable:.3f} change {n} holdout cases detect with power {power:g}")
    return ThresholdCheck(name=name, n=n, value=value, threshold=threshold, discordance=discordance,
                          discordance_source=source, detectable=detectable, margin=margin, warning=warning,
                          power=power, level=level, method=method)


# ---------------------------------------------------------------------------------------------
# (b) kappa's lower bound


def kappa_table(expected: float, pass_rate: float, judge_pass_rate: float | None = None) -> np.ndarray:
    """The 2x2 table of probabilities (rows human pass/fail, columns judge pass/fail) with Cohen's kappa ``expected``.

    With margins ``p`` (human) and ``q`` (judge, default ``p``) the chance agreement is
    ``pe = p q + (1 - p)(1 - q)`` and the pass-pass cell ``p q + expected * (1 - pe) / 2``.

    Raises:
        PowerError: a cell that would be negative (kappa not reachable with those margins).
    """
    p = _check("pass_rate", pass_rate, 0.0, 1.0)
    q = p if judge_pass_rate is None else _check("judge_pass_rate", judge_pass_rate, 0.0, 1.0)
    pe = p * q + (1 - p) * (1 - q)
    shift = expected * (1 - pe) / 2
    table = np.array([[p * q + shift, p * (1 - q) - shift], [(1 - p) * q - shift, (1 - p) * (1 - q) + shift]])
    if (table < -1e-12).any():
        raise PowerError(f"expected kappa {expected} cannot occur with pass rates {p} (human) and {q} (judge)")
    return np.clip(table, 0.0, 1.0)


def kappa_variance(table: np.ndarray) -> np.ndarray:
    """``n * var(kappa)`` (Fleiss, Cohen and Everitt 1969) for tables of cell shares, shape ``(..., k, k)``.

    The formula of :meth:`assay.stats.agreement.Contingency.kappa_se` and statsmodels'
    ``cohens_kappa(...).std_kappa`` (unweighted), in floats and vectorised over tables;
    tests/test_power.py checks them equal. Tables with chance agreement 1 give nan.
    """
    t = np.asarray(table, dtype=float)
    t = t / t.sum(axis=(-2, -1), keepdims=True)
    rows, cols = t.sum(axis=-1), t.sum(axis=-2)
    po = np.trace(t, axis1=-2, axis2=-1)
    pe = (rows * cols).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kap = (po - pe) / (1 - pe)
        eye = np.eye(t.shape[-1])
        spread = (t * (eye - (cols[..., :, None] + rows[..., None, :]) * (1 - kap)[..., None, None]) ** 2).sum(axis=(-2, -1))
        return (spread - (kap - pe * (1 - kap)) ** 2) / (1 - pe) ** 2


@dataclass(frozen=True)
class KappaPairs:
    """Labelled pairs for kappa's lower bound to clear ``min_kappa``.

    Attributes:
        n: pairs needed (by simulation).
        power: the simulated probability that the lower bound clears the bar at ``n``.
        n_large_sample: the large-sample answer, which is optimistic (see :func:`kappa_pairs`).
        expected, min_kappa: the kappa expected and the bar its lower bound must clear.
        pass_rate, judge_pass_rate: the two raters' pass rates assumed.
        se_at_n: kappa's large-sample standard error at ``n`` pairs.
        target, level: the probability asked for and the interval's level.
        reps, seed: the simulation's size and seed.
    """

    n: int
    power: float
    n_large_sample: int
    expected: float
    min_kappa: float
    pass_rate: float
    judge_pass_rate: float
    se_at_n: float
    target: float
    level: float
    reps: int
    seed: int


def kappa_power(n: int, table: np.ndarray, min_kappa: float, level: float = 0.95, reps: int = 20_000,
                seed: int = 0) -> float:
    """Simulated probability that ``kappa - z * se`` (the pipeline's interval) exceeds ``min_kappa`` on ``n`` pairs.

    ``reps`` label sets of ``n`` pairs are drawn from ``table`` (cell shares) with the seed
    ``(seed, n)``; kappa and its se are those of :func:`kappa_variance`. A set with perfect
    agreement has se 0 and a bound of 1 (as the pipeline reports it); one whose kappa is
    undefined (both raters constant) does not clear the bar.
    """
    rng = np.random.default_rng([seed, n])
    k = table.shape[-1]
    tables = rng.multinomial(n, np.asarray(table, dtype=float).ravel(), size=reps).reshape(reps, k, k).astype(float)
    shares = tables / n
    po = np.trace(shares, axis1=1, axis2=2)
    pe = (shares.sum(axis=2) * shares.sum(axis=1)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kap = (po - pe) / (1 - pe)
        low = kap - _z_two(level) * np.sqrt(np.maximum(kappa_variance(tables), 0.0) / n)
    return float(np.count_nonzero(low > min_kappa) / reps)


def kappa_pairs(expected: float, min_kappa: float, pass_rate: float, power: float = 0.8, level: float = 0.95,
                judge_pass_rate: float | None = None, reps: int = 20_000, seed: int = 0) -> KappaPairs:
    """Pairs needed so that ``kappa - z * se`` (two-sided ``level``) exceeds ``min_kappa`` with probability ``power``.

    Found by seeded simulation (:func:`kappa_power`, ``reps`` label sets per size, the smallest n
    whose simulated probability reaches ``power``, by doubling and bisection). The large-sample
    answer is reported beside it: with kappa-hat normal around ``expected`` with variance
    ``v / n`` (``v`` of :func:`kappa_variance` at the expected table) and the bound using the same
    se, ``n = v * (z_level + z_power)**2 / (expected - min_kappa)**2``. It is optimistic: at 0.8,
    0.6, pass rate 0.7 it gives 85 pairs, whose simulated probability is about 0.74 (kappa-hat
    is skewed and its estimated se is larger when it comes out low); the simulation gives 103.
    The simulated probability has a standard error of about ``0.4 / sqrt(reps)``; the size
    found is exact for the seed, not for the truth.

    Raises:
        PowerError: ``expected <= min_kappa`` (no sample size helps), ``expected`` above 1 or not
            reachable with the pass rates, a rate, level or power outside (0, 1), more than
            1,000,000 pairs.
    """
    _check("expected kappa", expected, -1.0, 1.0, (False, False))
    _check("min_kappa", min_kappa, -1.0, 1.0, (True, False))
    _check("power", power, 0.0, 1.0)
    _check("level", level, 0.0, 1.0)
    if expected <= min_kappa:
        raise PowerError(f"expected kappa {expected} must be above min_kappa {min_kappa}: a judge expected at or "
                         "below the bar does not clear it with any number of pairs")
    if not isinstance(reps, int) or reps < 100:
        raise PowerError(f"reps {reps!r} must be a whole number, at least 100")
    table = kappa_table(expected, pass_rate, judge_pass_rate)
    v = float(kappa_variance(table))
    z_a, z_b = _z_two(level), _N.inv_cdf(power)
    large = max(2, math.ceil(v * (z_a + z_b) ** 2 / (expected - min_kappa) ** 2 - 1e-9))

    def ok(n: int) -> bool:
        return kappa_power(n, table, min_kappa, level, reps, seed) >= power

    lo, hi = 1, large  # when the large-sample size already has the power, bisect below it
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > MAX_N:
            raise PowerError(f"kappa {expected} against min_kappa {min_kappa} needs more than {MAX_N:,} pairs")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    n = max(2, hi)
    q = pass_rate if judge_pass_rate is None else judge_pass_rate
    return KappaPairs(n=n, power=kappa_power(n, table, min_kappa, level, reps, seed), n_large_sample=large,
                      expected=expected, min_kappa=min_kappa, pass_rate=pass_rate, judge_pass_rate=q,
                      se_at_n=math.sqrt(v / n), target=power, level=level, reps=reps, seed=seed)


# ---------------------------------------------------------------------------------------------
# (c) PPI labels for a width


@dataclass(frozen=True)
class JudgeMoments:
    """Variances of the human and judge values and their covariance, per case.

    Build with :meth:`from_rates` (a pass/fail judge's TPR and FPR), :meth:`from_agreement`
    (pass/fail, the judge passes as often as people do), :meth:`from_pass_rate` (pass/fail, a
    correlation) or :meth:`from_correlation` (any values).
    """

    var_human: float
    var_judge: float
    cov: float

    @property
    def correlation(self) -> float:
        """Pearson correlation of human and judge values (nan when either is constant)."""
        d = math.sqrt(self.var_human * self.var_judge)
        return self.cov / d if d > 0 else math.nan

    @classmethod
    def from_rates(cls, pass_rate: float, tpr: float, fpr: float) -> JudgeMoments:
        """A pass/fail judge: passes ``tpr`` of the cases people pass and ``fpr`` of those they fail.

        >>> m = JudgeMoments.from_rates(0.7, 0.92, 0.25)
        >>> round(0.7 * 0.92 + 0.3 * 0.25, 3)  # the judge's pass rate: biased up from 0.70
        0.719
        """
        p = _check("pass_rate", pass_rate, 0.0, 1.0)
        _check("tpr", tpr, 0.0, 1.0, (True, True))
        _check("fpr", fpr, 0.0, 1.0, (True, True))
        q = p * tpr + (1 - p) * fpr
        return cls(var_human=p * (1 - p), var_judge=q * (1 - q), cov=p * tpr - p * q)

    @classmethod
    def from_agreement(cls, pass_rate: float, agreement: float) -> JudgeMoments:
        """A pass/fail judge agreeing with people on ``agreement`` of cases, with the same pass rate.

        Its disagreements split evenly (``(1 - agreement) / 2`` each way), so its kappa equals its
        correlation: ``1 - (1 - agreement) / (2 p (1 - p))``.

        Raises:
            PowerError: an agreement too low for the pass rate (``(1 - agreement) / 2 > min(p, 1 - p)``).
        """
        p = _check("pass_rate", pass_rate, 0.0, 1.0)
        _check("agreement", agreement, 0.0, 1.0, (True, True))
        off = (1 - agreement) / 2
        if off > min(p, 1 - p) + 1e-12:
            raise PowerError(f"agreement {agreement} is impossible at pass rate {p} with equal pass rates; "
                             f"the lowest is {1 - 2 * min(p, 1 - p):.3f}")
        return cls(var_human=p * (1 - p), var_judge=p * (1 - p), cov=p - off - p * p)

    @classmethod
    def from_pass_rate(cls, pass_rate: float, correlation: float) -> JudgeMoments:
        """Pass/fail values with pass rate ``pass_rate`` (both raters) and Pearson ``correlation``."""
        p = _check("pass_rate", pass_rate, 0.0, 1.0)
        return cls.from_correlation(p * (1 - p), correlation)

    @classmethod
    def from_correlation(cls, variance: float, correlation: float) -> JudgeMoments:
        """Human and judge values with the same ``variance`` and Pearson ``correlation``."""
        _check("variance", variance, 0.0, math.inf)
        _check("correlation", correlation, -1.0, 1.0, (True, True))
        return cls(var_human=variance, var_judge=variance, cov=correlation * variance)


def ppi_variance(n: int, n_unlabeled: int, moments: JudgeMoments) -> tuple[float, float]:
    """``(variance, lam)`` of the PPI++ mean at ``n`` labels and ``n_unlabeled`` judged-only cases.

    ``lam = clip(cov / ((1 + n / N) var_judge), 0, 1)`` and
    ``variance = lam**2 var_judge / N + (var_human - 2 lam cov + lam**2 var_judge) / n``.
    """
    vf, c = moments.var_judge, moments.cov
    lam = 0.0 if vf == 0 else min(1.0, max(0.0, c / ((1 + n / n_unlabeled) * vf)))
    var = lam * lam * vf / n_unlabeled + (moments.var_human - 2 * lam * c + lam * lam * vf) / n
    return max(var, 0.0), lam


@dataclass(frozen=True)
class PPILabels:
    """Human labels PPI++ needs for an interval of a given width.

    Attributes:
        n: labels needed (the smallest n whose expected width is at most ``width``).
        width: the target width; ``width_at_n`` the expected width at ``n``.
        n_human_only: labels the human-only interval would need for the same width.
        lam: the judge's weight at ``n``.
        n_unlabeled: judged-only cases.
        correlation: the judge-human correlation assumed.
        level: the interval's level.
    """

    n: int
    width: float
    width_at_n: float
    n_human_only: int
    lam: float
    n_unlabeled: int
    correlation: float
    level: float


def ppi_labels(width: float, moments: JudgeMoments, n_unlabeled: int, level: float = 0.95,
               interval: str = "t") -> PPILabels:
    """The smallest number of human labels for which PPI++'s expected interval width is at most ``width``.

    ``interval`` is that of :func:`assay.stats.ppi.ppi_mean_ci`: ``"t"`` (default) takes the
    width as ``2 * t(n - 1) * sqrt(variance * n / (n - 1))``, ``"z"`` as ``2 * z * sqrt(variance)``
    (with no judge, ``"z"`` is statsmodels' ``samplesize_confint_proportion`` for a pass rate).
    The width is an expectation: the realised one varies with the sample (tests/test_power.py
    compares it with the simulated mean width).

    Raises:
        PowerError: width not positive, ``n_unlabeled < 1``, level outside (0, 1), a human
            variance of 0 (nothing to estimate), more than 1,000,000 labels, an unknown interval.

    >>> ppi_labels(0.1, JudgeMoments.from_correlation(0.21, 0.0), 10_000, interval="z").n  # 0.21 (2 * 1.96 / 0.1)**2 = 322.7
    323
    """
    _check("width", width, 0.0, math.inf)
    _check("level", level, 0.0, 1.0)
    if interval not in ("t", "z"):
        raise PowerError(f"interval {interval!r} is not one of t, z")
    if not isinstance(n_unlabeled, int) or n_unlabeled < 1:
        raise PowerError(f"n_unlabeled {n_unlabeled!r} must be a whole number of judged cases, at least 1")
    if moments.var_human <= 0:
        raise PowerError(f"var_human {moments.var_human!r} must be positive: a constant human value needs no estimate")
    z = _z_two(level)

    def width_at(n: int, lam: float | None = None) -> tuple[float, float]:
        var, tuned = ppi_variance(n, n_unlabeled, moments) if lam is None else (_human_variance(n, moments), 0.0)
        if interval == "z":
            return 2 * z * math.sqrt(var), tuned
        from scipy.stats import t

        return 2 * float(t.ppf(0.5 + level / 2, n - 1)) * math.sqrt(var * n / (n - 1)), tuned

    def smallest(ok: Callable[[int], bool]) -> int:
        lo, hi = 1, 2
        while not ok(hi):
            lo, hi = hi, hi * 2
            if hi > 2 * MAX_N:
                raise PowerError(f"a width of {width} needs more than {MAX_N:,} labels")
        while hi - lo > 1:  # ok(hi), not ok(lo) (or lo = 1, never asked: n >= 2)
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        return hi

    human = smallest(lambda n: width_at(n, lam=0.0)[0] <= width * (1 + 1e-12))
    n = smallest(lambda n: width_at(n)[0] <= width * (1 + 1e-12))
    w, lam = width_at(n)
    return PPILabels(n=n, width=width, width_at_n=w, n_human_only=human, lam=lam,
                     n_unlabeled=n_unlabeled, correlation=moments.correlation, level=level)


def _human_variance(n: int, moments: JudgeMoments) -> float:
    return moments.var_human / n
