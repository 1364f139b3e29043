"""Calibration against human labels: a hand-computed tiny set, kappa and its interval against scikit-learn
and statsmodels, agreement intervals against a hand Wilson formula and scipy, the evaluation-design notes' numbers, judges
that fail (the stubs of issue 9, counted by hand), the usability rule, metrics without lists, staleness."""

import json
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from assay.artifacts.judge import CalibrationMetrics
from assay.artifacts.registry import CALIBRATION, PROVENANCE
from assay.judge.calibration import (INVALID, JUDGE_LABELS, calibrate, calibration_run, judge_settings, labels_hash,
                                     outputs, pair_rows, staleness)
from assay.judge.calibration_record import CalibrationIdentity, CalibrationResult, ErrorShape, FlipPattern, SliceResult
from assay.judge.calibration_report import report_markdown
from assay.judge.params import JudgeParams
from assay.judge.replay import ReplayJudge
from assay.judge.replies import REPLIES_DIR
from assay.core.params import load_section
from assay.core.paths import input_paths
from assay.judge.usability import KAPPA_UNDEFINED, UsabilityRule, usability
from assay.core.io import dumps_json
from assay.judge.base import Verdict
from assay.judge.fake import PRESETS, SELF_MARK
from assay.data.pairs import LABELS, Pair, load_pairs
from assay.judge.prompts import load_prompt, prompt_path

from conftest import ROOT, Z95 as Z, hand_wilson

PAIRS = load_pairs(ROOT / "data" / "pairs.jsonl")
PROMPT = load_prompt(prompt_path(ROOT / "data" / "prompts", 2))
TO_WINNER = {"a": "first", "b": "second", "tie": "tie"}


class Scripted:
    """Returns a fixed a/b/tie label per pair (forward order only), or a given non-ok status."""

    identity = {"kind": "scripted"}

    def __init__(self, labels, status="ok"):
        self.labels, self.status = labels, status

    def judge_many(self, items, prompt):
        if self.status != "ok":
            return [Verdict("tie", self.status) for _ in items]
        return [Verdict(TO_WINNER[x]) for x in self.labels]


def hybrid_interval(table) -> tuple[float, float]:
    """Kappa's default interval from independent parts: statsmodels' large-sample (Wald) interval, widened
    to statsmodels' Wilson interval for observed agreement mapped through (po - pe) / (1 - pe), clipped."""
    table = np.asarray(table)
    ref = cohens_kappa(table)
    n = table.sum()
    pe = float(table.sum(axis=1) @ table.sum(axis=0)) / n**2
    lo, hi = proportion_confint(int(np.trace(table)), int(n), method="wilson")
    return (max(-1.0, min(ref.kappa_low, (lo - pe) / (1 - pe))), min(1.0, max(ref.kappa_upp, (hi - pe) / (1 - pe))))


def pair(id, final, kind="clear", lang="en", a="x", b="y"):
    # the question names the id: pairs of equal content would be one request, asked once
    return Pair(id=id, case_question=f"q {id}", facts=["x"], a=a, b=b, kind=kind, lang=lang, ann1=final, ann2=final,
                final=final)


TINY = [pair("1", "a"), pair("2", "b", a="x x x x", b="x"), pair("3", "tie", kind="tie", lang="bn"),
        pair("4", "a", kind="cite"), pair("5", "tie", kind="self", a="y [source: kb-1]", b=f"{SELF_MARK} y")]
TINY_JUDGE = ["a", "a", "tie", "tie", "b"]


# the notes' rule: kappa's estimate, every slice judged; min_pairs 1 so the tiny hand-computed sets are judged too
POINT = UsabilityRule(usability="point", min_slice_n=1, min_pairs=1)


