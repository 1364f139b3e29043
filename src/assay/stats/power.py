"""How many cases or labels a decision needs: power of the paired test and of a threshold check, the judge usability rule, PPI's width.

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

- :func:`kappa_pairs`: labelled pairs needed for a judge whose true kappa is ``expected`` to pass
  the usability rule (:mod:`assay.judge.usability`: ``min_pairs``, ``max_invalid_share``, and the
  lower bound of kappa's union interval at ``min_kappa``) with a given probability, with three
  human labels (a, b, tie) at given prevalences and an invalid rate (:class:`KappaRule`,
  :func:`rule_table`, :func:`rule_pass_rate`). By seeded simulation of that rule; the Wald
  bound's large-sample size is reported beside it and is optimistic (at kappa 0.8 against 0.6,
  balanced labels: 52 pairs, where the rule passes 0.60 of the time; the rule needs 78).

- :func:`ppi_labels`: human labels PPI++ needs for a target interval width, given the judge's
  moments (:class:`JudgeMoments`: from its TPR/FPR, its agreement, or a correlation) and the
  number of judged-only cases. With ``rho`` the judge-human correlation and the power-tuned
  weight, the variance is ``var_y / n * (1 - rho**2 * N / (N + n))`` (when the weight is not
  clipped at 1); the smallest ``n`` reaching the width is found by bisection on the exact
  expression with clipping.

- :func:`threshold_power` / :func:`threshold_size` / :func:`threshold_detectable`: one share against a
  fixed threshold (a plan's blocking metric): the one-sided exact binomial test by default, the
  one-sample z-test as ``"normal"``. :func:`threshold_check` puts it to a plan's metric: the
  smallest distance past the threshold its holdout detects, and a warning when the current value
  sits closer to the threshold than that.

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
                      method: Method = "exact") -> DetectableChange:
    """The smallest ``|change|`` that ``n`` paired cases detect with probability ``power``.

    ``None`` is not returned: when even a change equal to the discordance is not detected,
    :class:`PowerError` says so. Found by bisection on the (monotone in change) power to 1e-6; the
    change returned always reaches ``power`` under ``method``. The default is the exact test the
    pipeline runs: the normal approximation's change has an exact power of 0.76-0.78 for a
    stated 0.80 on small holdouts (tests/test_power.py).

    >>> round(detectable_change(155, 0.2, method="normal").change, 3)  # the inverse of holdout_size's doctest
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


# ---------------------------------------------------------------------------------------------
# (a') one share against a threshold

Direction = Literal["higher", "lower"]


def _threshold_args(threshold: float, alpha: float, direction: str) -> tuple[float, float]:
    """The threshold and alpha checked; a lower-is-better metric is turned into a higher-is-better one by ``1 - p``."""
    _check("threshold", threshold, 0.0, 1.0)
    _check("alpha", alpha, 0.0, 1.0)
    if direction not in ("higher", "lower"):
        raise PowerError(f"direction {direction!r} is not one of higher, lower")
    return (threshold, alpha) if direction == "higher" else (1 - threshold, alpha)


def _critical_count(n: int, threshold: float, alpha: float) -> int:
    """The fewest passes out of ``n`` with ``P(X >= c | threshold) <= alpha`` (the exact one-sided binomial test's
    rejection region, ``X >= c``); ``n + 1`` when even ``n`` of ``n`` is not enough."""
    from scipy.stats import binom

    c = int(binom.isf(alpha, n, threshold)) + 1  # P(X > isf) <= alpha: X >= isf + 1
    while c > 0 and binom.sf(c - 2, n, threshold) <= alpha * (1 + 1e-12):  # isf may round up: step down while it holds
        c -= 1
    while c <= n and binom.sf(c - 1, n, threshold) > alpha * (1 + 1e-12):
        c += 1
    return c


