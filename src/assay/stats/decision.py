"""Deciding a threshold on a proportion with a stated error rate, and what that rule costs.

The release gate passes a blocking share metric (``k`` of ``n`` holdout cases) when its **one-sided
Clopper-Pearson bound** at level ``alpha`` clears the threshold: the lower bound for a metric where
higher is better, the upper bound where lower is better. Clopper-Pearson rather than Wilson because
the gate promises an error rate: the exact bound satisfies ``P(lower bound >= p) <= alpha`` for every
true ``p`` and every ``n`` (it inverts the binomial tail itself), whereas Wilson's one-sided coverage
dips below the nominal level at some ``(n, p)``, and most often near the 0.9 to 1 thresholds
releases use. The price is a slightly more conservative bound. ``k = 0`` has lower bound 0 and
``k = n`` upper bound 1; ``n`` of ``n`` has lower bound ``alpha ** (1 / n)``, so a threshold ``t``
can be shown at all only from ``n >= log(alpha) / log(t)`` cases (:func:`least_n`), and a
threshold of 1 never.

``rule="estimate"`` is the point-estimate rule (``k / n`` meets the threshold), kept for plans that
ask for it; its false-pass rate at the threshold (:func:`pass_probability` at ``p = threshold``) is
what it costs. For both rules, the chance of passing a candidate whose true rate is ``p`` is an exact
binomial sum (:func:`pass_probability`); as ``p`` rises towards the threshold it tends to the value at
the threshold, which is therefore the rule's worst false-pass rate.

Holdout looks spend the error budget (:func:`look_alpha`): the ``k``-th distinct candidate judged
on one holdout is decided at ``alpha / 2 ** k``, so all looks together spend at most ``alpha``.

>>> round(one_sided_bound(48, 48, 0.05), 4)
0.9395
>>> least_n(0.9, 0.05)
29
"""

from __future__ import annotations

import math
from typing import Literal

Direction = Literal["higher", "lower"]
Rule = Literal["bound", "estimate"]


class DecisionError(ValueError):
    """Counts or settings that do not describe a decision (raised for programming errors, not input rows)."""


def _check(n: int, alpha: float) -> None:
    if n < 0:
        raise DecisionError(f"decision: n {n} must be at least 0")
    if not 0 < alpha < 1:
        raise DecisionError(f"decision: alpha {alpha!r} must be between 0 and 1, for example 0.05")


def one_sided_bound(k: int, n: int, alpha: float, direction: Direction = "higher") -> float:
    """The one-sided Clopper-Pearson bound at level ``alpha`` for ``k`` successes in ``n`` trials.

    Args:
        k: successes, ``0 <= k <= n``.
        n: trials.
        alpha: the chance the bound is on the wrong side of the true rate, in (0, 1).
        direction: ``"higher"`` gives the lower bound (``beta.ppf(alpha, k, n - k + 1)``, 0 at ``k = 0``),
            ``"lower"`` the upper bound (``beta.ppf(1 - alpha, k + 1, n - k)``, 1 at ``k = n``).

    Returns:
        The bound in [0, 1]; nan when ``n == 0``. It equals the matching end of statsmodels'
        ``proportion_confint(k, n, alpha=2 * alpha, method="beta")``.

    Raises:
        DecisionError: ``k`` outside ``0..n``, a negative ``n`` or ``alpha`` outside (0, 1).

    >>> one_sided_bound(0, 10, 0.05), one_sided_bound(10, 10, 0.05, "lower")
    (0.0, 1.0)
    >>> one_sided_bound(0, 0, 0.05)
    nan
    """
    _check(n, alpha)
    if not 0 <= k <= n:
        raise DecisionError(f"one_sided_bound: {k} successes in {n} trials is not a proportion (need 0 <= k <= n)")
    if n == 0:
        return math.nan
    from scipy.stats import beta

    if direction == "higher":
        return 0.0 if k == 0 else float(beta.ppf(alpha, k, n - k + 1))
    return 1.0 if k == n else float(beta.ppf(1 - alpha, k + 1, n - k))


def passes(k: int, n: int, threshold: float, alpha: float, direction: Direction = "higher", rule: Rule = "bound") -> bool:
    """Whether ``k`` of ``n`` passes ``threshold`` under ``rule`` (see the module docstring); never with ``n == 0``.

    >>> passes(47, 48, 0.9, 0.05), passes(46, 48, 0.9, 0.05), passes(46, 48, 0.9, 0.05, rule="estimate")
    (True, False, True)
    """
    if n == 0:
        return False
    value = one_sided_bound(k, n, alpha, direction) if rule == "bound" else k / n
    return value >= threshold if direction == "higher" else value <= threshold