def test_tiny_set_by_hand():
    rec = calibrate(TINY, Scripted(TINY_JUDGE), PROMPT, swap=False, rule=POINT)
    # hits: 1 yes, 2 no (b vs a), 3 yes, 4 no (a vs tie), 5 no (tie vs b) -> 2/5
    assert rec.n == 5 and rec.agreement == pytest.approx(0.4)
    assert (rec.agreement_ci_low, rec.agreement_ci_high) == pytest.approx(hand_wilson(2, 5), abs=1e-12)
    assert rec.interval == "wilson" and rec.level == 0.95
    # human a2 b1 tie2, judge a2 b1 tie2: pe = (2*2 + 1*1 + 2*2) / 25 = 0.36; kappa = (0.4 - 0.36) / 0.64 = 0.0625
    assert rec.kappa == pytest.approx(0.0625)
    assert rec.confusion == {"a": {"a": 1, "b": 0, "tie": 1, INVALID: 0}, "b": {"a": 1, "b": 0, "tie": 0, INVALID: 0},
                                "tie": {"a": 0, "b": 1, "tie": 1, INVALID: 0}}
    slices = {k: {f: getattr(v, f) for f in ("correct", "n", "agreement")} for k, v in rec.by_kind.items()}
    assert slices == {"cite": {"correct": 0, "n": 1, "agreement": 0.0},
                      "clear": {"correct": 1, "n": 2, "agreement": 0.5},
                      "self": {"correct": 0, "n": 1, "agreement": 0.0},
                      "tie": {"correct": 1, "n": 1, "agreement": 1.0}}
    assert (rec.by_kind["clear"].agreement_ci_low, rec.by_kind["clear"].agreement_ci_high) == \
        pytest.approx(hand_wilson(1, 2), abs=1e-12)
    assert {k: (v.correct, v.n) for k, v in rec.by_lang.items()} == {"bn": (1, 1), "en": (1, 4)}
    # wrong decisive: pair 2 (picked a: longer, shown first) and pair 5 (picked b: longer, uncited, own style);
    # pair 4 is a judge tie where people decided
    assert rec.errors.model_dump() == {"wrong_decisive": 2, "picked_longer": 2, "picked_first": 1, "picked_uncited": 1,
                             "picked_own_style": 1, "missed_decisive": 1}
    assert rec.usable == 0
    assert rec.reasons == ["kappa 0.062 < 0.6", "slice kind cite 0/1 < 0.6", "slice kind clear 1/2 < 0.6",
                              "slice kind self 0/1 < 0.6", "slice lang en 1/4 < 0.6"]
    assert (rec.order_disagreements, rec.invalid, rec.refused, rec.failed) == (0, 0, 0, 0)
    assert (rec.flip_share, rec.invalid_pairs, rec.invalid_share) == (0.0, 0, 0.0)


def test_small_slices_are_listed_not_vetoes():
    # the default rule: slices of fewer than 5 pairs are too small to judge; kappa's lower bound decides
    rec = calibrate(TINY, Scripted(TINY_JUDGE), PROMPT, swap=False)
    assert rec.small_slices == ["kind cite (1 pair)", "kind clear (2 pairs)", "kind self (1 pair)",
                                   "kind tie (1 pair)", "lang bn (1 pair)", "lang en (4 pairs)"]
    assert len(rec.reasons) == 2 and rec.reasons[0].startswith("too few pairs: 5 < min_pairs 30")
    assert rec.reasons[1].startswith("kappa lower bound ")
    assert "too small to judge" in report_markdown(rec)


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("swap", [False, True])
def test_kappa_its_interval_and_confusion_match_scikit_learn_and_statsmodels(name, swap):
    run = calibration_run(PAIRS, PRESETS[name], PROMPT, swap=swap)
    finals = [p.final for p in PAIRS]
    assert run.record.kappa == pytest.approx(cohen_kappa_score(finals, run.labels))
    table = confusion_matrix(finals, run.labels, labels=list(JUDGE_LABELS))
    assert [[run.record.confusion[h][j] for j in JUDGE_LABELS] for h in LABELS] == table[:3].tolist()
    assert (run.record.kappa_ci_low, run.record.kappa_ci_high) == pytest.approx(hybrid_interval(table), abs=1e-9)
    hits = sum(f == j for f, j in zip(finals, run.labels, strict=True))
    assert run.record.agreement == pytest.approx(hits / len(PAIRS))
    ci = binomtest(hits, len(PAIRS)).proportion_ci(0.95, method="wilson")
    assert (run.record.agreement_ci_low, run.record.agreement_ci_high) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_clopper_pearson_when_the_params_say_so():
    rec = calibrate(PAIRS, PRESETS["mixed"], PROMPT, rule=UsabilityRule(interval="clopper-pearson"))
    hits = round(rec.agreement * rec.n)
    ci = binomtest(hits, rec.n).proportion_ci(0.95, method="exact")
    assert rec.interval == "clopper-pearson"
    assert (rec.agreement_ci_low, rec.agreement_ci_high) == pytest.approx((ci.low, ci.high), abs=1e-10)
    bn = rec.by_lang["bn"]
    ci = binomtest(bn.correct, bn.n).proportion_ci(0.95, method="exact")
    assert (bn.agreement_ci_low, bn.agreement_ci_high) == pytest.approx((ci.low, ci.high), abs=1e-10)


