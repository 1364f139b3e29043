"""The people's final labels of each query, and the three answer figures scored against them.

The study scores citation/provenance accuracy, the stale-answer rate and abstention quality from
the final human labels of the frozen qrels (A and B where they agree, the arbiter where they do
not; :mod:`assay.study.qrels`), not from query or corpus metadata. The protocol names the three
figures and their thresholds but does not define them; these are the definitions.

Per query, from the final values of its judged (query, candidate) rows:

* **should abstain**: a row's ``abstention_correct`` says whether abstaining is correct as far as
  that candidate goes (false: the candidate is enough evidence to answer). Abstaining is correct
  for the query when it is correct on *every* judged candidate; one candidate the people say
  answers the query makes abstaining wrong.
* **acceptable citations**: the union of the rows' ``acceptable_citation_ids`` (opaque ids, mapped
  to corpus ``doc_id`` through the frozen rows of the same query).
* **stale documents**: candidates the people classified ``historical`` *and* graded -1 (the protocol:
  -1 is misleading, outdated or contradicting). A historical document graded up (the right answer
  to a question about the past) is not stale; a -1 that is not historical is misleading, not stale.

A mode's answer is :func:`assay.relevance.answers.answer_table`'s: the document it cites, or an
abstention. Per mode, each a proportion with a Wilson interval (``assay.stats.proportion``):

* ``citation_provenance_accuracy`` = answers whose cited document is among the query's acceptable
  citations / answers (every query the mode answered, including ones the people say it should
  have abstained on: a citation nobody accepted is not acceptable provenance);
* ``stale_answer_rate`` = answers citing a stale document / answers;
* ``abstention_quality`` = queries where the mode's answer-or-abstain decision matches the
  people's (abstained exactly when abstaining is correct) / labelled queries;
* ``false_abstention_rate`` = abstentions / queries the people say should be answered;
* ``unjudged_citation_rate`` = answers citing a document outside the judged pool / answers. Such
  a citation counts as not acceptable and not stale (nobody accepted it; nobody called it stale);
  this rate shows how often that happened.

Edge cases: a query with no frozen row has no labels and is left out of every figure (the pool
gives every query candidates, so this only happens for a query outside the split); a mode that
answers nothing gives nan accuracy and stale rate (empty denominators, shown as n = 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from assay.relevance.answers import Rate
from assay.study.evidence import FROZEN, EvidenceRoot
from assay.study.formats import read_rows
from assay.study.qrels import FrozenRow


@dataclass(frozen=True)
class QueryLabels:
    """The people's final labels of one query (corpus doc ids; see the module docstring)."""

    should_abstain: bool
    acceptable: frozenset[str]
    stale: frozenset[str]
    judged: frozenset[str]


def query_labels(rows: list[FrozenRow]) -> dict[str, QueryLabels]:
    """Each query's :class:`QueryLabels` from its frozen rows.

    >>> from assay.study.qrels import Sides
    >>> def row(d, doc, grade, abstain, cited, when):
    ...     return FrozenRow(query_id="q", document_id=d, doc_id=doc, reason=None,
    ...                      relevance=Sides(a=grade, b=grade, c=None, final=grade),
    ...                      abstention_correct=Sides(a=abstain, b=abstain, c=None, final=abstain),
    ...                      acceptable_citation_ids=Sides(a=cited, b=cited, c=None, final=cited),
    ...                      temporal_classification=Sides(a=when, b=when, c=None, final=when))
    >>> labels = query_labels([row("doc-1", "p1", 2, False, ("doc-1",), "current"),
    ...                        row("doc-2", "p2", -1, True, (), "historical")])["q"]
    >>> labels.should_abstain, sorted(labels.acceptable), sorted(labels.stale)
    (False, ['p1'], ['p2'])
    """
    by_query: dict[str, list[FrozenRow]] = {}
    for r in rows:
        by_query.setdefault(r.query_id, []).append(r)
    out = {}
    for q, found in sorted(by_query.items()):
        doc = {r.document_id: r.doc_id for r in found}
        out[q] = QueryLabels(
            should_abstain=all(r.abstention_correct.final for r in found),
            acceptable=frozenset(doc[d] for r in found for d in r.acceptable_citation_ids.final if d in doc),
            stale=frozenset(r.doc_id for r in found
                            if r.temporal_classification.final == "historical" and r.relevance.final == -1),
            judged=frozenset(doc.values()))
    return out


def read_labels(root: EvidenceRoot, split: str) -> dict[str, QueryLabels]:
    """The labels of ``split`` from its frozen qrels.

    Raises:
        InputError: the frozen qrels are missing or a row is not a :class:`FrozenRow` (file:line).
    """
    return query_labels([r for _, r in read_rows(root, root.file(split, FROZEN), FrozenRow)])


def human_rates(answers: pd.DataFrame, labels: dict[str, QueryLabels]) -> dict[str, Rate]:
    """The five rates of the module docstring for one mode's :func:`~assay.relevance.answers.answer_table`.

    Only the table's ``query_id``, ``abstained`` and ``cited`` columns are read; queries without
    labels are left out.
    """
    answered = citation_ok = stale = unjudged = matches = scored = should_answer = false_abstentions = 0
    for q, abstained, cited in zip(answers["query_id"], answers["abstained"], answers["cited"], strict=True):
        label = labels.get(q)
        if label is None:
            continue
        scored += 1
        matches += bool(abstained) == label.should_abstain
        if not label.should_abstain:
            should_answer += 1
            false_abstentions += bool(abstained)
        if abstained:
            continue
        answered += 1
        citation_ok += cited in label.acceptable
        stale += cited in label.stale
        unjudged += cited not in label.judged
    return {"citation_provenance_accuracy": Rate(citation_ok, answered),
            "stale_answer_rate": Rate(stale, answered),
            "abstention_quality": Rate(matches, scored),
            "false_abstention_rate": Rate(false_abstentions, should_answer),
            "unjudged_citation_rate": Rate(unjudged, answered)}
