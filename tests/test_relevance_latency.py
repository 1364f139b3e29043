"""Latency of the retrieval modes: measured with an injected clock, the repetitions p95's bound needs, and the
demo's modelled latency labelled as such."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from assay.relevance.corpus import StudyQuery
from assay.relevance.intervals import quantile_interval
from assay.relevance.latency import (MIN_REPETITIONS, ClockError, from_side, repetitions_for, restrict_side,
                                     side_entries, time_modes, upper_bound_size)
from assay.relevance.scoring import headings, latency_words
from assay.stats.quantile import quantile_ci
from assay.study.pooling import measure_latency

ROOT = Path(__file__).resolve().parents[1]


class FakeClock:
    """Seconds that advance by a seeded random duration at every second call (the end of a search)."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.now = 100.0
        self.calls = 0
        self.durations: list[float] = []

    def __call__(self) -> float:
        self.calls += 1
        if self.calls % 2 == 0:  # the end of a timed search
            d = round(float(self.rng.lognormal(mean=-5, sigma=0.5)), 6)
            self.durations.append(d)
            self.now += d
        return self.now


def upper_rank(n: int, q: float, level: float) -> int:
    """1-based rank of the upper bound, by summing the Binomial(n, q) pmf by hand: the smallest u with
    P(B <= u - 1) >= 1 - alpha/2 (n + 1 when no order statistic reaches)."""
    alpha, total = 1 - level, 0.0
    for u in range(1, n + 1):
        total += math.comb(n, u - 1) * q ** (u - 1) * (1 - q) ** (n - u + 1)
        if total >= 1 - alpha / 2 - 1e-12:
            return u
    return n + 1


def test_upper_bound_size_is_where_the_order_statistic_interval_first_has_an_upper_bound():
    # two-sided 95%: 72 (log(0.025)/log(0.95) = 71.92); one-sided 95% = two-sided 90%: 59 (58.40)
    assert upper_bound_size(0.95, 0.95) == 72
    assert upper_bound_size(0.95, 0.90) == 59
    for level, n in ((0.95, 72), (0.90, 59), (0.99, 104)):
        assert math.isnan(quantile_ci(range(n - 1), 0.95, level)[1])
        assert quantile_ci(range(n), 0.95, level)[1] == n - 1
        # scipy's own interval (what the pipeline reports) agrees
        assert math.isnan(quantile_interval(np.arange(n - 1.0), 0.95, level)[2])
        assert quantile_interval(np.arange(float(n)), 0.95, level)[2] == n - 1
    # one-sided upper bound from scipy directly: first finite at n = 59
    for n, finite in ((58, False), (59, True)):
        x = np.arange(float(n))
        ci = stats.quantile_test(x, q=np.quantile(x, 0.95), p=0.95, alternative="less").confidence_interval(0.95)
        assert math.isfinite(ci.high) is finite


def test_repetitions_reach_the_bound_for_small_splits():
    assert repetitions_for(27) == MIN_REPETITIONS  # 27 x 5 = 135 >= 72
    assert repetitions_for(10) == 8  # 10 x 8 = 80 >= 72 > 70
    assert repetitions_for(0) == MIN_REPETITIONS
    for queries in (1, 7, 14, 27, 59, 86):
        assert queries * repetitions_for(queries) >= 72


def test_measured_latency_with_a_seeded_fake_clock_gives_the_expected_order_statistic_bound():
    clock = FakeClock(seed=7)
    seen: list[tuple[str, str]] = []
    searches = {m: (lambda text, m=m: seen.append((m, text))) for m in ("lexical", "semantic")}
    queries = [(f"q{i:02d}", f"text {i}") for i in range(15)]
    reps = repetitions_for(len(queries))  # 15 x 5 = 75 >= 72
    measured = time_modes(searches, queries, reps, clock)
    # one untimed warm-up search per mode, then every query of every mode once per repetition
    assert len(seen) == 2 + 2 * 15 * reps and seen[:2] == [("lexical", "text 0"), ("semantic", "text 0")]
    assert len(clock.durations) == 2 * 15 * reps
    # the modes take turns: repetition 0 starts with lexical, repetition 1 with semantic
    assert seen[2][0] == "lexical" and seen[2 + 15][0] == "semantic" and seen[2 + 30][0] == "semantic"
    for m in ("lexical", "semantic"):
        assert measured[m].repetitions == reps
        assert all(len(v) == reps for v in measured[m].samples_ms.values())
    # lexical's samples are the durations of the searches lexical ran, in milliseconds
    order = [m for m, _ in seen[2:]]
    lex = sorted(round(d * 1000, 3) for m, d in zip(order, clock.durations, strict=True) if m == "lexical")
    assert sorted(measured["lexical"].values()) == lex
    side = side_entries(measured["lexical"])
    sample = from_side(side)
    assert (sample.kind, sample.queries, sample.repetitions, len(sample.values)) == ("measured", 15, reps, 75)
    p95, low, high = quantile_interval(sample.values, 0.95, 0.95)
    u = upper_rank(75, 0.95, 0.95)
    assert u == 75  # with 75 values the upper bound is the sample maximum (72..109, see assay.stats.quantile)
    assert high == lex[u - 1] == max(lex)
    assert p95 == pytest.approx(float(np.quantile(lex, 0.95)))
    assert low <= p95 <= high


def test_restricting_a_measured_side_keeps_every_repetition_of_the_kept_queries():
    side = side_entries(time_modes({"lexical": lambda t: None}, [("a", "x"), ("b", "y")], 3, FakeClock(1))["lexical"])
    kept = from_side(restrict_side(side, {"b"}))
    assert (kept.queries, kept.repetitions, len(kept.values)) == (1, 3, 3)
    assert kept.values == side["latency_samples_ms"]["b"]