def test_seed_usability_exercise():
    # the evaluation-design notes ("hard" exercise, no swap, point rule): only clean passes; verbosity agrees 0.833 with kappa 0.75
    # yet fails its own slice. Here: human a14 b14 tie14; the verbosity judge turns the 7 verbose ties into
    # 3 a + 4 b, so judge a17 b18 tie7, po = 35/42 = 0.833, pe = 14 * (17 + 18 + 7) / 42**2 = 1/3,
    # kappa = (5/6 - 1/3) / (2/3) = 0.75
    reasons = {n: calibrate(PAIRS, PRESETS[n], PROMPT, swap=False, rule=POINT).reasons for n in PRESETS}
    verbosity = calibrate(PAIRS, PRESETS["verbosity"], PROMPT, swap=False, rule=POINT)
    assert round(verbosity.agreement, 3) == 0.833 and verbosity.kappa == pytest.approx(0.75)
    assert reasons["clean"] == []
    assert reasons["verbosity"] == ["slice kind verbose_tie 0/7 < 0.6"]
    assert reasons["self"] == ["slice kind self 0/7 < 0.6"]
    # mixed: kappa 6/28 = 0.214 (derived in test_demo_kappa_and_bn_slice_from_a_restated_judge)
    assert reasons["mixed"][0].startswith("kappa 0.214 < 0.6") and "slice kind self 1/7 < 0.6" in reasons["mixed"]
    # the language slices are checked too: the mixed judge cannot read Bangla
    assert "slice lang bn 1/7 < 0.6" in reasons["mixed"]


# The mixed preset restated from the score in assay.judge.fake's docstring, in exact rationals and
# without assay: the oracle for the demo's calibration figures (kappa 0.214 without swap, 0.357 with
# it, the bn slice 1 of 7). Weights: position 0.15, verbosity 0.2, self_pref 0.2, blind to Bangla,
# margin 0.1. Exact arithmetic decides the one pair whose gap is exactly the margin (self-1: a tie).
MIXED_SELF_MARK = "Certainly! Here is a clear answer:"


def mixed_score(text: str, facts: list[str], shown_first: bool) -> Fraction:
    length = min(Fraction(len(text.split()), 60), Fraction(1))
    if re.search("[\u0980-\u09ff]", text):  # cannot read Bangla: judged by length only
        base = length
    else:
        found = sum(f.lower() in text.lower() for f in facts)
        base = (Fraction(found, len(facts)) if facts else Fraction(0)) + Fraction(15, 100) * bool(
            re.search(r"\[source: *[\w.-]+\]", text))
    return (base + Fraction(2, 10) * length + Fraction(2, 10) * text.startswith(MIXED_SELF_MARK)
            + Fraction(15, 100) * shown_first)


def mixed_label(p: Pair, swap: bool) -> str:
    def pick(first, second):
        gap = mixed_score(first, p.facts, True) - mixed_score(second, p.facts, False)
        return 1 if gap > Fraction(1, 10) else -1 if gap < -Fraction(1, 10) else 0

    forward = {1: "a", -1: "b", 0: "tie"}[pick(p.a, p.b)]
    if not swap:
        return forward
    backward = {1: "b", -1: "a", 0: "tie"}[pick(p.b, p.a)]
    return forward if forward == backward else "tie"  # an order flip is a tie


@pytest.mark.parametrize(("swap", "confusion", "bn_hit"), [
    # human a: judge a 12, tie 2; human b: a 7, b 5, tie 2; human tie: a 10, b 1, tie 3 -> 20 hits
    (False, {"a": {"a": 12, "b": 0, "tie": 2}, "b": {"a": 7, "b": 5, "tie": 2}, "tie": {"a": 10, "b": 1, "tie": 3}},
     "clear-7"),
    # swapping turns every position-driven pick into a tie: 6 + 5 + 13 = 24 hits
    (True, {"a": {"a": 6, "b": 0, "tie": 8}, "b": {"a": 2, "b": 5, "tie": 7}, "tie": {"a": 0, "b": 1, "tie": 13}},
     "tie-7"),
])
def test_demo_kappa_and_bn_slice_from_a_restated_judge(swap, confusion, bn_hit):
    finals = [p.final for p in PAIRS]
    labels = [mixed_label(p, swap) for p in PAIRS]
    assert {h: {j: sum(f == h and x == j for f, x in zip(finals, labels, strict=True)) for j in LABELS} for h in LABELS} == confusion
    hits = sum(confusion[x][x] for x in LABELS)
    # the human labels are balanced (a 14, b 14, tie 14), so chance agreement is 14 * 42 / 42**2 = 1/3
    # whatever the judge's marginals, and kappa = (hits / 42 - 1/3) / (2/3) = (hits - 14) / 28:
    # 6/28 = 0.214 without swap, 10/28 = 0.357 with it
    kappa = (hits - 14) / 28
    assert cohen_kappa_score(finals, labels) == pytest.approx(kappa)
    # the bn slice: 7 pairs, one hit, since the Bangla answers are judged by length only: without swap
    # clear-7 (human a, shown first), with swap tie-7 (human tie)
    bn = [p for p, x in zip(PAIRS, labels, strict=True) if p.lang == "bn"]
    assert len(bn) == 7 and [p.id for p, x in zip(PAIRS, labels, strict=True) if p.lang == "bn" and p.final == x] == [bn_hit]
    rec = calibrate(PAIRS, PRESETS["mixed"], PROMPT, swap=swap)
    assert rec.kappa == pytest.approx(kappa)
    assert {h: {j: rec.confusion[h][j] for j in LABELS} for h in LABELS} == confusion
    assert (rec.by_lang["bn"].correct, rec.by_lang["bn"].n) == (1, 7)