def threshold_power(n: int, value: float, threshold: float, alpha: float = 0.05, direction: Direction = "higher",
                    method: Method = "exact") -> float:
    """Probability that ``n`` cases of a metric whose true share is ``value`` pass a one-sided test against ``threshold``.

    A threshold check is one-sample: one version's share of ``n`` holdout cases against a fixed
    number, not a paired change. ``"exact"`` (default): the exact binomial test of ``p <= threshold``
    at ``alpha`` (pass when ``P(X >= x | threshold) <= alpha``; the same as the one-sided
    Clopper-Pearson lower bound at ``1 - alpha`` clearing the threshold), its power summed exactly.
    ``"normal"``: the one-sample z-test, ``Phi((sqrt(n) (value - threshold) - z_alpha sqrt(t (1 - t))) / sqrt(value (1 - value)))``.
    ``direction="lower"`` (lower is better, the check an upper bound): the same with ``1 - share``.

    Raises:
        PowerError: ``n < 1``; value outside [0, 1]; threshold or alpha outside (0, 1); an unknown
            direction or method.

    >>> round(threshold_power(58, 0.95, 0.85), 3)  # 58 cases, a candidate truly 0.10 above 0.85
    0.67
    """
    t, alpha = _threshold_args(threshold, alpha, direction)
    p = _check("value", value, 0.0, 1.0, (True, True))
    p = p if direction == "higher" else 1 - p
    if not isinstance(n, int) or n < 1:
        raise PowerError(f"n {n!r} must be a whole number of cases, at least 1")
    if method == "exact":
        from scipy.stats import binom

        c = _critical_count(n, t, alpha)
        return float(binom.sf(c - 1, n, p)) if c <= n else 0.0
    if method == "normal":
        shift = math.sqrt(n) * (p - t) - _N.inv_cdf(1 - alpha) * math.sqrt(t * (1 - t))
        sd = math.sqrt(p * (1 - p))
        return _N.cdf(shift / sd) if sd > 0 else float(shift > 0)
    raise PowerError(f"method {method!r} is not one of {', '.join(METHODS)}")


@dataclass(frozen=True)
class ThresholdPower:
    """Holdout cases for a share truly ``change`` past ``threshold`` to pass the one-sided test with ``target`` power.

    ``n`` reaches the power and ``n - 1`` does not (the exact power is saw-toothed in n: a few sizes
    below may reach it and some just above may not); ``power`` is the power at ``n``.
    """

    n: int
    power: float
    change: float
    threshold: float
    direction: str
    target: float
    alpha: float
    method: str


def threshold_size(change: float, threshold: float, power: float = 0.8, alpha: float = 0.05,
                   direction: Direction = "higher", method: Method = "exact") -> ThresholdPower:
    """The holdout size on which a share truly ``change`` better than ``threshold`` passes with probability ``power``.

    The normal size ``((z_alpha sqrt(t (1 - t)) + z_power sqrt(p (1 - p))) / change)**2`` starts the
    exact search (bracketing and bisection, as :func:`holdout_size`).

    Raises:
        PowerError: change not positive or past 0 or 1; as :func:`threshold_power`; more than
            1,000,000 cases.

    >>> threshold_size(0.05, 0.85, method="normal").n  # ((1.645 sqrt(.1275) + 0.8416 sqrt(.09)) / .05)**2 = 282.1
    283
    """
    t, a = _threshold_args(threshold, alpha, direction)
    _check("power", power, 0.0, 1.0)
    if not (isinstance(change, (int, float)) and 0 < change <= 1 - t):
        raise PowerError(f"change {change!r} must be positive and keep the share within [0, 1] "
                         f"(at most {1 - t:.3f} {'above' if direction == 'higher' else 'below'} the threshold {threshold:g})")
    if method not in METHODS:
        raise PowerError(f"method {method!r} is not one of {', '.join(METHODS)}")
    p = t + change
    value = p if direction == "higher" else 1 - p
    z = _N.inv_cdf(1 - a) * math.sqrt(t * (1 - t)) + _N.inv_cdf(power) * math.sqrt(p * (1 - p))
    n = max(1, math.ceil((z / change) ** 2 - 1e-9))
    if n > MAX_N:
        raise PowerError(f"a change of {change} past the threshold {threshold} needs more than {MAX_N:,} cases")
    if method == "exact":
        n = _first_reaching(lambda k: threshold_power(k, value, threshold, alpha, direction) >= power, n)
    return ThresholdPower(n=n, power=threshold_power(n, value, threshold, alpha, direction, method), change=change,
                          threshold=threshold, direction=direction, target=power, alpha=alpha, method=method)


def threshold_detectable(n: int, threshold: float, power: float = 0.8, alpha: float = 0.05,
                         direction: Direction = "higher", method: Method = "exact") -> float | None:
    """The smallest true distance past ``threshold`` at which ``n`` cases pass the one-sided test with ``power``.

    None when none does: even a share of 1 (0, lower is better) passes less often, as when
    ``threshold**n > alpha`` (no count of ``n`` is evidence enough). Bisection to 1e-6 on the power,
    which rises with the true share for a fixed test.
    """
    t, _ = _threshold_args(threshold, alpha, direction)
    _check("power", power, 0.0, 1.0)

    def ok(d: float) -> bool:
        value = t + d if direction == "higher" else 1 - t - d
        return threshold_power(n, min(1.0, max(0.0, value)), threshold, alpha, direction, method) >= power

    if not ok(1 - t):
        return None
    lo, hi = 0.0, 1 - t
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