def test_a_clock_that_goes_backwards_is_refused():
    ticks = iter([5.0, 4.0])
    with pytest.raises(ClockError, match="went backwards"):
        time_modes({"lexical": lambda t: None}, [("q", "x")], 1, lambda: next(ticks))


def test_measure_latency_times_the_searchers_the_study_built():
    class Searcher:
        def __init__(self):
            self.texts: list[str] = []

        def search(self, text):
            self.texts.append(text)

    searchers = {"graph": Searcher(), "hybrid": Searcher()}
    queries = [StudyQuery(query_id=f"q{i}", task="abstain", text=f"t{i}") for i in range(20)]
    measured = measure_latency(searchers, queries, 0.95, FakeClock(3))
    assert {m: r.repetitions for m, r in measured.items()} == {"graph": 5, "hybrid": 5}  # 20 x 5 = 100 >= 72
    assert len(searchers["graph"].texts) == 1 + 100


def test_the_stratified_sample_covers_the_p95_of_the_query_mix():
    # 27 queries with their own latency distributions (lognormal, medians 1-20 ms), each timed 5 times:
    # the two-sided 95% order-statistic interval covers the p95 of the query mix in >= 93% of 2,000 seeded draws.
    rng = np.random.default_rng(2026)
    medians = np.exp(rng.uniform(0, 3, size=27))
    true = _mixture_quantile(medians, 0.6, 0.95)
    hits = 0
    for _ in range(2000):
        x = (medians[:, None] * np.exp(0.6 * rng.standard_normal((27, 5)))).ravel()
        low, high = quantile_ci(x, 0.95)
        hits += low <= true <= high
    assert hits / 2000 >= 0.93


def _mixture_quantile(medians: np.ndarray, sigma: float, q: float) -> float:
    from scipy.optimize import brentq

    cdf = lambda t: float(np.mean(stats.lognorm.cdf(t, s=sigma, scale=medians))) - q  # noqa: E731
    return brentq(cdf, 1e-6, 1e6)


def test_modelled_latency_is_labelled_modelled_in_words_and_headings():
    modelled = {"modelled": 1, "n": 59, "queries": 59, "repetitions": 1}
    measured = {"modelled": 0, "n": 135, "queries": 27, "repetitions": 5}
    assert latency_words(modelled).startswith("Latency is modelled: a deterministic cost model")
    assert latency_words(measured) == ("Latency is measured: wall time of 27 queries x 5 repetitions = 135 timed "
                                       "searches per mode, every mode in one process.")
    assert headings({"p95_latency_ms": None}, modelled) == ["p95_latency_ms (modelled)"]
    assert headings({"p95_latency_ms": None}, measured) == ["p95_latency_ms (measured)"]


def test_the_demo_reports_say_modelled():
    summary = (ROOT / "reports/relevance/summary.md").read_text(encoding="utf-8")
    verdict = (ROOT / "reports/relevance/verdict.md").read_text(encoding="utf-8")
    assert "Latency is modelled: a deterministic cost model" in summary
    assert "| p95_latency_ms (modelled) |" in summary
    assert "Latency is modelled: a deterministic cost model" in verdict
    assert "p95_latency_ms (modelled)" in verdict and "measured" not in verdict


def test_measured_latency_reaches_the_mode_figures_with_queries_repetitions_and_the_bound():
    """The demo corpus's first 20 queries, two real searchers timed by a seeded fake clock, scored as a real study
    would: p95's upper bound is the order statistic of rank upper_rank(100) among the 100 timed searches."""
    from assay.relevance.corpus import load_documents, load_queries
    from assay.relevance.manifest import build_manifest
    from assay.relevance.modes.runner import build, run_mode
    from assay.relevance.params import RelevanceParams
    from assay.relevance.scoring import ModeInput, score_modes
    from assay.relevance.thresholds import load_thresholds
    from assay.relevance.trec import read_qrels

    params = RelevanceParams(modes=["lexical", "semantic"])
    documents = load_documents(str(ROOT / params.corpus))
    queries = load_queries(str(ROOT / params.queries))[:20]
    searchers = {m: build(m, params, documents) for m in params.modes}
    measured = measure_latency(searchers, queries, params.level, FakeClock(11))
    manifest = build_manifest(str(ROOT / params.corpus), str(ROOT / params.queries), params.model_dump(mode="json"))
    modes = {}
    for m in params.modes:
        result = run_mode(m, params, documents, queries, searchers[m])
        modes[m] = ModeInput(result.run, {"mode": m, "label": result.label, "manifest": manifest,
                                          **side_entries(measured[m]), "heuristic": result.heuristic})
    scores = score_modes(modes, read_qrels(ROOT / params.qrels), documents, queries, params, False,
                         load_thresholds(ROOT / params.thresholds))
    for m in params.modes:
        latency = scores.metrics[m]["latency_ms"]
        values = sorted(measured[m].values())
        assert (latency["modelled"], latency["queries"], latency["repetitions"], latency["n"]) == (0, 20, 5, 100)
        assert latency["high"] == values[upper_rank(100, 0.95, 0.95) - 1]
        assert latency["value"] == pytest.approx(float(np.quantile(values, 0.95)))
        assert scores.metrics[m]["thresholds"]["p95_latency_ms"]["high"] == latency["high"]
    assert latency_words(scores.metrics["lexical"]["latency_ms"]).startswith("Latency is measured: wall time of 20 "
                                                                              "queries x 5 repetitions = 100")
