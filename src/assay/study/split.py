"""Development / sealed holdout by document family, with paraphrases kept on one side.

The protocol's split (docs/relevance-study.md, "Split by document family").

Families that are paraphrases of each other are joined first: two documents of different families
whose texts score at least ``paraphrase_threshold`` with the leakage paraphrase detector
(:func:`assay.data.leakage.paraphrase.char_ngrams`, cosine of character 3-5-gram TF-IDF vectors)
join their families into one group (connected components, so links chain). A group goes to the
sealed holdout when ``unit_hash(str(seed), group)`` is below ``holdout_share``, where the group is
named by its smallest family id; otherwise to development. A query follows its family; a query
without a family (an abstain query) is split by ``unit_hash(str(seed), "query:" + query_id)``.

The side depends only on the seed, the share and the group, so re-running gives the same split and
adding an unrelated family moves nothing. :func:`split_problems` re-checks any assignment: a family
on both sides, or a paraphrase pair across the sides, is refused.

Edge cases: a query naming a family the corpus lacks is an input error. The detector compares every
document with every other (cost grows with the square of the corpus); it sees rewordings that keep
word stems, not synonyms.

:func:`split_step` is stage ``study_split``'s work: it reads the study file's corpus and queries,
writes ``split.json`` (family -> side, the coordinator's) and each split's ``queries.jsonl`` under
the root, and returns the record its stage commits (:mod:`assay.study.records`): counts, the
protocol version and the SHA-256 of every evidence file it wrote or read, named relative to the root.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.core.errors import InputError, Problem, raise_problems
from assay.core.io import sha256_file, write_json, write_jsonl
from assay.data.leakage.paraphrase import char_ngrams
from assay.data.split import unit_hash
from assay.relevance.corpus import StudyDocument, StudyQuery, load_documents, load_queries
from assay.study.evidence import QUERIES, SEALED, SPLIT_FILE, SPLITS, EvidenceRoot, file_hashes
from assay.study.protocol import Study
from assay.study.records import stage_record

DEVELOPMENT = SPLITS[0]


@dataclass(frozen=True)
class FamilySplit:
    """Each family's side, the queries of each side and the paraphrase links that joined families."""

    family_side: dict[str, str]
    queries: dict[str, list[StudyQuery]]
    links: list[tuple[str, str, float]]
    groups: int

    def documents(self, documents: list[StudyDocument], side: str) -> list[StudyDocument]:
        """The documents of ``side``, in corpus order."""
        return [d for d in documents if self.family_side[d.family] == side]

    def counts(self, documents: list[StudyDocument]) -> dict[str, dict[str, int]]:
        """Families, documents and queries per side (both sides always present)."""
        return {side: {"families": sum(s == side for s in self.family_side.values()),
                       "documents": len(self.documents(documents, side)),
                       "queries": len(self.queries[side])} for side in SPLITS}


def paraphrase_links(documents: list[StudyDocument], threshold: float) -> list[tuple[str, str, float]]:
    """``(family, family, score)`` for every pair of documents of different families scoring >= ``threshold``.

    Each family pair appears once, with its highest score, sorted.
    """
    texts = [d.text for d in documents]
    best: dict[tuple[str, str], float] = {}
    for i, j, score in char_ngrams(texts, threshold)(texts):
        a, b = sorted((documents[i].family, documents[j].family))
        if a != b:
            best[(a, b)] = max(best.get((a, b), 0.0), round(float(score), 6))
    return sorted((a, b, s) for (a, b), s in best.items())


def family_groups(families: list[str], links: list[tuple[str, str, float]]) -> dict[str, str]:
    """Family -> the smallest family id of its connected component under ``links``.

    >>> family_groups(["f1", "f2", "f3"], [("f2", "f3", 0.95)])
    {'f1': 'f1', 'f2': 'f2', 'f3': 'f2'}
    """
    parent = {f: f for f in families}

    def find(f: str) -> str:
        while parent[f] != f:
            parent[f] = parent[parent[f]]
            f = parent[f]
        return f

    for a, b, _ in links:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return {f: find(f) for f in families}


