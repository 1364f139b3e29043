"""Latency of the retrieval modes: measured wall time over one runtime, or the deterministic cost model.

Two kinds (:data:`KINDS`), and every figure and page says which one it holds:

* ``modelled``: :func:`assay.relevance.modes.runner.modelled_ms`, a cost in milliseconds computed
  from each mode's work (documents scored, documents reranked, graph edges), one value per query.
  It is deterministic, so the demo's committed metrics stay byte-stable; it shows the modes'
  relative cost, not a system's speed.
* ``measured``: the wall time of each search, taken by :func:`time_modes`: every mode's searcher
  over the same queries in one process (so one corpus, one runtime and one machine), after one
  untimed warm-up pass per mode, repeated :func:`repetitions_for` times; within a repetition the
  modes take turns (the order rotates each repetition), so a change in the machine's load falls on
  every mode alike. The human study measures when its evidence is real (the study file says
  ``synthetic: false``); the demo models.

p95 and its interval come from every timed search (queries x repetitions):
:func:`assay.relevance.intervals.quantile_interval`, the distribution-free order-statistic
interval. Its upper bound exists only from :func:`upper_bound_size` values on (72 for a two-sided
95% interval of p95; 59 for a one-sided 95% upper bound), so the repetitions are chosen to reach
it. Each query contributes the same number of searches: the count of searches below the true p95
of the query mix then varies less than the Binomial the interval assumes, so the interval stays
conservative; searches are taken as independent given the query.

Edge cases: no queries gives no samples (p95 and both bounds nan); a clock that goes backwards is
refused (:class:`ClockError`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from assay.core.errors import AssayError

LatencyKind = Literal["modelled", "measured"]
KINDS: tuple[LatencyKind, ...] = ("modelled", "measured")
#: Fewest repetitions of every query when latency is measured, however many queries there are.
MIN_REPETITIONS = 5
#: Milliseconds are kept to the microsecond.
DECIMALS = 3


class ClockError(AssayError):
    """The clock gave an end before the start: the timings cannot be trusted."""


@dataclass(frozen=True)
class MeasuredLatency:
    """Every timed search of one mode: ``samples_ms[query_id]`` holds one value per repetition."""

    samples_ms: dict[str, list[float]]
    repetitions: int

    def values(self) -> list[float]:
        """Every timed search, query by query (sorted ids), repetitions in order."""
        return [v for q in sorted(self.samples_ms) for v in self.samples_ms[q]]

    def per_query_ms(self) -> dict[str, float]:
        """Each query's median time (what the per-query table shows)."""
        import statistics

        return {q: round(statistics.median(v), DECIMALS) for q, v in sorted(self.samples_ms.items())}


def upper_bound_size(q: float = 0.95, level: float = 0.95) -> int:
    """Fewest values for which the two-sided ``level`` order-statistic interval of the ``q`` quantile has an
    upper bound (:func:`assay.stats.quantile.quantile_ci`); a one-sided ``level`` upper bound is the
    two-sided ``2 * level - 1`` one.

    >>> upper_bound_size(0.95, 0.95), upper_bound_size(0.95, 0.90)
    (72, 59)
    """
    if not (0 < q < 1 and 0 < level < 1):
        raise ValueError(f"upper_bound_size: q={q!r} and level={level!r} must lie strictly between 0 and 1")
    # the upper bound is the order statistic of rank ppf(1 - alpha/2) + 1; it exists once that rank is <= n.
    # P(all n values below the q quantile) = q**n must fall to alpha/2, so n >= log(alpha/2) / log(q).
    return math.ceil(math.log((1 - level) / 2) / math.log(q) - 1e-12)


def repetitions_for(queries: int, q: float = 0.95, level: float = 0.95) -> int:
    """Repetitions of every query so that the timed searches reach :func:`upper_bound_size`, at least
    :data:`MIN_REPETITIONS`; 0 queries gives :data:`MIN_REPETITIONS` (nothing is timed anyway).

    >>> repetitions_for(27), repetitions_for(10)
    (5, 8)
    """
    if queries <= 0:
        return MIN_REPETITIONS
    return max(MIN_REPETITIONS, math.ceil(upper_bound_size(q, level) / queries))