def test_conservative_rule_reads_kappas_lower_bound():
    # verbosity: kappa 0.75 passes the point rule, but its 95% interval reaches down to 0.589 (42 pairs)
    rec = calibrate(PAIRS, PRESETS["verbosity"], PROMPT, swap=False)
    assert rec.kappa == pytest.approx(0.75) and rec.kappa_ci_low < 0.6
    assert rec.reasons[0] == (f"kappa lower bound {rec.kappa_ci_low:.3f} < 0.6 (kappa 0.750, 95% interval "
                                 f"{rec.kappa_ci_low:.3f} to {rec.kappa_ci_high:.3f})")
    assert calibrate(PAIRS, PRESETS["clean"], PROMPT).reasons == []  # perfect agreement on 42 pairs: lower bound 0.87


def test_swap_turns_position_flips_into_ties_and_counts_them():
    one = calibrate(PAIRS, PRESETS["position"], PROMPT, swap=False)
    both = calibrate(PAIRS, PRESETS["position"], PROMPT, swap=True)
    # 28 equal-fact pairs flip (see test_probe); without swap the 14 human ties among them become 'a'
    assert (one.order_disagreements, both.order_disagreements) == (0, 28)
    assert both.confusion["tie"] == {"a": 0, "b": 0, "tie": 14, INVALID: 0}
    assert one.confusion["tie"] == {"a": 14, "b": 0, "tie": 0, INVALID: 0}
    # 28 of 42 flipped: 0.667 > max_flip_share 0.2, named before kappa
    assert both.flip_share == pytest.approx(28 / 42)
    assert both.reasons[0] == ("order flips on 28 of 42 pairs (0.667 > max_flip_share 0.2): the verdict changed "
                                  "when the answers swapped places")


class RightOnDecisive:
    """Issue 9's first stub: right on every pair people decided, in both orders; on the pairs people
    called a tie its reply cannot be parsed."""

    identity = {"kind": "stub", "name": "right-on-decisive"}

    def __init__(self, pairs):
        self.final = {(p.a, p.b): p.final for p in pairs}

    def judge_many(self, items, prompt):
        out = []
        for item in items:
            forward = (item.first, item.second) in self.final
            final = self.final[(item.first, item.second) if forward else (item.second, item.first)]
            if final == "tie":
                out.append(Verdict("tie", "invalid", "reply is not JSON with a winner"))
            else:
                out.append(Verdict("first" if (final == "a") == forward else "second"))
        return out


class Unparseable:
    """Issue 9's second stub: every reply breaks the output contract."""

    identity = {"kind": "stub", "name": "unparseable"}

    def judge_many(self, items, prompt):
        return [Verdict("tie", "invalid", "reply is not JSON with a winner") for _ in items]


