"""Judging in both orders: label mapping, flips as ties, non-ok verdicts as counted ties."""

import pytest

from assay.judge.base import Verdict
from assay.judge.fake import PRESETS
from assay.judge.orders import JudgeContractError, items_for, judge_pairs, status_counts
from assay.data.pairs import Pair


def pair(id="p", a="x", b="y", final="a"):
    # the question names the id: pairs of equal content are one request (asked once, see test_replies)
    return Pair(id=id, case_question=f"q {id}", facts=["f"], a=a, b=b, kind="clear", lang="en", ann1=final, ann2=final,
                final=final)


class Scripted:
    """A judge that returns the given verdicts in order and records what it was asked."""

    identity = {"kind": "scripted"}

    def __init__(self, verdicts):
        self.verdicts, self.asked = verdicts, []

    def judge_many(self, items, prompt):
        self.asked.append(items)
        return self.verdicts


def test_items_forward_then_backward():
    items = items_for([pair("1", "A", "B"), pair("2", "C", "D")], swap=True)
    assert [(i.first, i.second) for i in items] == [("A", "B"), ("C", "D"), ("B", "A"), ("D", "C")]
    assert items_for([pair()], swap=False)[0].facts == ("f",)


def test_one_order():
    judge = Scripted([Verdict("first"), Verdict("second"), Verdict("tie"), Verdict("tie", "failed")])
    out = judge_pairs(judge, [pair(str(i)) for i in range(4)], None, swap=False)
    assert [r.label for r in out] == ["a", "b", "tie", "tie"]
    assert [r.backward_label for r in out] == [None] * 4
    assert status_counts(out) == {"invalid": 0, "refused": 0, "failed": 1}


def test_both_orders_in_one_batch():
    # forward verdicts for 4 pairs, then backward verdicts (b shown first)
    verdicts = [Verdict("first"), Verdict("first"), Verdict("first"), Verdict("tie", "invalid"),
                Verdict("second"), Verdict("first"), Verdict("tie"), Verdict("first", "ok")]
    judge = Scripted(verdicts)
    out = judge_pairs(judge, [pair(str(i)) for i in range(4)], None, swap=True)
    assert len(judge.asked) == 1 and len(judge.asked[0]) == 8
    # pair 0: a then a -> a. pair 1: a then b -> flip -> tie. pair 2: a then tie -> tie, disagreement.
    # pair 3: invalid then b -> tie, not an order disagreement (one side never answered).
    assert [r.label for r in out] == ["a", "tie", "tie", "tie"]
    assert [r.order_disagreement for r in out] == [False, True, True, False]
    assert [(r.forward_label, r.backward_label) for r in out] == [("a", "a"), ("a", "b"), ("a", "tie"), ("tie", "b")]
    assert out[3].statuses == ("invalid", "ok")
    assert status_counts(out) == {"invalid": 1, "refused": 0, "failed": 0}


def test_wrong_number_of_verdicts_is_an_error():
    with pytest.raises(JudgeContractError, match="returned 1 verdicts for 2 items"):
        judge_pairs(Scripted([Verdict("tie")]), [pair()], None, swap=True)


def test_equal_items_are_asked_once_and_share_their_verdict():
    # pairs 0 and 2 hold the same content, and pair 1's (a, b) is pair 0's (b, a): 2 distinct items of 6
    judge = Scripted([Verdict("first"), Verdict("second")])
    same = [pair("0", a="x", b="y"), pair("1", a="y", b="x"), pair("2", a="x", b="y")]
    same = [p.model_copy(update={"case_question": "q"}) for p in same]
    out = judge_pairs(judge, same, None, swap=True)
    assert [(i.first, i.second) for i in judge.asked[0]] == [("x", "y"), ("y", "x")] and len(judge.asked) == 1
    assert [(r.forward.winner, r.backward.winner) for r in out] == [("first", "second"), ("second", "first"),
                                                                     ("first", "second")]


def test_no_pairs():
    assert judge_pairs(PRESETS["clean"], [], None, swap=True) == []


def test_position_judge_flips_become_ties():
    same = pair(a="14 days. f", b="f within 14 days", final="tie")
    out = judge_pairs(PRESETS["position"], [same], None, swap=True)[0]
    assert (out.forward_label, out.backward_label, out.label, out.order_disagreement) == ("a", "b", "tie", True)