def time_modes(searches: Mapping[str, Callable[[str], object]], queries: Sequence[tuple[str, str]],
               repetitions: int, clock: Callable[[], float] = time.perf_counter) -> dict[str, MeasuredLatency]:
    """Time every mode's search of every ``(query_id, text)``, ``repetitions`` times, in one process.

    Args:
        searches: mode name -> a function running that mode's search of one query text.
        queries: the queries, each timed once per repetition.
        repetitions: how many times each query is timed (see :func:`repetitions_for`).
        clock: seconds, monotonic (``time.perf_counter``); a test passes a fake one.

    Returns:
        ``{mode: MeasuredLatency}``, milliseconds rounded to the microsecond.

    Raises:
        ClockError: the clock went backwards.
        ValueError: ``repetitions`` below 1.
    """
    if repetitions < 1:
        raise ValueError(f"time_modes: repetitions={repetitions!r}; give 1 or more (see repetitions_for)")
    modes = sorted(searches)
    for mode in modes:  # warm-up: caches, lazy imports and allocations are not timed
        for _, text in queries[:1]:
            searches[mode](text)
    samples: dict[str, dict[str, list[float]]] = {m: {qid: [] for qid, _ in queries} for m in modes}
    for rep in range(repetitions):
        turn = modes[rep % len(modes):] + modes[:rep % len(modes)] if modes else []
        for mode in turn:
            search = searches[mode]
            for qid, text in queries:
                start = clock()
                search(text)
                end = clock()
                if end < start:
                    raise ClockError(f"time_modes: the clock went backwards ({start!r} then {end!r}) timing "
                                     f"{mode} on {qid!r}; use a monotonic clock such as time.perf_counter")
                samples[mode][qid].append(round((end - start) * 1000, DECIMALS))
    return {m: MeasuredLatency(samples[m], repetitions) for m in modes}


@dataclass(frozen=True)
class LatencySample:
    """One mode's latency as a run's side file holds it, ready for p95 and its interval.

    ``values`` holds every timed search (measured) or one modelled value per query; ``queries`` is
    the number of queries and ``repetitions`` how often each was timed (1 when modelled).
    """

    kind: LatencyKind
    values: list[float]
    queries: int
    repetitions: int
    per_query_ms: dict[str, float]


def side_entries(measured: MeasuredLatency) -> dict[str, object]:
    """What a run's side file holds for a measured latency: the kind, each query's median, every sample."""
    return {"latency_kind": "measured", "latency_ms": measured.per_query_ms(),
            "latency_samples_ms": {q: list(v) for q, v in sorted(measured.samples_ms.items())},
            "latency_repetitions": measured.repetitions}


def from_side(side: Mapping[str, Any]) -> LatencySample:
    """The latency a run's side file records (``latency_kind``, ``latency_ms`` and, when measured with
    repetitions, ``latency_samples_ms`` and ``latency_repetitions``)."""
    kind = side["latency_kind"]
    if kind not in KINDS:
        raise ValueError(f"from_side: latency_kind {kind!r} is not one of {', '.join(KINDS)}")
    per_query = {str(q): float(v) for q, v in side["latency_ms"].items()}
    samples = side.get("latency_samples_ms")
    if samples is None:
        return LatencySample(kind, [per_query[q] for q in sorted(per_query)], len(per_query), 1, per_query)
    by_query = {str(q): [float(x) for x in v] for q, v in samples.items()}
    repetitions = int(side.get("latency_repetitions", 1))
    return LatencySample(kind, [x for q in sorted(by_query) for x in by_query[q]], len(by_query), repetitions,
                         per_query)


def restrict_side(side: Mapping[str, Any], query_ids: set[str]) -> dict[str, Any]:
    """The latency entries of ``side`` limited to ``query_ids`` (the rest of ``side`` as it is)."""
    out = dict(side)
    for key in ("latency_ms", "latency_samples_ms"):
        if key in side:
            out[key] = {q: v for q, v in side[key].items() if q in query_ids}
    return out