def test_a_judge_that_fails_on_every_human_tie_is_not_usable():
    assert len({(p.a, p.b) for p in PAIRS}) == len(PAIRS)  # the stub finds each pair by its answers
    rec = calibrate(PAIRS, RightOnDecisive(PAIRS), PROMPT, swap=True)
    # before issue 9: agreement 1.0, kappa 1.0, usable (a failed reply was a tie, and a tie agreed with "tie").
    # Now: 28 decisive pairs right, 14 tie pairs invalid (28 replies, both orders) and wrong.
    assert (rec.n, rec.invalid_pairs, rec.invalid, rec.order_disagreements) == (42, 14, 28, 0)
    assert rec.agreement == pytest.approx(28 / 42) and rec.invalid_share == pytest.approx(14 / 42)
    assert (rec.agreement_ci_low, rec.agreement_ci_high) == pytest.approx(hand_wilson(28, 42), abs=1e-12)
    # human a14 b14 tie14 vs judge a14 b14 invalid14: po = 28/42 = 2/3,
    # pe = (14*14 + 14*14 + 14*0) / 42**2 = 2/9, kappa = (2/3 - 2/9) / (1 - 2/9) = 4/7
    assert rec.kappa == pytest.approx(4 / 7)
    low, high = hybrid_interval([[14, 0, 0, 0], [0, 14, 0, 0], [0, 0, 0, 14], [0, 0, 0, 0]])
    assert (rec.kappa_ci_low, rec.kappa_ci_high) == pytest.approx((low, high), abs=1e-9)
    assert rec.confusion["tie"] == {"a": 0, "b": 0, "tie": 0, INVALID: 14}
    # slices: the 14 human ties are the kinds tie (7) and verbose_tie (7); by language bn holds a1 b4 tie2 (5/7
    # right) and en a13 b10 tie12 (23/35 right), both above 0.6
    assert {k: v.correct for k, v in rec.by_kind.items()} == {
        "cite": 7, "clear": 7, "padded_wrong": 7, "self": 7, "tie": 0, "verbose_tie": 0}
    assert {k: (v.correct, v.n) for k, v in rec.by_lang.items()} == {"bn": (5, 7), "en": (23, 35)}
    assert rec.usable == 0
    assert rec.reasons == [
        "replies gave no verdict on 14 of 42 pairs (0.333 > max_invalid_share 0.05): 28 replies could not be parsed; "
        "fix the prompt or the reply parser before reading agreement",
        f"kappa lower bound {low:.3f} < 0.6 (kappa 0.571, 95% interval {low:.3f} to {high:.3f})",
        "slice kind tie 0/7 < 0.6", "slice kind verbose_tie 0/7 < 0.6"]
    assert rec.errors.wrong_decisive == 0 and rec.errors.missed_decisive == 0


def test_a_judge_whose_every_reply_is_unparseable_agrees_with_no_one():
    rec = calibrate(PAIRS, Unparseable(), PROMPT, swap=True)
    # before issue 9: agreement 0.333 (every pair a tie, 14 human ties) and a perfect tie slice. Now: 0 of 42.
    assert (rec.agreement, rec.invalid_pairs, rec.invalid, rec.invalid_share) == (0.0, 42, 84, 1.0)
    # Wilson for 0 of n: (0, z^2 / (n + z^2)) = (0, 0.0838)
    assert (rec.agreement_ci_low, rec.agreement_ci_high) == pytest.approx((0.0, Z * Z / (42 + Z * Z)), abs=1e-12)
    # judge column all invalid: po = 0, pe = 0 (no human label is "invalid"), kappa = 0
    assert rec.kappa == 0.0
    assert all(v.correct == 0 for group in (rec.by_kind, rec.by_lang) for v in group.values())
    assert rec.by_kind["tie"].agreement == 0.0
    assert rec.reasons[0] == ("replies gave no verdict on 42 of 42 pairs (1.000 > max_invalid_share 0.05): "
                                 "84 replies could not be parsed; fix the prompt or the reply parser before "
                                 "reading agreement")
    assert rec.reasons[1].startswith("kappa lower bound 0.000 < 0.6")
    assert rec.reasons[2:] == [f"slice kind {k} 0/7 < 0.6" for k in sorted(rec.by_kind)] + [
        "slice lang bn 0/7 < 0.6", "slice lang en 0/35 < 0.6"]


def test_refused_and_failed_replies_are_named():
    rec = calibrate(TINY, Scripted(None, status="refused"), PROMPT, swap=False)
    assert rec.reasons[0].startswith("too few pairs: 5")
    assert rec.reasons[1] == ("replies gave no verdict on 5 of 5 pairs (1.000 > max_invalid_share 0.05): "
                                 "5 refused; fix the prompt or the reply parser before reading agreement")
    assert rec.confusion["a"] == {"a": 0, "b": 0, "tie": 0, INVALID: 2}


def test_one_bad_order_makes_the_pair_invalid():
    # forward ok and right, backward failed: the pair has no verdict to score (not a tie, not a flip)
    class HalfFailing:
        identity = {"kind": "stub"}

        def judge_many(self, items, prompt):
            return [Verdict("first")] + [Verdict("tie", "failed")]

    rec = calibrate([pair("1", "a")], HalfFailing(), PROMPT, swap=True, rule=POINT)
    assert (rec.invalid_pairs, rec.failed, rec.order_disagreements, rec.agreement) == (1, 1, 0, 0.0)


def test_no_pairs():
    rec = calibrate([], PRESETS["clean"], PROMPT)
    assert rec.n == 0 and math.isnan(rec.agreement) and math.isnan(rec.kappa)
    assert math.isnan(rec.agreement_ci_low) and math.isnan(rec.flip_share)
    assert rec.usable == 0 and rec.reasons == ["no pairs to calibrate on"]


