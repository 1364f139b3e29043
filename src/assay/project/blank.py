"""A part added without example data (``assay add PART`` with no ``--example``).

The examples' review snapshots and queues are the NodiNet demo's synthetic data: wired into a team's
pipeline they would reach its review metrics and its training files. Without ``--example`` the part's
params lists that name example data are left empty (``review.snapshots: []``, ``ppi.reviews: []``),
the example's snapshot and queue files are not copied, and a short README stands in ``data/reviews/``
(a dependency of the training and ppi stages) saying how to export the first snapshot.

Likewise the retrieval part reads the project's own corpus (``relevance.corpus`` set to
``inputs.corpus``), not the demo's study corpus, and its queries and qrels are made from the
project's cases (:mod:`assay.relevance.case_queries`); only the pre-registered thresholds file is
copied.
"""

from __future__ import annotations

import re

#: (params section, key) whose value names example data; emptied when no example is asked for
EXAMPLE_LISTS: tuple[tuple[str, str], ...] = (("review", "snapshots"), ("ppi", "reviews"))
#: project-relative folders and files of example data a part brings only with ``--example``
EXAMPLE_FOLDERS: tuple[str, ...] = ("data/reviews/", "data/queues/", "data/relevance/corpus.jsonl",
                                    "data/relevance/queries.jsonl", "data/relevance/qrels.synthetic.trec")
#: where the retrieval part's queries and qrels made from the cases go (``relevance.queries``, ``relevance.qrels``)
CASE_QUERIES = "data/relevance/queries.jsonl"
CASE_QRELS = "data/relevance/qrels.cases.trec"
#: the one file that keeps ``data/reviews/`` (a stage dependency) in a project without snapshots
REVIEWS_README = "data/reviews/README.md"
NEXT_STEP = ("export a review snapshot from a queue: `assay queue export NAME` writes data/reviews/NAME.jsonl; "
             "then list NAME in review.snapshots (and random fills of `--from compare` queues in ppi.reviews) "
             "in params.yaml and run `dvc repro`")
README_TEXT = f"# Review snapshots\n\nNo snapshot yet. To add one, {NEXT_STEP}.\n"


def _set_key(text: str, section: str, key: str, value: str) -> str:
    """``text`` with the value (and comment) of ``key`` indented directly under ``section:`` replaced by ``value``."""
    pattern = re.compile(rf"(^{section}:[^\n]*\n(?:[ \t]+[^\n]*\n|\n)*?[ \t]+{key}:)[^\n]*", re.MULTILINE)
    return pattern.sub(lambda m: f"{m.group(1)} {value}", text, count=1)


def empty_example_lists(text: str) -> str:
    """``text`` (params.yaml) with every :data:`EXAMPLE_LISTS` value replaced by ``[]``, comments dropped.

    Only a key indented directly under its section is changed; a section or key that is absent is
    left alone, so the function is safe on any params text.
    """
    for section, key in EXAMPLE_LISTS:
        text = _set_key(text, section, key, f"[]   # {key} you export (see data/reviews/README.md)")
    return text


def own_relevance_inputs(text: str, corpus: str) -> str:
    """``text`` (params.yaml) with ``relevance.corpus`` set to ``corpus`` (the project's own) and
    ``relevance.qrels`` to :data:`CASE_QRELS`; without a ``relevance`` section it is returned as it is.

    >>> print(own_relevance_inputs("relevance:\\n  corpus: data/relevance/corpus.jsonl\\n  qrels: x.trec\\n", "data/corpus"))
    relevance:
      corpus: data/corpus   # the project's own corpus (inputs.corpus); a second corpus: docs/retrieval.md
      qrels: data/relevance/qrels.cases.trec   # from the cases' doc_ids (assay corpus queries)
    <BLANKLINE>
    """
    for key, value, note in (("corpus", corpus, "the project's own corpus (inputs.corpus); a second corpus: docs/retrieval.md"),
                             ("qrels", CASE_QRELS, "from the cases' doc_ids (assay corpus queries)")):
        text = _set_key(text, "relevance", key, f"{value}   # {note}")
    return text


def without_example_data(files: dict[str, bytes | str]) -> dict[str, bytes | str]:
    """``files`` (project-relative path -> content) without the example folders, plus the reviews README
    when the part has a reviews folder at all."""
    kept = {rel: content for rel, content in files.items() if not rel.startswith(EXAMPLE_FOLDERS)}
    if any(rel.startswith("data/reviews/") for rel in files):
        kept[REVIEWS_README] = README_TEXT
    return kept


__all__ = ["CASE_QRELS", "CASE_QUERIES", "NEXT_STEP", "empty_example_lists", "own_relevance_inputs", "without_example_data"]
