"""A Bangla query retrieves its page in every retrieval mode (words come from assay.data.tokens)."""

import re

import pytest

from assay.data.tokens import WORD
from assay.relevance.ranking import order
from assay.relevance.modes.runner import run_mode
from assay.relevance.modes.text import content_words
from assay.relevance.params import RelevanceParams
from assay.relevance.corpus import StudyDocument, StudyQuery

# Bangla topics whose words carry vowel signs (U+09BE..U+09CC) and the virama (U+09CD), which are
# not \w: the old (?u)\b\w\w+\b pattern cut them into fragments shared across topics.
TOPICS = ["রাউটার বদলের ফি", "ইসিম চালুর সময়", "রোমিং দিনের প্যাকের দাম", "ছাত্র ছাড়ের প্রমাণ",
          "নম্বর পোর্টের ফর্ম", "বিভ্রাটের ক্রেডিটের পরিমাণ"]


def study():
    docs = [StudyDocument(doc_id=f"d{i}", family=f"f{i}", kind="policy", title=topic,
                          text=f"{topic} নীতি। দোকান এবং অ্যাপ {topic} দেখে।", valid_from="2025-01-01")
            for i, topic in enumerate(TOPICS)]
    queries = [StudyQuery(query_id=f"q{i}", task="current", text=f"{topic} কত?", acceptable_citation_ids=(f"d{i}",))
               for i, topic in enumerate(TOPICS)]
    return docs, queries


def test_bangla_words_stay_whole():
    assert content_words("বিক্রি") == ["বিক্রি"]
    assert re.findall(r"(?u)\b\w\w+\b", "বিক্রি") != ["বিক্রি"]  # the old pattern split it
    assert WORD.findall("a 5 ok") == ["ok"]  # two or more characters, as \w\w+ for English


@pytest.mark.parametrize("mode", ["lexical", "semantic", "hybrid", "reranked", "graph"])
def test_a_bangla_query_retrieves_its_page_first(mode):
    docs, queries = study()
    result = run_mode(mode, RelevanceParams(semantic={"components": 4}), docs, queries)
    t = result.run.table.iloc[order(result.run.table)]
    top = t.groupby("qid").head(1).set_index("qid")["docno"].to_dict()
    assert top == {f"q{i}": f"d{i}" for i in range(len(TOPICS))}
