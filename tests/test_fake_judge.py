"""The fake judge: the evaluation-design notes' score, each bias switch, the margin, and the Judge protocol."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.core.errors import InputError
from assay.judge.base import Judge, JudgeItem
from assay.judge.fake import PRESETS, SELF_MARK, FakeJudge, cited, fact_share, is_bangla, n_words, own_style

FACTS = ("14 days", "full refund")
RIGHT = "Cancel within 14 days for a full refund. [source: kb-refunds-v2]"  # 1.0 + 0.15
HALF = "Cancel within 30 days for a full refund."  # 0.5


def winners(judge, *items):
    return [v.winner for v in judge.judge_many(list(items), None)]


def test_text_features():
    assert fact_share("A FULL REFUND within 14 Days", FACTS) == 1.0 and fact_share("nothing", FACTS) == 0.0
    assert fact_share("anything", ()) == 0.0
    assert cited(RIGHT) and not cited(HALF) and not cited("[source: ]")
    assert n_words("one two  three\nfour") == 4
    assert is_bangla("ফি ৩০০ টাকা") and not is_bangla("fee BDT 300")
    assert own_style(f"{SELF_MARK} yes") and not own_style(f"Yes. {SELF_MARK}")


def test_clean_score_by_hand():
    judge = PRESETS["clean"]
    first, second = judge.scores([JudgeItem("q", FACTS, RIGHT, HALF)])
    assert first[0] == pytest.approx(1.15) and second[0] == pytest.approx(0.5)  # 2/2 + 0.15 vs 1/2
    assert winners(judge, JudgeItem("q", FACTS, RIGHT, HALF), JudgeItem("q", FACTS, HALF, RIGHT)) == ["first", "second"]


def test_margin_makes_small_gaps_ties():
    # gap 0.15 (citation only): decisive at margin 0.1, tie at margin 0.2
    cited_answer, plain = "14 days, full refund [source: kb-x]", "14 days, full refund"
    item = JudgeItem("q", FACTS, cited_answer, plain)
    assert winners(FakeJudge(margin=0.1), item) == ["first"]
    assert winners(FakeJudge(margin=0.2), item) == ["tie"]


def test_each_bias_switch():
    same = JudgeItem("q", FACTS, "14 days, full refund.", "A full refund within 14 days.")
    assert winners(PRESETS["clean"], same) == ["tie"]
    assert winners(PRESETS["position"], same) == ["first"]  # 0.3 for being first
    padded = "Thanks for asking! " * 10 + "14 days, full refund."
    item = JudgeItem("q", FACTS, "14 days, full refund.", padded)  # 4 vs 34 words: 0.5 * 30/60 = 0.25
    assert winners(PRESETS["clean"], item) == ["tie"] and winners(PRESETS["verbosity"], item) == ["second"]
    own = JudgeItem("q", FACTS, f"{SELF_MARK} 14 days, full refund.", "14 days, full refund. [source: kb-x]")
    assert winners(PRESETS["clean"], own) == ["second"]  # the citation wins
    assert winners(PRESETS["self"], own) == ["first"]  # 1.0 + 0.4 vs 1.15


def test_bangla_blind_judges_bangla_by_length_only():
    facts = ("৩০০ টাকা",)
    right, wrong_long = "ফি ৩০০ টাকা।", "প্রতিস্থাপন সিমের ফি ৫০০ টাকা, আর নতুন সিম সাধারণত দুই ঘণ্টার মধ্যে চালু হয়ে যায়।"
    item = JudgeItem("q", facts, right, wrong_long)
    assert winners(FakeJudge(), item) == ["first"]
    # blind: base = min(words / 60, 1): 3 vs 14 words, gap 11/60 = 0.18 > 0.1
    assert winners(FakeJudge(bangla_blind=True), item) == ["second"]
    english = JudgeItem("q", FACTS, RIGHT, HALF)
    assert winners(FakeJudge(bangla_blind=True), english) == ["first"]  # English is still read


def test_identity_presets_and_protocol():
    judge = PRESETS["mixed"]
    assert isinstance(judge, Judge)
    assert judge.identity == {"kind": "fake", "preset": "mixed", "position": 0.15, "verbosity": 0.2, "self_pref": 0.2,
                              "bangla_blind": True, "margin": 0.1}
    assert FakeJudge.from_preset("clean") is PRESETS["clean"]
    with pytest.raises(InputError, match="'fair' is not one of clean, position, verbosity, self, mixed"):
        FakeJudge.from_preset("fair")
    assert judge.judge_many([], None) == []


def test_prompt_is_ignored():
    items = [JudgeItem("q", FACTS, RIGHT, HALF), JudgeItem("q", FACTS, HALF, HALF)]
    assert PRESETS["mixed"].judge_many(items, None) == PRESETS["mixed"].judge_many(items, object())


answers = st.text(alphabet=st.sampled_from(list("ab 14dysfulrnত")), max_size=40)


@given(answers, answers, st.floats(0, 1), st.floats(0, 1), st.booleans(), st.floats(0, 0.5))
def test_without_position_bias_swapping_the_order_mirrors_the_verdict(x, y, verbosity, self_pref, blind, margin):
    judge = FakeJudge(verbosity=verbosity, self_pref=self_pref, bangla_blind=blind, margin=margin)
    fwd, bwd = winners(judge, JudgeItem("q", FACTS, x, y), JudgeItem("q", FACTS, y, x))
    assert {"first": "second", "second": "first", "tie": "tie"}[fwd] == bwd
