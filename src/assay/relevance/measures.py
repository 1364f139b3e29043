"""IR measures by their ir_measures names, computed with trec_eval's semantics.

Measures: ``P@k`` (trec_eval ``P_k``), ``R@k`` (``recall_k``), ``nDCG@k`` (``ndcg_cut_k``),
``RR@k`` (``recip_rank`` over the first k), ``RR`` (``recip_rank``) and ``AP`` (``map``). The name is
the identity: :func:`parse_measure` turns ``"nDCG@10"`` into a :class:`Measure`.

trec_eval semantics, followed exactly (checked against pytrec_eval to 1e-12 in the tests):

* Ranking: a query's documents are ordered by score descending, ties broken by docno descending
  (byte order, as trec_eval's ``strcmp``); the run's rank column is ignored.
* Relevant means ``grade >= relevance_level`` (default 1) for P, R, RR and AP. A retrieved document
  missing from the qrels (unjudged) is not relevant and has gain 0.
* Grade -1 (misleading or stale) is a gain of 0 and counts toward no ideal ranking:
  trec_eval treats a negative judgment as "in the pool but unjudged".
* nDCG uses the grade itself as the gain (not ``2**grade - 1``), the discount ``log2(rank + 1)``,
  and an ideal ranking of every positive grade of the query, highest first; ``relevance_level``
  does not change it. With no positive grade nDCG is 0.
* R and AP divide by the number of relevant documents in the qrels; with none they are 0.
* Which queries count. Per query, a value exists for every query that is both in the run and in the
  qrels. Queries in the run but not in the qrels are ignored (trec_eval: "queries for which there is
  no relevance information are ignored"). Queries in the qrels but absent from the run are, by
  default, left out of the mean, as trec_eval 9 and pytrec_eval do; with ``complete=True``
  (trec_eval ``-c``) the mean is over every query of the qrels and each missing query scores 0 (the
  value of an empty ranking for every measure here). trec_eval 10.0 instead stops with an error on
  a qrels query missing from the run unless ``-c`` is given; we keep the long-standing default and
  report the missing queries by name so nothing is dropped silently.

The evaluation is vectorised with numpy over the whole run (no per-query Python loop): sums run
in rank order, as trec_eval's do, so the numbers agree to the last bits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from assay.core.errors import AssayError
from assay.relevance.ranking import codes, rank_order
from assay.relevance.trec import Qrels, Run

DEFAULT_MEASURES = ("R@10", "nDCG@10", "RR@10", "P@10", "AP")

MISSING_QUERIES_NOTE = (
    "trec_eval semantics: per-query values exist for queries in both the run and the qrels; queries "
    "only in the run are ignored. Default (trec_eval 9 / pytrec_eval): the mean is over queries in "
    "both, and qrels queries missing from the run are listed, not scored. complete (trec_eval -c): "
    "the mean is over every qrels query, a missing query scoring 0.")

_PATTERN = re.compile(r"^(P|R|nDCG|RR)@([1-9][0-9]*)$|^(AP|RR)$")


class MeasureError(AssayError):
    """A measure name that is not one this package computes."""


@dataclass(frozen=True)
class Measure:
    """One measure: its family (``P``, ``R``, ``nDCG``, ``RR``, ``AP``) and cutoff (None: whole ranking)."""

    family: str
    cutoff: int | None = None

    @property
    def name(self) -> str:
        """The canonical ir_measures name, for example ``nDCG@10``."""
        return self.family if self.cutoff is None else f"{self.family}@{self.cutoff}"

    def __str__(self) -> str:
        return self.name


def parse_measure(name: str) -> Measure:
    """The :class:`Measure` for an ir_measures name.

    >>> parse_measure("nDCG@10").cutoff
    10

    Raises:
        MeasureError: an unknown name; the message lists the accepted forms.
    """
    m = _PATTERN.match(name.strip())
    if not m:
        raise MeasureError(f"measures: {name!r} is not a measure; use P@k, R@k, nDCG@k, RR@k, RR or AP "
                           "(ir_measures names, for example R@10,nDCG@10,RR@10,P@10,AP)")
    if m.group(3):
        return Measure(m.group(3))
    return Measure(m.group(1), int(m.group(2)))


def parse_measures(text: str | list[str] | tuple[str, ...]) -> list[Measure]:
    """Measures from a comma-separated string or a list of names, in order, without repeats."""
    names = [n for n in (text.split(",") if isinstance(text, str) else text) if n.strip()]
    out: list[Measure] = []
    for n in names:
        m = parse_measure(n)
        if m not in out:
            out.append(m)
    if not out:
        raise MeasureError("measures: no measure given; use for example R@10,nDCG@10,RR@10,P@10,AP")
    return out


@dataclass(frozen=True)
class Evaluation:
    """Per-query values and means of some measures for one run against one qrels.

    ``per_query``: DataFrame indexed by qid (sorted), one column per measure name. ``mean``: the
    mean of each column over the scored queries (nan when no query is scored). ``missing_from_run``:
    qrels queries the run lacks (scored 0 only when ``complete``). ``not_in_qrels``: run queries
    without judgments (never scored).
    """

    per_query: pd.DataFrame
    mean: dict[str, float]
    missing_from_run: list[str]
    not_in_qrels: list[str]
    complete: bool
    relevance_level: int

    def to_json(self) -> dict:
        """``{"mean": {measure: value}, "per_query": {qid: {measure: value}}, "queries": {...}, "note": ...}``."""
        per_query = {q: {m: float(v) for m, v in row.items()} for q, row in self.per_query.iterrows()}
        return {"mean": self.mean, "per_query": per_query, "relevance_level": self.relevance_level,
                "queries": {"scored": len(self.per_query), "missing_from_run": self.missing_from_run,
                            "not_in_qrels": self.not_in_qrels,
                            "missing_scored_as_zero": self.complete},
                "note": MISSING_QUERIES_NOTE}


def _group_positions(keys: np.ndarray) -> np.ndarray:
    """0-based position of each row within its run of equal ``keys`` (rows already grouped)."""
    n = keys.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    lengths = np.diff(np.r_[starts, n])
    return np.arange(n, dtype=np.int64) - np.repeat(starts, lengths)


def _per_query(measure: Measure, nq: int, rq: np.ndarray, pos: np.ndarray, rel: np.ndarray, gain: np.ndarray,
               num_rel: np.ndarray, ideal: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    """One measure's value for every query code (rows sorted in trec_eval order)."""
    k = measure.cutoff
    top = pos < k if k is not None else np.ones(pos.size, dtype=bool)
    safe = np.where(num_rel > 0, num_rel, 1)
    if measure.family == "P":
        if k is None:
            raise MeasureError("measures: P needs a cutoff (P@k); parse_measure never gives one without")
        return np.bincount(rq[top & rel], minlength=nq) / k
    if measure.family == "R":
        return np.where(num_rel > 0, np.bincount(rq[top & rel], minlength=nq) / safe, 0.0)
    if measure.family == "RR":
        hit = top & rel
        first_q, first_at = np.unique(rq[hit], return_index=True)  # rows are in rank order within a query
        out = np.zeros(nq)
        out[first_q] = 1.0 / (pos[hit][first_at] + 1)
        return out
    if measure.family == "AP":
        starts = np.r_[0, np.flatnonzero(rq[1:] != rq[:-1]) + 1] if rq.size else np.zeros(0, dtype=np.int64)
        cum = np.cumsum(rel)
        before = np.repeat(np.r_[0, cum][starts], np.diff(np.r_[starts, rq.size]))
        so_far = cum - before
        total = np.bincount(rq[rel], weights=so_far[rel] / (pos[rel] + 1.0), minlength=nq)
        return np.where(num_rel > 0, total / safe, 0.0)
    # nDCG@k: DCG over the first k retrieved, ideal DCG over the first k positive grades
    keep = top & (gain > 0)
    dcg = np.bincount(rq[keep], weights=gain[keep] / np.log2(pos[keep] + 2.0), minlength=nq)
    iq, ipos, igain = ideal
    itop = ipos < k if k is not None else np.ones(ipos.size, dtype=bool)
    idcg = np.bincount(iq[itop], weights=igain[itop] / np.log2(ipos[itop] + 2.0), minlength=nq)
    return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)