def split_families(documents: list[StudyDocument], queries: list[StudyQuery], holdout_share: float, seed: int,
                   threshold: float, path: str = "queries") -> FamilySplit:
    """Assign every family and query to development or the sealed holdout (see the module docstring).

    Raises:
        InputError: a query names a family that no document has.
    """
    families = sorted({d.family for d in documents})
    links = paraphrase_links(documents, threshold)
    groups = family_groups(families, links)
    salt = str(seed)
    family_side = {f: SEALED if unit_hash(salt, groups[f]) < holdout_share else DEVELOPMENT for f in families}
    problems: list[Problem] = []
    by_side: dict[str, list[StudyQuery]] = {side: [] for side in SPLITS}
    for q in queries:
        if q.family is None:
            side = SEALED if unit_hash(salt, f"query:{q.query_id}") < holdout_share else DEVELOPMENT
        elif q.family not in family_side:
            problems.append(Problem(path, None, "family", f"query {q.query_id!r} names family {q.family!r}, which no "
                                    "document has", "name a family of the corpus, or none for an abstain query"))
            continue
        else:
            side = family_side[q.family]
        by_side[side].append(q)
    if problems:
        raise InputError(problems)
    return FamilySplit(family_side, by_side, links, len(set(groups.values())))


def split_problems(documents: list[StudyDocument], doc_side: dict[str, str], threshold: float,
                   path: str = "split") -> list[Problem]:
    """Leaks of a document -> side assignment: a family on both sides, a paraphrase pair across the sides."""
    problems = []
    sides: dict[str, set[str]] = {}
    for d in documents:
        sides.setdefault(d.family, set()).add(doc_side[d.doc_id])
    for family, seen in sorted(sides.items()):
        if len(seen) > 1:
            problems.append(Problem(path, None, family, "family is on both sides of the split",
                                    "put every document of a family on one side"))
    family_side = {d.family: doc_side[d.doc_id] for d in documents}
    for a, b, score in paraphrase_links(documents, threshold):
        if family_side[a] != family_side[b] and len(sides[a]) == 1 and len(sides[b]) == 1:
            problems.append(Problem(path, None, f"{a}/{b}", f"families are paraphrases (score {score:.3f}) on "
                                    "different sides", "keep paraphrased families on one side"))
    return problems


def split_step(study: Study, root: EvidenceRoot) -> dict:
    """Split the corpus by family; write ``split.json`` and each split's ``queries.jsonl`` under the root.

    Raises:
        InputError: a bad corpus or query row, a query naming an unknown family, or a leak across the split.
    """
    corpus, queries_path = study.resolve(study.corpus, root), study.resolve(study.queries, root)
    documents, queries = load_documents(str(corpus)), load_queries(str(queries_path))
    s = study.split
    split = split_families(documents, queries, s.holdout_share, s.seed, s.paraphrase_threshold, root.show(queries_path))
    doc_side = {d.doc_id: split.family_side[d.family] for d in documents}
    raise_problems(split_problems(documents, doc_side, s.paraphrase_threshold, "split"))
    write_json(root.path / SPLIT_FILE, {"families": split.family_side, "synthetic": study.synthetic})
    names = [SPLIT_FILE]
    for side in SPLITS:
        rows = [q.model_dump(mode="json") for q in sorted(split.queries[side], key=lambda q: q.query_id)]
        write_jsonl(root.file(side, QUERIES), rows)
        names.append(f"{side}/{QUERIES}")
    return stage_record(study, counts=split.counts(documents), paraphrase_links=len(split.links), groups=split.groups,
                   inputs={"corpus": sha256_file(corpus), "queries": sha256_file(queries_path)},
                   evidence=file_hashes(root, names))