def numbers(**changes):
    """A calibration result of 40 pairs with no failures or flips, kappa 0.7 (0.41 to 0.99), one slice x of 2/4."""
    fields = dict(n=40, agreement=0.8, agreement_ci_low=0.6, agreement_ci_high=0.9, interval="wilson", level=0.95,
                  kappa=0.7, kappa_ci_low=0.41, kappa_ci_high=0.99, kappa_undefined=None, confusion={},
                  by_kind={"x": SliceResult(correct=2, n=4, agreement=0.5, agreement_ci_low=0.1, agreement_ci_high=0.9)},
                  by_lang={}, errors=ErrorShape(), order_disagreements=0, flip_pattern=FlipPattern(), flip_share=0.0,
                  invalid_pairs=0, invalid_share=0.0, invalid=0, refused=0, failed=0)
    return CalibrationResult(**{**fields, **changes})


def test_usability_conservative_point_and_too_few():
    # the conservative rule reads kappa's lower bound; slice x (4 pairs) is under min_slice_n 5 until it is 4
    assert usability(numbers(), UsabilityRule()) == ["kappa lower bound 0.410 < 0.6 (kappa 0.700, 95% interval 0.410 to 0.990)"]
    assert usability(numbers(), UsabilityRule(usability="point", min_slice_n=4)) == ["slice kind x 2/4 < 0.6"]
    assert usability(numbers(n=4, kappa=1.0), UsabilityRule(usability="point")) == [
        "too few pairs: 4 < min_pairs 30; label at least 26 more before the judge can be called usable"]


def test_undefined_kappa_is_a_reason():
    rec = numbers(n=3, kappa=math.nan, kappa_ci_low=math.nan, kappa_ci_high=math.nan, by_kind={})
    assert usability(rec, UsabilityRule(min_pairs=3)) == ["kappa undefined (one label everywhere on both sides)"]


def test_usability_reads_the_metrics_file_too():
    # the gate applies the rule again to metrics/calibration.json, where undefined numbers are null
    committed = CALIBRATION.read(ROOT)
    assert usability(committed, UsabilityRule()) == json.loads((ROOT / "reports/provenance/calibrate.json").read_text())["details"]["reasons"]
    broken = committed.model_copy(update={"flip_share": None})
    assert usability(broken, UsabilityRule()) == [
        f"invalid_share {committed.invalid_share} or flip_share None undefined for {committed.n} pairs; calibrate again"]
    assert KAPPA_UNDEFINED in usability(committed.model_copy(update={"kappa": None}), UsabilityRule())


def test_committed_calibration_round_trips_into_its_metrics_and_provenance():
    """The calibrate stage's record, built again from the committed inputs, is the committed metrics and provenance."""
    params = load_section("judge", JudgeParams, ROOT / "params.yaml")
    paths = input_paths(ROOT / "params.yaml")
    pairs = sorted(load_pairs(ROOT / paths.pairs), key=lambda p: p.id)
    prompt = load_prompt(params.prompt_file(ROOT / paths.prompts))
    judge = ReplayJudge.open(ROOT / REPLIES_DIR, pairs=pairs)
    record = calibration_run(pairs, judge, prompt, swap=params.swap, rule=params.rule).record
    metrics, prov = outputs(record)
    assert metrics == CALIBRATION.read(ROOT)
    assert dumps_json(metrics.model_dump()) == (ROOT / CALIBRATION.relpath()).read_text(encoding="utf-8")
    committed_prov = PROVENANCE.read(ROOT, stage="calibrate")
    assert prov.settings == committed_prov.settings and prov.inputs == committed_prov.inputs
    assert prov.details == committed_prov.details
    assert CalibrationIdentity.parse(committed_prov.settings, "reports/provenance/calibrate.json") == record.identity
    assert CalibrationMetrics.model_validate_json(metrics.model_dump_json()) == metrics


@pytest.mark.parametrize("n", [2, 3, 4, 29])
def test_a_perfect_judge_on_too_few_pairs_is_not_usable(n):
    # before issue 23: perfect agreement gave kappa's interval (1, 1), so 2 pairs made a judge usable
    finals = ["a", "b", "tie"]
    pairs = [pair(str(i), finals[i % 3], kind="clear" if i % 2 else "tie") for i in range(n)]
    rec = calibrate(pairs, Scripted([p.final for p in pairs]), PROMPT, swap=False)
    assert rec.agreement == 1.0 and rec.kappa == 1.0
    assert rec.usable == 0 and rec.reasons[0].startswith("too few pairs")
    assert rec.reasons[0] == (f"too few pairs: {n} < min_pairs 30; label at least {30 - n} more before the "
                                 "judge can be called usable")
    assert rec.kappa_ci_low < 1.0  # the interval keeps a width at the boundary
    # the point rule does not rescue it either
    assert calibrate(pairs, Scripted([p.final for p in pairs]), PROMPT, swap=False,
                     rule=UsabilityRule(usability="point")).usable == 0