@dataclass(frozen=True)
class ThresholdCheck:
    """Whether a holdout can tell a metric's threshold from its current value, in the one-sample framing.

    Attributes:
        name: the metric.
        n: holdout cases.
        value, threshold: the current value (a share of cases) and the plan's threshold.
        direction: ``"higher"`` or ``"lower"`` is better.
        detectable: the smallest true distance past the threshold at which the one-sided test at
            ``alpha`` passes with ``power`` (:func:`threshold_detectable`); None when none does.
        margin: ``|value - threshold|``; None without a value.
        warning: why the threshold is not testable on this holdout, or None.
        power, alpha, method: as for :func:`threshold_power`.
    """

    name: str
    n: int
    value: float | None
    threshold: float
    direction: str
    detectable: float | None
    margin: float | None
    warning: str | None
    power: float
    alpha: float
    method: str


def threshold_check(name: str, n: int, value: float | None, threshold: float, direction: Direction = "higher",
                    power: float = 0.8, alpha: float = 0.05, method: Method = "exact") -> ThresholdCheck:
    """The smallest distance past ``threshold`` a holdout of ``n`` cases detects, and a warning when the
    candidate's current value sits closer to the threshold than that.

    One-sample: the plan's threshold is a fixed number, so its check is a one-sided test of one
    share (:func:`threshold_power`), not a paired change between two versions (the paired framing
    needs a discordance and gave sizes about 1.36 times too large). Meant for the plan and summary,
    once per blocking share metric.

    Edge cases: no current value gives ``detectable`` and no margin or warning; a holdout on which
    no true share passes with ``power`` (``detectable`` None) warns, value or not; a threshold at the
    end of the scale (1 for higher is better, 0 for lower) has no share past it, so ``detectable``
    is None and the warning says the threshold can be met only by every case; a threshold at the
    other end (0 for higher is better, 1 for lower) is met by every share, so ``detectable`` is 0 and
    there is no warning.

    >>> c = threshold_check("answer_correct", 66, 0.80, 0.75)
    >>> round(c.detectable, 3), c.warning is not None
    (0.125, True)
    >>> threshold_check("answer_correct", 66, 0.80, 0.0).detectable
    0.0
    """
    if value is not None:
        _check("value", value, 0.0, 1.0, (True, True))
    _check("threshold", threshold, 0.0, 1.0, (True, True))
    margin = abs(value - threshold) if value is not None else None
    if threshold == (1.0 if direction == "higher" else 0.0):
        return ThresholdCheck(name=name, n=n, value=value, threshold=threshold, direction=direction, detectable=None,
                              margin=margin, power=power, alpha=alpha, method=method,
                              warning=(f"{name}: threshold {threshold:g} is the end of the scale: only every case meeting it "
                                       "meets it, and no sample size shows it with a one-sided bound"))
    if threshold == (0.0 if direction == "higher" else 1.0):  # every share meets it: nothing to detect
        return ThresholdCheck(name=name, n=n, value=value, threshold=threshold, direction=direction, detectable=0.0,
                              margin=margin, warning=None, power=power, alpha=alpha, method=method)
    detectable = threshold_detectable(n, threshold, power, alpha, direction, method)
    warning = None
    if detectable is None:
        warning = (f"{name}: {n} holdout cases cannot show the threshold {threshold:g} is met with power {power:g} "
                   f"(one-sided exact binomial test at {alpha:g}): add cases")
    elif margin is not None and margin < detectable:
        warning = (f"{name}: threshold {threshold:g} is {margin:.3f} from the current value {value:.3f}, closer than "
                   f"the {detectable:.3f} past it that {n} holdout cases detect with power {power:g}")
    return ThresholdCheck(name=name, n=n, value=value, threshold=threshold, direction=direction, detectable=detectable,
                          margin=margin, warning=warning, power=power, alpha=alpha, method=method)


# ---------------------------------------------------------------------------------------------
# (b) pairs for the judge usability rule


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
class KappaRule:
    """What the judge usability rule (:mod:`assay.judge.usability`) reads that a label count decides.

    Build it from the ``judge`` params section (a :class:`~assay.judge.usability.UsabilityRule`):
    ``KappaRule(rule.min_kappa, rule.min_pairs, rule.max_invalid_share, rule.usability == "conservative")``.
    ``conservative``: kappa's 95% union interval's lower bound must reach ``min_kappa``; else kappa itself.
    """

    min_kappa: float
    min_pairs: int = 30
    max_invalid_share: float = 0.05
    conservative: bool = True


