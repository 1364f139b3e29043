"""Scoring the modes of one study: the metrics file of each mode, the comparison and the report rows.

IR measures are computed over the answerable queries (task other than ``abstain``): an abstain
query has no relevant document, so trec_eval would score it 0 on every measure and the mean would
mix two questions. Abstain queries are scored by abstention quality instead.

Every metrics key is spelled here and only here. Thresholds are the study's seven pre-registered
ones, read from their one file (:mod:`assay.relevance.thresholds`) and fixed before the sealed
holdout is opened; each is reported with its value, interval and a 0/1 pass, and ``synthetic_qrels``
is 1 while the qrels file is the generator's, so nothing here is evidence of retrieval quality.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from assay.artifacts.registry import RETRIEVAL_RUN, RETRIEVAL_RUNTIME
from assay.core.fmt import md_words
from assay.relevance.answers import Rate, answer_rates, answer_table
from assay.relevance.comparison import paired_tests
from assay.relevance.intervals import mean_interval, proportion_interval, quantile_interval
from assay.relevance.latency import from_side
from assay.relevance.manifest import check_same
from assay.relevance.measures import MISSING_QUERIES_NOTE, evaluate
from assay.relevance.params import RelevanceParams
from assay.relevance.corpus import StudyDocument, StudyQuery
from assay.relevance.thresholds import Threshold
from assay.relevance.trec import Qrels, Run



@dataclass(frozen=True)
class ModeInput:
    """What the retrieve stage left for one mode: its run and its side file (latency, heuristic, manifest)."""

    run: Run
    side: dict


#: Scores a mode's answer table (:func:`answer_table`) into named rates; the default reads query and
#: corpus metadata (:func:`answer_rates`), the human study the people's labels (``assay.study.labels``).
RateRule = Callable[[pd.DataFrame], dict[str, Rate]]


def read_modes(names: list[str], root: str | Path = ".") -> dict[str, ModeInput]:
    """Each mode's run (:data:`~assay.artifacts.registry.RETRIEVAL_RUN`) and side file
    (:data:`~assay.artifacts.registry.RETRIEVAL_RUNTIME`) as the ``retrieve`` stage wrote them under ``root``.

    Raises:
        MissingArtifact: a mode's side file is absent (run ``dvc repro retrieve``).
    """
    from assay.relevance.trec import read_run

    out = {}
    for name in names:
        side = RETRIEVAL_RUNTIME.read(root, mode=name).model_dump(mode="json")  # validated, then as the study reads it
        out[name] = ModeInput(read_run(RETRIEVAL_RUN.path(root, mode=name)), side)
    return out


def _interval(value: float, low: float, high: float, n: int) -> dict:
    return {"value": value, "low": low, "high": high, "n": n}


def mode_scores(name: str, mode: ModeInput, qrels: Qrels, documents: list[StudyDocument],
                queries: list[StudyQuery], params: RelevanceParams, synthetic: bool,
                thresholds: dict[str, Threshold], rates: RateRule = answer_rates) -> tuple[dict, pd.DataFrame]:
    """The numbers-only metrics of one mode and its per-query table, scored against ``thresholds``.

    ``rates`` turns the mode's answers into the answer-level rates (each a Wilson interval); it must
    give every rate a threshold reads.
    """
    answerable = {q.query_id for q in queries if q.task != "abstain"}
    judged = Qrels(qrels.table[qrels.table["qid"].isin(answerable)].reset_index(drop=True), qrels.path)
    ev = evaluate(judged, mode.run, params.measures, params.relevance_level, complete=True)
    answers = answer_table(mode.run, mode.side["heuristic"], documents, queries, params.min_support)
    answer_figures = rates(answers)
    timing = from_side(mode.side)

    figures = {}
    measures = {}
    for m in ev.per_query.columns:
        mean, low, high = mean_interval(ev.per_query[m], params.level, bounds=(0.0, 1.0))  # IR measures lie in [0, 1]
        measures[m] = _interval(mean, low, high, len(ev.per_query))
        figures[m] = measures[m]
    answer_figs = {}
    for key, rate in answer_figures.items():
        low, high = proportion_interval(rate.hits, rate.n, params.level)
        answer_figs[key] = _interval(rate.value, low, high, rate.n)
        figures[key] = answer_figs[key]
    p95, low, high = quantile_interval(timing.values, 0.95, params.level)
    figures["p95_latency_ms"] = _interval(p95, low, high, len(timing.values))
    scored = {}
    for key, t in thresholds.items():
        fig = figures[t.figure]
        scored[key] = {"threshold": t.value, "value": fig["value"], "low": fig["low"], "high": fig["high"],
                       "pass": int(t.met(fig["value"]))}
    metrics = {"queries": {"scored": len(ev.per_query), "missing_from_run": len(ev.missing_from_run),
                           "total": len(queries)},
               "measures": measures, "answers": answer_figs,
               "latency_ms": {**figures["p95_latency_ms"], "modelled": int(timing.kind == "modelled"),
                              "queries": timing.queries, "repetitions": timing.repetitions},
               "thresholds": scored, "thresholds_met": sum(t["pass"] for t in scored.values()),
               "synthetic_qrels": int(synthetic), "level": params.level}
    table = answers.merge(ev.per_query, left_on="query_id", right_index=True, how="left")
    table["latency_ms"] = table["query_id"].map(pd.Series(timing.per_query_ms, dtype=float))
    table.insert(0, "mode", name)
    return metrics, table


@dataclass(frozen=True)
class ModeScores:
    """What :func:`score_modes` found for a set of modes scored on the same queries.

    Attributes:
        metrics: ``{mode: numbers-only metrics}`` (the fields of
            :class:`~assay.artifacts.relevance.ModeMetrics`, see :func:`mode_scores`), by mode name.
        per_query: one row per mode and query: the answer, each measure and the latency, sorted by mode then query.
        comparison: the paired tests between modes (:func:`~assay.relevance.comparison.paired_tests`).
        manifest: the runtime manifest every mode shares.
        labels: a readable label per mode (for example ``LSA over TF-IDF``).
        heuristic: per mode, the queries whose candidates came from the heuristic only (empty ones left out).
        note: how a query missing from a run is scored (:data:`~assay.relevance.measures.MISSING_QUERIES_NOTE`).
    """

    metrics: dict[str, dict]
    per_query: pd.DataFrame
    comparison: list[dict]
    manifest: dict
    labels: dict[str, str]
    heuristic: dict[str, dict[str, list[str]]]
    note: str = MISSING_QUERIES_NOTE


def score_modes(modes: dict[str, ModeInput], qrels: Qrels, documents: list[StudyDocument],
                queries: list[StudyQuery], params: RelevanceParams, synthetic: bool,
                thresholds: dict[str, Threshold], rates: RateRule = answer_rates) -> ModeScores:
    """Every mode's metrics, the per-query table, the paired comparison and the shared manifest.

    ``rates`` scores each mode's answers (see :func:`mode_scores`).

    Raises:
        ManifestMismatch: the modes did not all run on the same corpus, queries, params and runtime.
    """
    manifest = check_same({name: m.side["manifest"] for name, m in modes.items()})
    metrics, tables = {}, []
    for name in sorted(modes):
        metrics[name], table = mode_scores(name, modes[name], qrels, documents, queries, params, synthetic, thresholds,
                                           rates)
        tables.append(table)
    per_query = pd.concat(tables, ignore_index=True).sort_values(["mode", "query_id"], kind="stable")
    by_mode = {name: t.set_index("query_id")[params.measures].dropna()
               for name, t in per_query.groupby("mode", sort=True)}
    tests = paired_tests(by_mode, params.measures)
    return ModeScores(metrics=metrics, per_query=per_query, comparison=tests, manifest=manifest,
                      labels={name: m.side["label"] for name, m in modes.items()},
                      heuristic={name: {q: d for q, d in m.side["heuristic"].items() if d} for name, m in modes.items()})


def comparison_metrics(tests: list[dict]) -> dict:
    """Numbers-only view of the paired tests: ``{measure: {"a_vs_b": {mean_diff, p, p_holm, reject}}}``."""
    out: dict = {}
    for r in tests:
        out.setdefault(r["measure"], {})[f"{r['a']}_vs_{r['b']}"] = {
            "mean_diff": r["mean_diff"], "p": r["p"], "p_holm": r["p_holm"], "reject": int(r["reject"]), "n": r["n"]}
    return out


def _fmt(x: float | None, spec: str = ".3f") -> str:
    return "n/a" if x is None or x != x else format(x, spec)


def headings(thresholds: dict[str, Threshold], latency: dict | None) -> list[str]:
    """The threshold keys as table headings, p95 latency's marked modelled or measured (unmarked when
    ``latency`` is None: nothing says which).

    >>> headings({"p95_latency_ms": None, "ndcg_at_10": None}, {"modelled": 1})
    ['p95_latency_ms (modelled)', 'ndcg_at_10']
    """
    if latency is None:
        return list(thresholds)
    kind = "modelled" if latency["modelled"] else "measured"
    return [f"{key} ({kind})" if key == "p95_latency_ms" else key for key in thresholds]


def latency_words(latency: dict | None) -> str:
    """One sentence saying whether p95 latency is modelled or measured, and over how many searches ("" for None).

    >>> latency_words({"modelled": 1, "n": 59, "queries": 59, "repetitions": 1})
    "Latency is modelled: a deterministic cost model of each mode's work (assay.relevance.modes.runner), not a measurement."
    >>> latency_words({"modelled": 0, "n": 135, "queries": 27, "repetitions": 5})
    'Latency is measured: wall time of 27 queries x 5 repetitions = 135 timed searches per mode, every mode in one process.'
    """
    if latency is None:
        return ""
    if latency["modelled"]:
        return ("Latency is modelled: a deterministic cost model of each mode's work (assay.relevance.modes.runner), "
                "not a measurement.")
    return (f"Latency is measured: wall time of {latency['queries']} queries x {latency['repetitions']} repetitions = "
            f"{latency['n']} timed searches per mode, every mode in one process.")


def summary_markdown(result: ModeScores, params: RelevanceParams, synthetic: bool, thresholds: dict[str, Threshold]) -> str:
    """A one-page summary: each mode's figures with intervals against the seven thresholds."""
    lines = ["# Retrieval modes", ""]
    if synthetic:
        lines += ["**Synthetic qrels**: the judgments come from the demo generator, not from the human study. "
                  "No figure here is evidence of retrieval quality; the human relevance study's verdict "
                  "(docs/relevance-study.md) needs frozen human qrels.", ""]
    lines += [f"Intervals: {params.level:.0%}; measure means use a t interval over queries, rates a Wilson "
              "interval, p95 latency the order-statistic interval. IR measures cover answerable queries; "
              + result.note, ""]
    latency = next(iter(result.metrics.values()))["latency_ms"] if result.metrics else None
    head = "| mode | " + " | ".join(headings(thresholds, latency)) + " | met |"
    lines += [head, "|" + "---|" * (len(thresholds) + 2)]
    for name, m in sorted(result.metrics.items()):
        cells = [f"{_fmt(t['value'])} [{_fmt(t['low'])}, {_fmt(t['high'])}] {'pass' if t['pass'] else 'FAIL'}"
                 for t in m["thresholds"].values()]
        lines.append(f"| {md_words(name)} | " + " | ".join(cells) + f" | {m['thresholds_met']}/{len(thresholds)} |")
    shown = ", ".join(md_words(t) for t in thresholds.values())
    lines += ["", "Thresholds (pre-registered: fixed before the sealed holdout is opened): " + shown,
              "", "## Modes", ""]
    lines += [f"- {md_words(name)}: {md_words(label)}" for name, label in sorted(result.labels.items())]
    lines += ["", latency_words(latency),
              "", "## Paired comparisons (t test, Holm-adjusted within each measure)", "",
              "| measure | a | b | n | mean a-b | p | p Holm |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['measure']} | {r['a']} | {r['b']} | {r['n']} | {_fmt(r['mean_diff'])} | {_fmt(r['p'], '.2g')} | "
              f"{_fmt(r['p_holm'], '.2g')} |" for r in result.comparison]
    return "\n".join(lines) + "\n"