def passing_counts(n: int, threshold: float, alpha: float, direction: Direction = "higher", rule: Rule = "bound") -> int | None:
    """The count at the edge of the passing region: the least passing ``k`` (``"higher"``), the greatest
    (``"lower"``); ``None`` when no ``k`` in ``0..n`` passes (or ``n == 0``).

    Passing is monotone in ``k`` for both rules, so every ``k`` beyond the edge passes too.

    >>> passing_counts(48, 0.9, 0.05), passing_counts(6, 1.0, 0.05), passing_counts(6, 1.0, 0.05, rule="estimate")
    (47, None, 6)
    """
    _check(n, alpha)
    order = range(n, -1, -1) if direction == "higher" else range(n + 1)
    edge = None
    for k in order:
        if not passes(k, n, threshold, alpha, direction, rule):
            break
        edge = k
    return edge


def pass_probability(n: int, p: float, threshold: float, alpha: float, direction: Direction = "higher",
                     rule: Rule = "bound") -> float:
    """The exact chance that ``rule`` passes a candidate whose true rate is ``p``, over ``n`` cases.

    The binomial tail beyond :func:`passing_counts`' edge. At ``p = threshold`` this is the rule's
    false-pass rate (the supremum over every true rate short of the threshold, by continuity in ``p``);
    for ``rule="bound"`` it is at most ``alpha``. 0 when no count passes.

    Raises:
        DecisionError: ``p`` outside [0, 1], or bad ``n``/``alpha``.

    >>> round(pass_probability(6, 0.95, 1.0, 0.05, rule="estimate"), 4)  # 0.95 ** 6
    0.7351
    """
    if not 0 <= p <= 1:
        raise DecisionError(f"pass_probability: true rate {p!r} must be in [0, 1]")
    edge = passing_counts(n, threshold, alpha, direction, rule)
    if edge is None:
        return 0.0
    from scipy.stats import binom

    return float(binom.sf(edge - 1, n, p) if direction == "higher" else binom.cdf(edge, n, p))


def least_n(threshold: float, alpha: float, direction: Direction = "higher") -> int | None:
    """The fewest cases at which the bound rule can pass at all (every case passing, or none failing).

    ``n`` of ``n`` has lower bound ``alpha ** (1 / n)``, so ``n >= log(alpha) / log(threshold)``;
    for ``"lower"`` (0 of ``n``, upper bound ``1 - alpha ** (1 / n)``) ``n >= log(alpha) / log(1 - threshold)``.
    ``None`` when no ``n`` can (a threshold of 1 for ``"higher"``, 0 for ``"lower"``); 1 when any can.

    >>> least_n(0.99, 0.05), least_n(1.0, 0.05), least_n(0.1, 0.05, "lower")
    (299, None, 29)
    """
    _check(1, alpha)
    share = threshold if direction == "higher" else 1 - threshold
    if share >= 1:
        return None
    if share <= 0:
        return 1
    n = max(1, math.ceil(math.log(alpha) / math.log(share) - 1e-9))
    while not passes(n if direction == "higher" else 0, n, threshold, alpha, direction):  # guard the float edge
        n += 1
    return n


def look_alpha(alpha: float, look: int) -> float:
    """The level the ``look``-th distinct candidate on one holdout is decided at: ``alpha / 2 ** look``.

    Summed over every look this never exceeds ``alpha`` (``alpha / 2 + alpha / 4 + ... < alpha``), so the
    chance that any candidate ever judged on this holdout passes while missing a threshold stays at most
    ``alpha`` (a union bound over the looks), however many are tried.

    Raises:
        DecisionError: ``look < 1`` or ``alpha`` outside (0, 1).

    >>> look_alpha(0.05, 1), look_alpha(0.05, 2)
    (0.025, 0.0125)
    """
    _check(0, alpha)
    if look < 1:
        raise DecisionError(f"look_alpha: look {look} must be at least 1 (the first candidate is look 1)")
    return alpha / 2 ** look


def alpha_spent(alpha: float, looks: int) -> float:
    """What ``looks`` looks have spent of ``alpha``: ``alpha * (1 - 2 ** -looks)`` (0 for no look).

    >>> round(alpha_spent(0.05, 2), 6)
    0.0375
    """
    return sum(look_alpha(alpha, k) for k in range(1, looks + 1))
