import itertools
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.data.leakage.setjoin import PAIR_CAP, build_index, near_duplicates, probe
from assay.data.leakage.tokens import words


def brute(left, right, t):
    """All pairs by Python set arithmetic, independent of the join's filters and id arrays."""
    out = []
    for (i, a), (j, b) in itertools.product(enumerate(map(words, left)), enumerate(map(words, right))):
        if a | b and len(a & b) / len(a | b) >= t:
            out.append((i, j, len(a & b) / len(a | b)))
    return out


def check(left, right, t, budget):
    got = near_duplicates(left, right, t, budget=budget)
    want = brute(left, right, t)
    assert [(i, j) for i, j, _ in got] == [(i, j) for i, j, _ in want]
    assert [s for *_, s in got] == pytest.approx([s for *_, s in want])


short = st.lists(st.lists(st.sampled_from([f"w{i}" for i in range(12)] + ["the"]), max_size=7).map(" ".join), max_size=25)
# up to 40 words from 60: sets long enough to be routed to the single-token level
long = st.lists(st.lists(st.sampled_from([f"w{i}" for i in range(60)]), max_size=40).map(" ".join), max_size=12)
thresholds = st.sampled_from([0.1, 0.2, 1 / 3, 0.5, 0.6, 2 / 3, 0.75, 0.9, 1.0])


@settings(max_examples=150, deadline=None)
@given(short, short, thresholds, st.integers(1, 40))
def test_short_sets_equal_all_pairs(left, right, t, budget):
    check(left, right, t, budget)


@settings(max_examples=60, deadline=None)
@given(long, long, thresholds, st.integers(1, 200))
def test_long_sets_equal_all_pairs(left, right, t, budget):
    check(left, right, t, budget)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a1 b1 c1", "a1 b1 c1 d1 e1", "a1 b1", "a1 b1 c1 d1", "c1 d1 e1"]), max_size=8),
       st.lists(st.sampled_from(["a1 b1 c1", "a1 b1 c1 d1 e1", "a1 b1", "a1 b1 c1 d1", "c1 d1 e1"]), max_size=8),
       thresholds)
def test_pairs_exactly_at_the_threshold_are_kept(left, right, t):
    # e.g. {a,b,c} vs {a,b,c,d,e}: 3/5 = 0.6 exactly, at t = 0.6 it is a near-duplicate
    check(left, right, t, 7)


def test_both_levels_are_used_and_agree():
    # 30 shared words: too many token pairs for level 2 (PAIR_CAP), so the single-token level serves it
    big = " ".join(f"w{i}" for i in range(30))
    index = build_index(["k l m n o", big], 0.6)
    assert [level.ell for level in index.levels] == [1, 2]
    assert index.levels[1].max_size < 30 and PAIR_CAP < 30 * 29 // 2
    i, j, s = probe(index, ["k l m n o p", big + " extra", "k l"])
    assert list(zip(i.tolist(), j.tolist(), strict=True)) == [(0, 0), (1, 1)]
    assert s.tolist() == pytest.approx([5 / 6, 30 / 31])


def test_texts_without_words_match_nothing():
    assert near_duplicates(["", "the a"], ["", "refund", "?"], 0.5) == []
    assert near_duplicates([], ["refund"], 0.5) == []
    assert near_duplicates(["refund"], [], 0.5) == []


def test_threshold_must_be_in_range():
    with pytest.raises(ValueError, match="threshold 0 must be in"):
        near_duplicates(["a"], ["a"], 0)


def test_index_pickles_and_gives_the_same_pairs():
    index = build_index(["gift card expire", "delivery free weekends"], 0.6)
    again = pickle.loads(pickle.dumps(index))
    texts = ["when does my gift card expire", "free delivery on weekends?"]
    assert [a.tolist() for a in probe(again, texts)] == [a.tolist() for a in probe(index, texts)]