def test_thirty_perfect_pairs_are_usable_and_their_kappa_interval_has_a_width():
    finals = ["a", "b", "tie"]
    pairs = [pair(str(i), finals[i % 3]) for i in range(30)]
    rec = calibrate(pairs, Scripted([p.final for p in pairs]), PROMPT, swap=False)
    # Wilson for 30 of 30: low = 30 / (30 + z^2) = 0.8865; pe = 3 * (1/3)^2 = 1/3;
    # kappa's lower bound (0.88649 - 1/3) / (2/3) = 0.8297
    assert rec.kappa_ci_low == pytest.approx((30 / (30 + Z * Z) - 1 / 3) * 1.5, abs=1e-12)
    assert round(rec.kappa_ci_low, 4) == 0.8297 and rec.kappa_ci_high == 1.0
    assert rec.usable == 1 and rec.reasons == []


def test_metrics_hold_numbers_and_provenance_names_the_inputs():
    rec = calibrate(PAIRS, PRESETS["mixed"], PROMPT)

    def walk(x):
        assert isinstance(x, (int, float, dict)) or x is None, x
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
    numbers, prov = outputs(rec)
    walk(numbers.model_dump())
    assert numbers.usable == 0 and prov.details["reasons"] == rec.reasons and len(rec.reasons) == 5
    assert prov.details["small_slices"] == []
    assert prov.inputs == {"prompt": PROMPT.sha, "labels": labels_hash(PAIRS),
                           "judge_settings": prov.settings["judge_settings_hash"]}
    assert prov.settings["prompt"] == {"name": "pairwise", "version": 2, "sha": PROMPT.sha}
    assert prov.settings["judge"]["preset"] == "mixed" and prov.assay_version


def test_labels_hash_ignores_order_and_sees_every_edit():
    assert labels_hash(PAIRS) == labels_hash(list(reversed(PAIRS)))
    edited = [PAIRS[0].model_copy(update={"final": "tie"}), *PAIRS[1:]]
    assert labels_hash(edited) != labels_hash(PAIRS)
    reworded = [PAIRS[0].model_copy(update={"a": PAIRS[0].a + " "}), *PAIRS[1:]]
    assert labels_hash(reworded) != labels_hash(PAIRS)


def settings_for(judge, swap=True, rule=None):
    return judge_settings(judge.identity, swap=swap, rule=rule or UsabilityRule())


def test_staleness(tmp_path):
    written = json.loads(dumps_json(outputs(calibrate(PAIRS, PRESETS["mixed"], PROMPT))[1].settings))  # as read back
    rec = CalibrationIdentity.parse(written, "reports/provenance/calibrate.json")
    current = settings_for(PRESETS["mixed"])
    assert staleness(rec, PROMPT, current, labels_hash(PAIRS)) == []
    edited = tmp_path / "pairwise_v2.md"
    edited.write_text(PROMPT.text.replace("short sentence", "brief sentence"), encoding="utf-8")
    new_prompt = load_prompt(edited)
    assert staleness(rec, new_prompt, current, labels_hash(PAIRS)) == [
        f"prompt pairwise v2 sha {PROMPT.sha[:10]} -> {new_prompt.sha[:10]}"]
    v1 = load_prompt(prompt_path(ROOT / "data" / "prompts", 1))
    assert staleness(rec, v1, current, labels_hash(PAIRS)) == ["prompt pairwise v2 -> pairwise v1"]
    assert staleness(rec, PROMPT, settings_for(PRESETS["mixed"], swap=False), labels_hash(PAIRS)) == [
        "judge settings: swap True -> False"]
    assert staleness(rec, PROMPT, settings_for(PRESETS["self"]), labels_hash(PAIRS)) == [
        "judge settings: judge.bangla_blind True -> False; judge.position 0.15 -> 0.0; judge.preset 'mixed' -> 'self'; "
        "judge.self_pref 0.2 -> 0.4; judge.verbosity 0.2 -> 0.0"]
    assert staleness(rec, PROMPT, settings_for(PRESETS["mixed"], rule=UsabilityRule(max_flip_share=0.3)),
                     labels_hash(PAIRS)) == ["judge settings: rule.max_flip_share 0.2 -> 0.3"]
    relabelled = labels_hash([PAIRS[0].model_copy(update={"final": "tie"}), *PAIRS[1:]])
    assert staleness(rec, PROMPT, current, relabelled) == [f"labels {labels_hash(PAIRS)[:10]} -> {relabelled[:10]}"]


