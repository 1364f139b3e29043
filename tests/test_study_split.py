"""The family split: no family and no paraphrase of a family on both sides; sides restated with hashlib."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.core.errors import InputError
from assay.relevance.corpus import StudyDocument, StudyQuery, load_documents, load_queries
from assay.study.split import family_groups, paraphrase_links, split_families, split_problems

ROOT = Path(__file__).resolve().parents[1]
TEXTS = {
    "fa": "The monthly data cap of the student plan is 40 GB, counted from the first day of each month.",
    "fb": "Router replacement takes three working days once the faulty box reaches a shop.",
    "fc": "Parental controls are switched on in the app under Settings, Family, Filters.",
}


def doc(doc_id: str, family: str, text: str) -> StudyDocument:
    return StudyDocument(doc_id=doc_id, family=family, kind="policy", title="t", text=text, valid_from=dt.date(2024, 1, 1))


def query(qid: str, family: str | None) -> StudyQuery:
    if family is None:
        return StudyQuery(query_id=qid, task="abstain", text="Do you rent drones?")
    return StudyQuery(query_id=qid, task="current", text="what is it?", family=family, acceptable_citation_ids=("x",))


def side_by_hand(seed: int, key: str, share: float) -> str:
    """The split rule restated: sha256(f"{seed}:{key}"), first 8 bytes big-endian / 2**64 < share -> sealed."""
    u = int.from_bytes(hashlib.sha256(f"{seed}:{key}".encode()).digest()[:8], "big") / 2**64
    return "sealed_holdout" if u < share else "development"


def test_sides_follow_the_salted_family_hash_and_queries_follow_their_family():
    docs = [doc(f"{f}-1", f, t) for f, t in TEXTS.items()]
    qs = [query("q1", "fa"), query("q2", "fb"), query("q3", None)]
    split = split_families(docs, qs, 0.5, 7, 0.9)
    assert split.family_side == {f: side_by_hand(7, f, 0.5) for f in TEXTS}
    assert split.links == [] and split.groups == 3
    sides = {q.query_id: side for side, qq in split.queries.items() for q in qq}
    assert sides == {"q1": side_by_hand(7, "fa", 0.5), "q2": side_by_hand(7, "fb", 0.5),
                     "q3": side_by_hand(7, "query:q3", 0.5)}


def test_a_paraphrase_of_another_family_goes_to_that_familys_side():
    # find a seed where fa and fb fall on different sides by their own hashes
    seed = next(s for s in range(100) if side_by_hand(s, "fa", 0.5) != side_by_hand(s, "fb", 0.5))
    docs = [doc("a1", "fa", TEXTS["fa"]), doc("b1", "fb", TEXTS["fb"]),
            doc("b2", "fb", TEXTS["fa"].replace("40 GB", "40 GB of data"))]  # fb holds a paraphrase of fa
    split = split_families(docs, [], 0.5, seed, 0.8)
    assert [(a, b) for a, b, _ in split.links] == [("fa", "fb")]
    assert split.family_side["fa"] == split.family_side["fb"] == side_by_hand(seed, "fa", 0.5)  # group named by fa
    assert split_problems(docs, {d.doc_id: split.family_side[d.family] for d in docs}, 0.8) == []


def test_split_problems_refuses_a_family_on_both_sides_and_a_paraphrase_across():
    docs = [doc("a1", "fa", TEXTS["fa"]), doc("a2", "fa", TEXTS["fc"]), doc("b1", "fb", TEXTS["fa"] + " ")]
    problems = split_problems(docs, {"a1": "development", "a2": "sealed_holdout", "b1": "sealed_holdout"}, 0.9)
    assert [p.field for p in problems] == ["fa"] and "both sides" in problems[0].message
    problems = split_problems(docs, {"a1": "development", "a2": "development", "b1": "sealed_holdout"}, 0.9)
    assert [p.field for p in problems] == ["fa/fb"] and "paraphrases" in problems[0].message


def test_the_demo_split_has_no_leak_and_joins_the_near_identical_families():
    docs = load_documents(str(ROOT / "data/relevance/corpus.jsonl"))
    qs = load_queries(str(ROOT / "data/relevance/queries.jsonl"))
    split = split_families(docs, qs, 0.3, 2026, 0.9)
    doc_side = {d.doc_id: split.family_side[d.family] for d in docs}
    assert split_problems(docs, doc_side, 0.9) == []
    for a, b, _ in split.links:
        assert split.family_side[a] == split.family_side[b]
    counts = split.counts(docs)
    assert sum(c["documents"] for c in counts.values()) == len(docs)
    assert sum(c["queries"] for c in counts.values()) == len(qs)
    assert counts["sealed_holdout"]["families"] > 0 and counts["development"]["families"] > 0


def test_a_query_naming_an_unknown_family_is_an_input_error():
    with pytest.raises(InputError, match="names family 'fz'"):
        split_families([doc("a1", "fa", TEXTS["fa"])], [query("q1", "fz")], 0.5, 1, 0.9)


def test_links_chain_into_one_group():
    assert family_groups(["f1", "f2", "f3", "f4"], [("f1", "f3", 1.0), ("f3", "f4", 1.0)]) == {
        "f1": "f1", "f2": "f2", "f3": "f1", "f4": "f1"}


def test_paraphrase_links_ignore_documents_of_one_family():
    docs = [doc("a1", "fa", TEXTS["fa"]), doc("a2", "fa", TEXTS["fa"])]
    assert paraphrase_links(docs, 0.5) == []


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["fa", "fb", "fc", "fd", "fe"]), min_size=1, max_size=5, unique=True),
       st.integers(0, 10_000))
def test_adding_an_unrelated_family_moves_nothing(families, seed):
    texts = {"fa": TEXTS["fa"], "fb": TEXTS["fb"], "fc": TEXTS["fc"],
             "fd": "Number porting keeps your number when you switch to NodiNet.",
             "fe": "Outage credit is paid to the next bill after a cut of four hours."}
    docs = [doc(f"{f}-1", f, texts[f]) for f in families]
    before = split_families(docs[:-1], [], 0.4, seed, 0.9).family_side if len(docs) > 1 else {}
    after = split_families(docs, [], 0.4, seed, 0.9).family_side
    assert all(after[f] == side for f, side in before.items())
    assert set(after.values()) <= {"development", "sealed_holdout"}
