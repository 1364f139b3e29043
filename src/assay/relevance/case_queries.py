"""Retrieval queries and qrels taken from a project's own cases, for the retrieval part without example data.

Each case becomes one query with the case's id and question: an answer case is a ``current`` query
whose acceptable citations are the case's ``doc_ids`` (each judged grade 2, "directly supports", in
the qrels); an abstain case is an ``abstain`` query with no citation and no judgment. The qrels are
the team's own statement of which documents answer each question, not a pooled human judgment of
what the modes retrieved: a document no case names counts as not relevant. The holdout cases are
among them, so tune retrieval on them only with that in mind (or remove those queries).
"""

from __future__ import annotations

from pathlib import Path

from assay.relevance.corpus import StudyQuery

#: the qrels file of a retrieval part made from the cases (not "synthetic": the grades are the team's own doc_ids)
GRADE = 2
HEADER = ("Qrels from the cases' doc_ids (`assay corpus queries`): grade 2 for every document a case names;\n"
          "a document no case names is unjudged, so it counts as not relevant.")


def case_queries(cases_path: str | Path, corpus: str | Path) -> tuple[list[StudyQuery], list[tuple[str, str, int]]]:
    """The queries and the ``(qid, docno, grade)`` judgments of the cases at ``cases_path`` (cited ids checked in ``corpus``).

    Raises:
        InputError: the cases or the corpus do not validate (every problem, file:line).
    """
    from assay.data.corpus import load_dataset

    cases, _ = load_dataset(cases_path, corpus)
    queries, qrels = [], []
    for c in cases:
        answer = c.expect == "answer"
        queries.append(StudyQuery(query_id=c.id, task="current" if answer else "abstain", text=c.question,
                                  acceptable_citation_ids=tuple(c.doc_ids) if answer else ()))
        qrels += [(c.id, doc_id, GRADE) for doc_id in c.doc_ids] if answer else []
    return sorted(queries, key=lambda q: q.query_id), sorted(qrels)


def write_case_queries(cases_path: str | Path, corpus: str | Path, queries_out: str | Path, qrels_out: str | Path) -> int:
    """Write :func:`case_queries`' queries (JSONL, sorted) and qrels (TREC, sorted), atomically; return the query count."""
    import pandas as pd

    from assay.core.io import write_jsonl
    from assay.relevance.trec import Qrels, write_qrels

    queries, judged = case_queries(cases_path, corpus)
    table = pd.DataFrame(judged, columns=["qid", "docno", "grade"]).astype({"qid": str, "docno": str, "grade": "int64"})
    write_qrels(qrels_out, Qrels(table), HEADER)
    write_jsonl(queries_out, [q.model_dump(mode="json", exclude_none=True) for q in queries])
    return len(queries)


__all__ = ["case_queries", "write_case_queries"]