#: The calibration's human labels and the judge's (a, b, tie), plus the judge's column for a pair without a verdict.
RULE_LABELS = 3
RULE_LEVEL = 0.95  # the calibration's interval level (assay.judge.calibration.LEVEL)


def rule_table(expected: float, prevalences: tuple[float, ...], invalid_rate: float = 0.0) -> np.ndarray:
    """The 4x4 table of cell shares (human a/b/tie/none by judge a/b/tie/invalid) whose Cohen's kappa is ``expected``.

    The judge gives no verdict on ``invalid_rate`` of the pairs (any human label); otherwise it copies
    the human label with probability ``r`` and else draws a label from ``prevalences`` (so its label
    shares are the people's). The human row "none" is empty, as in the calibration's table. Kappa of
    that table is ``(1 - v) r (1 - pe) / (1 - (1 - v) pe)`` with ``pe = sum(prevalences**2)`` and
    ``v = invalid_rate``, solved for ``r``.

    Raises:
        PowerError: prevalences that are not three shares summing to 1, an invalid rate outside
            [0, 1), a kappa that this judge cannot reach (``r`` above 1) or below 0.
    """
    pi = np.asarray(prevalences, dtype=float)
    if pi.shape != (RULE_LABELS,) or not np.isfinite(pi).all() or (pi <= 0).any() or abs(pi.sum() - 1) > 1e-9:
        raise PowerError(f"prevalences {tuple(prevalences)!r} must be three positive shares (a, b, tie) summing to 1")
    v = _check("invalid_rate", invalid_rate, 0.0, 1.0, (True, False))
    _check("expected kappa", expected, 0.0, 1.0, (True, True))
    pe = float(pi @ pi)
    r = expected * (1 - (1 - v) * pe) / ((1 - v) * (1 - pe))
    if r > 1 + 1e-12:
        highest = (1 - v) * (1 - pe) / (1 - (1 - v) * pe)
        raise PowerError(f"expected kappa {expected} cannot occur with invalid_rate {v}: the highest is {highest:.3f}")
    judge = (1 - v) * (min(r, 1.0) * np.eye(RULE_LABELS) + (1 - min(r, 1.0)) * pi[None, :])
    table = np.zeros((RULE_LABELS + 1, RULE_LABELS + 1))
    table[:RULE_LABELS, :RULE_LABELS] = pi[:, None] * judge
    table[:RULE_LABELS, RULE_LABELS] = pi * v
    return table


def _wilson_low(k: np.ndarray, n: int, z: float) -> np.ndarray:
    """The Wilson score interval's lower end for ``k`` of ``n`` (vectorised; :func:`assay.stats.proportion.proportion_ci`'s)."""
    q = k / n
    centre = (q + z * z / (2 * n)) / (1 + z * z / n)
    return centre - z * np.sqrt(q * (1 - q) / n + z * z / (4 * n * n)) / (1 + z * z / n)