def test_reports():
    run = calibration_run(PAIRS, PRESETS["mixed"], PROMPT)
    rows = list(pair_rows(PAIRS, run.labels))
    assert rows[0].model_dump() == {"id": "clear-1", "kind": "clear", "lang": "en", "final": "a", "judge": run.labels[0],
                       "correctness": "a", "evidence": "tie", "concision": "tie"}
    text = report_markdown(run.record)
    # kappa 10/28 = 0.357 and the bn row's 1 of 7: see test_demo_kappa_and_bn_slice_from_a_restated_judge;
    # its interval from statsmodels on the confusion table written out there (with swap)
    ref = cohens_kappa(np.array([[6, 0, 8], [2, 5, 7], [0, 1, 13]]))
    low, high = hybrid_interval([[6, 0, 8], [2, 5, 7], [0, 1, 13]])
    assert ("**Not usable.** Reasons: order flips on 28 of 42 pairs (0.667 > max_flip_share 0.2): the verdict changed "
            f"when the answers swapped places; kappa lower bound {low:.3f} < 0.6 (kappa {ref.kappa:.3f}, 95% interval "
            f"{low:.3f} to {high:.3f}); slice kind cite 0/7 < 0.6; slice kind self 0/7 < 0.6; slice lang bn 1/7 < 0.6.") in text
    bn_low, bn_high = hand_wilson(1, 7)
    assert f"| bn | 1 | 7 | 0.143 | {bn_low:.3f} to {bn_high:.3f} | |" in text
    assert "order flips (the verdict changed when the answers swapped places; scored as tie): 28 of 42 pairs (0.667)" in text
    assert "| human \\ judge | a | b | tie | invalid |" in text


class TwoOrders:
    """Fixed (forward, backward) winners per pair, in first/second/tie words as the judge sees them."""

    identity = {"kind": "two-orders"}

    def __init__(self, winners):
        self.winners = winners

    def judge_many(self, items, prompt):
        n = len(self.winners)
        return [Verdict(self.winners[k % n][k // n]) for k in range(len(items))]


def test_flip_pattern_counts_which_answer_each_order_picked():
    # five pairs, (forward, backward) winners; a flip is an ok pair whose a/b labels differ:
    # 1 first/first -> a vs b: flip, first both;  2 first/first again: flip, first both
    # 3 second/second -> b vs a: flip, second both;  4 tie/first -> tie vs b: flip, tie in one (backward first)
    # 5 first/second -> a vs a: no flip.  By hand: first_both 2, second_both 1, tie_in_one 1,
    # forward_first 2 (pairs 1, 2), backward_first 3 (pairs 1, 2, 4)
    pairs = [pair(str(k), "a") for k in range(1, 6)]
    judge = TwoOrders([("first", "first"), ("first", "first"), ("second", "second"), ("tie", "first"), ("first", "second")])
    rec = calibrate(pairs, judge, PROMPT, swap=True, rule=POINT)
    assert rec.order_disagreements == 4
    assert rec.flip_pattern.model_dump() == {"first_both": 2, "second_both": 1, "tie_in_one": 1, "forward_first": 2,
                                   "backward_first": 3}
    # flips became ties first, so the error shape sees no wrong decisive pick; the flip sentence says what happened
    assert rec.errors.wrong_decisive == 0
    text = report_markdown(rec)
    assert ("4 of 5 pairs flipped when the answers swapped (scored as ties, so not among the picks above): in 2 of "
            "them the judge picked the answer shown first both times, in 1 the answer shown second both times, and "
            "in 1 it said tie in one order. Of the 4 flipped pairs, the (a, b) verdict picked the answer shown first "
            "in 2 and the (b, a) verdict in 3.") in text
    assert outputs(rec)[0].flip_pattern == rec.flip_pattern.model_dump()
    one = calibrate(pairs, judge, PROMPT, swap=False, rule=POINT)
    assert set(one.flip_pattern.model_dump().values()) == {0}
    assert "shown in one order only" in report_markdown(one)


def test_position_preset_flips_pick_the_first_answer_both_times():
    # the position fake adds a bonus to the answer shown first; on the 28 equal-fact pairs that decides both orders
    rec = calibrate(PAIRS, PRESETS["position"], PROMPT, swap=True)
    assert rec.flip_pattern.model_dump() == {"first_both": 28, "second_both": 0, "tie_in_one": 0, "forward_first": 28,
                                   "backward_first": 28}