def evaluate(qrels: Qrels, run: Run, measures: Sequence[Measure] | Sequence[str] | str = DEFAULT_MEASURES, relevance_level: int = 1,
             complete: bool = False) -> Evaluation:
    """Evaluate ``run`` against ``qrels`` with trec_eval semantics (see the module docstring).

    Args:
        qrels: judgments; ``grade >= relevance_level`` is relevant, a negative grade has gain 0.
        run: the ranking; only the scores order it.
        measures: :class:`Measure` values or ir_measures names (list or comma-separated string).
        relevance_level: the lowest relevant grade (trec_eval ``-l``), used by P, R, RR and AP.
        complete: trec_eval ``-c``: score every qrels query, 0 for those the run lacks.

    Returns:
        An :class:`Evaluation`. With no query both in the run and the qrels (and not ``complete``)
        every mean is nan, as there is nothing to average (trec_eval exits with an error there).
    """
    measures = _as_measures(measures)
    qt, rt = qrels.table, run.table
    (jq, rq), q_all = codes(qt["qid"], rt["qid"])
    (jd, rd), d_all = codes(qt["docno"], rt["docno"])
    nq, nd = len(q_all), max(len(d_all), 1)
    grade = qt["grade"].to_numpy(dtype=np.int64)
    judged = np.zeros(nq, dtype=bool)
    judged[jq] = True
    in_run = np.zeros(nq, dtype=bool)
    in_run[rq] = True

    score = rt["score"].to_numpy(dtype=float)
    keep = judged[rq]
    rq, rd, score = rq[keep], rd[keep], score[keep]
    ranked = rank_order(rq, score, rd)
    rq, rd = rq[ranked], rd[ranked]
    pos = _group_positions(rq)

    jkey = jq.astype(np.int64) * nd + jd
    jorder = np.argsort(jkey, kind="stable")
    jkey_sorted, grade_sorted = jkey[jorder], grade[jorder]
    rkey = rq.astype(np.int64) * nd + rd
    at = np.searchsorted(jkey_sorted, rkey)
    found = at < jkey_sorted.size
    found[found] = jkey_sorted[at[found]] == rkey[found]
    rgrade = np.where(found, grade_sorted[np.minimum(at, jkey_sorted.size - 1)], -1)  # rkey is empty without qrels
    rel = found & (rgrade >= 0) & (rgrade >= relevance_level)
    gain = np.where(found & (rgrade > 0), rgrade, 0).astype(float)

    num_rel = np.bincount(jq[(grade >= 0) & (grade >= relevance_level)], minlength=nq)
    positive = grade > 0
    iorder = np.lexsort((-grade[positive], jq[positive]))
    iq, igain = jq[positive][iorder], grade[positive][iorder].astype(float)
    ideal = (iq, _group_positions(iq), igain)

    values = {m.name: _per_query(m, nq, rq, pos, rel, gain, num_rel, ideal) for m in measures}
    scored = judged & (in_run | complete)
    names = np.asarray(q_all, dtype=object)
    per_query = pd.DataFrame({name: v[scored] for name, v in values.items()}, index=pd.Index(names[scored], name="qid"))
    mean = {name: (float(per_query[name].mean()) if len(per_query) else math.nan) for name in values}
    return Evaluation(per_query=per_query, mean=mean,
                      missing_from_run=[str(q) for q in names[judged & ~in_run]],
                      not_in_qrels=[str(q) for q in names[in_run & ~judged]],
                      complete=complete, relevance_level=relevance_level)


def _as_measures(measures: Sequence[Measure] | Sequence[str] | str) -> list[Measure]:
    """``measures`` as :class:`Measure` values: a comma-separated string or a list of names is parsed."""
    if isinstance(measures, str):
        return parse_measures(measures)
    names = [m for m in measures if isinstance(m, str)]
    return parse_measures(names) if names else [m for m in measures if isinstance(m, Measure)]
