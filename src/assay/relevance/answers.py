"""What a mode would answer, and the answer-level rates of the relevance study: citation/provenance accuracy,
stale-answer rate and abstention quality.

The answer rule (the same for every mode): the cited document is the first document of the
query's ranking that is not a heuristic (graph-only) candidate. The mode answers when that
document holds at least ``min_support`` of the query's distinct content words, and abstains
otherwise (or when nothing was retrieved).

Per query:

* ``citation_ok`` (answerable queries the mode answered): the cited document is one of the query's
  ``acceptable_citation_ids``; ``None`` when the query should abstain or the mode abstained.
* ``stale`` (``current`` queries the mode answered): the cited document is superseded.
* ``abstained``; ``should_abstain`` (task ``abstain``).

These rates read query and corpus metadata (the retrieval-mode stage on synthetic qrels); the human
study keeps :func:`answer_table`'s answers but scores them against the people's final labels
(``assay.study.labels``), through the ``rates`` argument of ``assay.relevance.scoring.mode_scores``.

Rates, each with its count so an empty denominator is visible (the rate is then nan):
``citation_provenance_accuracy`` = citation_ok / answered answerable queries;
``stale_answer_rate`` = stale / answered current queries;
``abstention_quality`` = correct abstentions / queries that should abstain;
``false_abstention_rate`` = abstentions / answerable queries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from assay.relevance.modes.text import content_words
from assay.relevance.corpus import StudyDocument, StudyQuery
from assay.relevance.trec import Run


@dataclass(frozen=True)
class Rate:
    """``hits`` of ``n`` and their share (nan when ``n`` is 0)."""

    hits: int
    n: int

    @property
    def value(self) -> float:
        return self.hits / self.n if self.n else math.nan


def support(query: str, document: str) -> float:
    """Share of the query's distinct content words found in the document (0 for a query without any).

    >>> support("fee for eSIM activation", "eSIM activation costs nothing")
    0.6666666666666666
    """
    q = set(content_words(query))
    return len(q & set(content_words(document))) / len(q) if q else 0.0


def answer_table(run: Run, heuristic: dict[str, list[str]], documents: list[StudyDocument],
                 queries: list[StudyQuery], min_support: float) -> pd.DataFrame:
    """One row per query (sorted by id): task, cited docno, support, abstained, citation_ok, stale."""
    from assay.relevance.ranking import order

    by_id = {d.doc_id: d for d in documents}
    t = run.table.iloc[order(run.table)]
    ranked = t.groupby("qid", sort=False)["docno"].apply(list).to_dict()
    rows = []
    for q in sorted(queries, key=lambda q: q.query_id):
        skip = set(heuristic.get(q.query_id, ()))
        cited = next((d for d in ranked.get(q.query_id, []) if d not in skip), None)
        share = support(q.text, by_id[cited].text) if cited else 0.0
        abstained = cited is None or share < min_support
        answered = not abstained
        rows.append({"query_id": q.query_id, "task": q.task, "cited": None if abstained else cited,
                     "support": round(share, 6), "abstained": abstained,
                     "citation_ok": (cited in q.acceptable_citation_ids) if answered and q.task != "abstain" else None,
                     "stale": by_id[cited].superseded if cited is not None and answered and q.task == "current" else None})
    return pd.DataFrame(rows)


def answer_rates(table: pd.DataFrame) -> dict[str, Rate]:
    """The four rates of the module docstring from an :func:`answer_table`."""
    answerable = table[table["task"] != "abstain"]
    should = table[table["task"] == "abstain"]
    cited = answerable["citation_ok"].dropna()
    stale = table["stale"].dropna()
    return {"citation_provenance_accuracy": Rate(int(cited.sum()), len(cited)),
            "stale_answer_rate": Rate(int(stale.sum()), len(stale)),
            "abstention_quality": Rate(int(should["abstained"].sum()), len(should)),
            "false_abstention_rate": Rate(int(answerable["abstained"].sum()), len(answerable))}