def rule_pass_rate(n: int, table: np.ndarray, rule: KappaRule, reps: int = 20_000, seed: int = 0) -> float:
    """Simulated probability that a calibration of ``n`` pairs drawn from ``table`` passes the rule's count checks.

    ``reps`` tables of ``n`` pairs are drawn with the seed ``(seed, n)``. A draw passes when ``n``
    reaches ``min_pairs``, the invalid share is at most ``max_invalid_share``, kappa is defined,
    and (conservative) the lower end of kappa's union interval (the Wald interval with the
    large-sample se, and Wilson's interval of observed agreement mapped through kappa:
    :meth:`assay.stats.agreement.Contingency.kappa_ci`'s ``"hybrid"``) reaches ``min_kappa``;
    with ``conservative`` False, kappa itself. Order flips and slice agreement are not simulated
    (a flip is a tie, already in the judge's labels; slices need a model of the pairs' kinds).
    """
    if n < rule.min_pairs:
        return 0.0
    rng = np.random.default_rng([seed, n])
    size = table.shape[-1]
    counts = rng.multinomial(n, np.asarray(table, dtype=float).ravel(), size=reps).reshape(reps, size, size)
    shares = counts / n
    rows, cols = shares.sum(axis=2), shares.sum(axis=1)
    po = np.trace(shares, axis1=1, axis2=2)
    pe = (rows * cols).sum(axis=1)
    undefined = (rows.max(axis=1) == 1) & (cols.max(axis=1) == 1) & (rows.argmax(axis=1) == cols.argmax(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        kap = (po - pe) / (1 - pe)
        z = _z_two(RULE_LEVEL)
        low = kap
        if rule.conservative:
            wald = kap - z * np.sqrt(np.maximum(kappa_variance(counts.astype(float)), 0.0) / n)
            wilson = (_wilson_low(po * n, n, z) - pe) / (1 - pe)
            low = np.maximum(-1.0, np.minimum(wald, wilson))
        ok = ~undefined & (counts[:, :, RULE_LABELS].sum(axis=1) / n <= rule.max_invalid_share) & (low >= rule.min_kappa)
    return float(np.count_nonzero(ok) / reps)


@dataclass(frozen=True)
class KappaPairs:
    """Labelled pairs for a judge of a given kappa to pass the usability rule.

    Attributes:
        n: pairs needed (by simulation of the rule).
        power: the simulated probability that the rule passes at ``n``.
        n_wald: the old answer, the large-sample formula for the Wald bound alone, which is optimistic
            (see :func:`kappa_pairs`).
        expected: the judge's kappa (of the table with the invalid column, what calibration measures).
        rule: the rule simulated.
        prevalences: the human labels' shares (a, b, tie); the judge's valid labels have the same.
        invalid_rate: the share of pairs the judge gives no verdict on.
        target: the probability asked for.
        reps, seed: the simulation's size and seed.
    """

    n: int
    power: float
    n_wald: int
    expected: float
    rule: KappaRule
    prevalences: tuple[float, ...]
    invalid_rate: float
    target: float
    reps: int
    seed: int


def kappa_pairs(expected: float, rule: KappaRule, prevalences: tuple[float, ...], invalid_rate: float = 0.0,
                power: float = 0.8, reps: int = 20_000, seed: int = 0) -> KappaPairs:
    """Pairs needed so that a judge whose true kappa is ``expected`` passes the usability rule with probability ``power``.

    Simulates the rule itself (:func:`rule_pass_rate` on :func:`rule_table`): the minimum pairs,
    the invalid share and kappa's union interval, with three human labels at ``prevalences``. The
    smallest n (at least ``min_pairs``) whose simulated pass rate reaches ``power`` is found by
    doubling and bisection from the large-sample size of the Wald bound alone,
    ``n = v (z_0.975 + z_power)**2 / (expected - min_kappa)**2`` (``v`` of :func:`kappa_variance`),
    which is reported as ``n_wald``: the rule's union interval is wider, so that size passes less
    often than asked (0.42-0.72 instead of 0.80 in the audit of issue 32). The simulated rate has a
    standard error of about ``0.4 / sqrt(reps)``; the size is exact for the seed, not for the truth,
    and the rate is saw-toothed in n (Wilson's bound moves in whole agreements), so a few sizes
    above ``n`` may fall just short.

    Raises:
        PowerError: ``expected <= min_kappa`` (no sample size helps), bad prevalences or invalid
            rate (:func:`rule_table`), an invalid rate above ``max_invalid_share`` (the rule fails
            more often as n grows), power outside (0, 1), fewer than 100 reps, more than
            1,000,000 pairs.
    """
    _check("min_kappa", rule.min_kappa, -1.0, 1.0, (True, False))
    _check("power", power, 0.0, 1.0)
    if expected <= rule.min_kappa:
        raise PowerError(f"expected kappa {expected} must be above min_kappa {rule.min_kappa}: a judge expected at or "
                         "below the bar does not clear it with any number of pairs")
    if not isinstance(reps, int) or reps < 100:
        raise PowerError(f"reps {reps!r} must be a whole number, at least 100")
    table = rule_table(expected, prevalences, invalid_rate)
    if invalid_rate >= rule.max_invalid_share and invalid_rate > 0:
        raise PowerError(f"invalid_rate {invalid_rate} is not below max_invalid_share {rule.max_invalid_share}: "
                         "more pairs make the rule fail more often, not less; fix the judge's replies first")
    v = float(kappa_variance(table))
    wald = max(2, math.ceil(v * (_z_two(RULE_LEVEL) + _N.inv_cdf(power)) ** 2 / (expected - rule.min_kappa) ** 2 - 1e-9))

    def ok(n: int) -> bool:
        return rule_pass_rate(n, table, rule, reps, seed) >= power

    n = _first_reaching(ok, max(wald, rule.min_pairs))
    return KappaPairs(n=n, power=rule_pass_rate(n, table, rule, reps, seed), n_wald=wald, expected=expected, rule=rule,
                      prevalences=tuple(float(p) for p in prevalences), invalid_rate=float(invalid_rate), target=power,
                      reps=reps, seed=seed)


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
