"""The stand-in system `assay init` writes (systems/my_rag.py): indexed once, the same replies as before."""

from __future__ import annotations

import datetime as dt
import importlib.util
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.data.cases import load_cases
from assay.data.corpus import Document, load_corpus
from assay.rag.systems import SystemRequest

MINIMAL = Path(__file__).resolve().parents[1] / "src" / "assay" / "project" / "examples" / "minimal"


def module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


NOW = module(MINIMAL / "systems" / "my_rag.py", "my_rag_now")
BEFORE = module(Path(__file__).parent / "fixtures" / "my_rag_before.py", "my_rag_before")


@pytest.mark.parametrize("k, min_overlap", [(1, 1), (3, 1), (3, 2), (3, 4), (10, 1), (40, 3)])
def test_the_minimal_example_gets_the_replies_it_got_before(k, min_overlap):
    corpus = load_corpus(MINIMAL / "data" / "corpus")
    cases = load_cases(MINIMAL / "data" / "cases.jsonl", corpus)
    replies = []
    for case in cases:
        request = SystemRequest(case.id, case.question, case.lang, k, corpus, settings={"min_overlap": min_overlap})
        replies.append(NOW.answer(request))
        assert replies[-1] == BEFORE.answer(request), case.id
    assert {r["abstained"] for r in replies} == {False, True}  # both branches taken (4 of 30 abstain at 1, 15 at 4)
    assert len({tuple(r["retrieved"]) for r in replies}) > 1  # the ranking is not the same for every case


WORDS = ["refund", "refunds", "days", "thirty", "plan", "fibre", "ফেরত", "দিন", "退款", "天数", "ab", "the"]


def doc(doc_id: str, text: str) -> Document:
    return Document(id=doc_id, title=doc_id, lang="en", updated=dt.date(2026, 1, 1), text=text)


sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
text = st.lists(sentence, min_size=1, max_size=4).map(lambda s: ". ".join(s) + ".")


@settings(max_examples=200, deadline=None)
@given(st.lists(text, min_size=1, max_size=8), st.lists(st.sampled_from(WORDS), max_size=5),
       st.integers(1, 6), st.integers(0, 4))
def test_replies_equal_the_old_stand_in_on_any_corpus(texts, question, k, min_overlap):
    # ids out of order and texts repeated: the ties between documents are broken by id, as before
    corpus = {f"d{(7 * i) % 11:02d}": doc(f"d{(7 * i) % 11:02d}", t) for i, t in enumerate(texts)}
    request = SystemRequest("c1", " ".join(question) + "?", "en", k, corpus, settings={"min_overlap": min_overlap})
    assert NOW.answer(request) == BEFORE.answer(request)


def test_the_index_is_built_once_per_corpus():
    first = {"a": doc("a", "Refunds take thirty days."), "b": doc("b", "The fibre plan.")}
    second = dict(first)
    index = NOW.index_for(first)
    assert NOW.index_for(first) is index and index.postings["refunds"] == ["a"]
    assert NOW.index_for(second) is not index  # another corpus (even an equal one) gets its own
