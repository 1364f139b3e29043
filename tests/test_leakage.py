import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.data.cases import CaseRecord
from assay.data.leakage import jaccard, leakage_report, near_duplicates, words

from conftest import case


def test_seed_reworded_copy_scores_low():
    # word sets without function words: {many, days, have, send, bike, back} and {long, have, return, new, bike}
    # share {have, bike}: 2 / (6 + 5 - 2) = 2/9 = 0.222
    assert jaccard("How many days do I have to send a bike back?", "How long do I have to return a new bike?") == pytest.approx(2 / 9)


def test_bangla_words_stay_whole():
    assert words("রিফান্ড কত দিনে পাব?") == frozenset({"রিফান্ড", "কত", "দিনে", "পাব"})


def test_empty_texts_match_nothing():
    assert math.isnan(jaccard("", "?"))
    assert near_duplicates(["", "the a"], ["", "refund"], 0.5) == []


def brute(left, right, t):
    out = []
    for (i, a), (j, b) in itertools.product(enumerate(left), enumerate(right)):
        s = jaccard(a, b)
        if s == s and s >= t:
            out.append((i, j))
    return out


texts = st.lists(st.lists(st.sampled_from([f"w{i}" for i in range(12)]), max_size=6).map(" ".join), max_size=25)


@settings(max_examples=100, deadline=None)
@given(texts, texts, st.sampled_from([0.2, 0.34, 0.5, 0.6, 0.75, 1.0]), st.integers(1, 7))
def test_exact_against_all_pairs(left, right, t, block):
    got = near_duplicates(left, right, t, block=block)
    assert [(i, j) for i, j, _ in got] == brute(left, right, t)
    assert all(s == pytest.approx(jaccard(left[i], right[j])) for i, j, s in got)


def test_threshold_must_be_in_range():
    with pytest.raises(ValueError, match="threshold 0 must be in"):
        near_duplicates(["a"], ["a"], 0)


def test_report_finds_cross_split_and_source_hits():
    cases = [CaseRecord.model_validate(case("g01", question="When does a gift card expire?")),
             CaseRecord.model_validate(case("p10", question="when does my gift card expire")),
             CaseRecord.model_validate(case("g02", question="Is delivery free on weekends?"))]
    sides = {"g01": "holdout", "p10": "dev", "g02": "dev"}
    report = leakage_report(cases, sides, {"few_shot": ["Q: When does a gift card expire?", "A: after 36 months"]}, 0.6)
    # both reduce to {gift, card, expire} ("when", "does", "a", "my" are function words) -> 1.0
    assert report["dev_holdout"] == [{"dev": "p10", "holdout": "g01", "score": 1.0}]
    assert [(r["case"], r["line"]) for r in report["sources"]] == [("g01", 1), ("p10", 1)]
    assert "paraphrase" in report["limitation"]
