"""Tests for assay.stats.agreement: the evaluation-design notes' worked numbers, scikit-learn and statsmodels, properties, the stage."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from assay.stats.agreement import (
    CHANCE_IS_ONE,
    NO_PAIRS,
    AgreementError,
    agreement_report,
    confusion,
    contingency,
    disagreements,
    expected,
    kappa,
    kappa_ci,
    kappa_se,
    observed,
)
from assay.core.io import sha256_file

ROOT = Path(__file__).resolve().parents[1]

# The evaluation-design notes' "hand check": 10 items, 4 yes-yes, 1 yes-no, 2 no-yes, 3 no-no.
X10 = ["y"] * 5 + ["n"] * 5
Z10 = ["y"] * 4 + ["n"] + ["y"] * 2 + ["n"] * 3

# The evaluation-design notes' exercise 2: eight pairs labelled by two annotators.
ANN1_8 = ["a", "a", "b", "b", "tie", "tie", "a", "b"]
ANN2_8 = ["a", "b", "b", "b", "tie", "a", "a", "b"]


def seed_thirty() -> tuple[list[str], list[str]]:
    """The notes' 30 pairs, rebuilt from its confusion table (rows ann1, columns ann2):
    a: a 10; b: b 11; tie: a 3, b 1, tie 5. So ann1 gives a 10, b 11, tie 9 and ann2 a 13, b 12, tie 5."""
    cells = [("a", "a", 10), ("b", "b", 11), ("tie", "a", 3), ("tie", "b", 1), ("tie", "tie", 5)]
    ann1 = [x for x, _, c in cells for _ in range(c)]
    ann2 = [y for _, y, c in cells for _ in range(c)]
    return ann1, ann2


def reference_kappa(a: list, b: list) -> float:
    """The notes' definition, written out with Counter as an independent check."""
    n, ca, cb = len(a), Counter(a), Counter(b)
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pe = sum(ca[k] / n * cb[k] / n for k in ca.keys() | cb.keys())
    return (po - pe) / (1 - pe)


# --- the evaluation-design notes' worked numbers ------------------------------------------------

def test_seed_hand_check_ten_items():
    # observed: 4 yes-yes + 3 no-no = 7 of 10 = 0.7
    assert observed(X10, Z10) == pytest.approx(0.7)
    # x says y 5/10, n 5/10; z says y 6/10, n 4/10; expected = 0.5*0.6 + 0.5*0.4 = 0.5
    assert expected(X10, Z10) == pytest.approx(0.5)
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    assert kappa(X10, Z10) == pytest.approx(0.4)
    assert round(kappa(X10, Z10), 2) == 0.4


def test_seed_exercise_eight_pairs():
    # agree on pairs 1, 3, 4, 5, 7, 8: 6/8 = 0.75
    assert observed(ANN1_8, ANN2_8) == 0.75
    # ann1: a 3, b 3, tie 2; ann2: a 3, b 4, tie 1; expected = (9 + 12 + 2) / 64 = 23/64 = 0.359
    assert expected(ANN1_8, ANN2_8) == 23 / 64
    assert round(expected(ANN1_8, ANN2_8), 3) == 0.359
    # kappa = (0.75 - 0.359) / 0.641 = (48 - 23) / (64 - 23) = 25/41 = 0.61
    assert kappa(ANN1_8, ANN2_8) == pytest.approx(25 / 41)
    assert round(kappa(ANN1_8, ANN2_8), 2) == 0.61
    # pairs 2 (a vs b) and 6 (tie vs a) go to adjudication
    assert disagreements(range(1, 9), ANN1_8, ANN2_8) == [(2, "a", "b"), (6, "tie", "a")]


def test_seed_thirty_pairs():
    ann1, ann2 = seed_thirty()
    assert Counter(ann1) == {"a": 10, "b": 11, "tie": 9} and Counter(ann2) == {"a": 13, "b": 12, "tie": 5}
    # 26 of 30 agree: 0.867
    assert observed(ann1, ann2) == 26 / 30
    # expected = (10*13 + 11*12 + 9*5) / 900 = 307/900 = 0.341
    assert expected(ann1, ann2) == 307 / 900
    # kappa = (26/30 - 307/900) / (1 - 307/900) = (780 - 307) / (900 - 307) = 473/593 = 0.798
    assert kappa(ann1, ann2) == 473 / 593
    assert round(kappa(ann1, ann2), 3) == 0.798
    assert confusion(ann1, ann2) == {"a": {"a": 10, "b": 0, "tie": 0},
                                     "b": {"a": 0, "b": 11, "tie": 0},
                                     "tie": {"a": 3, "b": 1, "tie": 5}}
    assert len(disagreements(None, ann1, ann2)) == 4


# --- independent implementations ----------------------------------------------------------------

def random_raters(seed: int, n: int = 300, k: int = 4, agree: float = 0.6) -> tuple[list[int], list[int]]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, k, n)
    b = np.where(rng.random(n) < agree, a, rng.integers(0, k, n))
    return a.tolist(), b.tolist()


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("seed", range(5))
def test_kappa_matches_sklearn(seed, weights):
    a, b = random_raters(seed)
    assert kappa(a, b, weights) == pytest.approx(cohen_kappa_score(a, b, weights=weights), abs=1e-12)


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_weighted_kappa_uses_given_label_order(weights):
    # Graded labels whose sorted order (high, low, medium, none) is not their meaning's order.
    order = ["none", "low", "medium", "high"]
    grade = dict(zip("0123", order, strict=True))
    a = [grade[c] for c in "3210311230"]
    b = [grade[c] for c in "3300211023"]
    assert kappa(a, b, weights, labels=order) == pytest.approx(
        cohen_kappa_score(a, b, weights=weights, labels=order), abs=1e-12)
    assert kappa(a, b, weights) != pytest.approx(kappa(a, b, weights, labels=order))


@pytest.mark.parametrize("seed", range(5))
def test_kappa_matches_seed_formula(seed):
    a, b = random_raters(seed, n=50, k=3)
    assert kappa(a, b) == pytest.approx(reference_kappa(a, b), abs=1e-12)


@pytest.mark.parametrize("wt", [None, "linear", "quadratic"])
@pytest.mark.parametrize("seed", range(4))
def test_standard_error_and_interval_match_statsmodels(seed, wt):
    a, b = random_raters(seed, n=400, k=4, agree=0.5)
    table = contingency(a, b).counts
    ref = cohens_kappa(table, wt=wt)  # wt=None: simple kappa; else scores 0..k-1
    assert kappa(a, b, wt) == pytest.approx(ref.kappa, abs=1e-12)
    assert kappa_se(a, b, wt) == pytest.approx(ref.std_kappa, rel=1e-9)
    low, high = kappa_ci(a, b, wt, method="wald")
    assert ref.kappa_low > -1 and ref.kappa_upp < 1  # so no clipping applies here
    assert (low, high) == pytest.approx((ref.kappa_low, ref.kappa_upp), rel=1e-9)
    # the default hybrid is the union of that interval and Wilson's for po mapped through kappa
    po, pe = contingency(a, b).weighted_shares(wt)
    lo, hi = proportion_confint(po * 400, 400, method="wilson")  # a fractional count when weighted
    hybrid = kappa_ci(a, b, wt)
    assert hybrid == pytest.approx((min(low, (lo - pe) / (1 - pe)), max(high, (hi - pe) / (1 - pe))), rel=1e-12)


def test_interval_on_seed_thirty_matches_statsmodels_and_is_clipped_at_one():
    ann1, ann2 = seed_thirty()
    ref = cohens_kappa(contingency(ann1, ann2).counts)
    low, high = kappa_ci(ann1, ann2, method="wald")
    assert low == pytest.approx(ref.kappa_low, rel=1e-9)
    assert high == pytest.approx(min(1.0, ref.kappa_upp), rel=1e-9)
    # eight pairs: statsmodels' upper limit passes 1 (25/41 + 1.96 * 0.230 = 1.061); ours stops at 1
    ref8 = cohens_kappa(contingency(ANN1_8, ANN2_8).counts)
    assert ref8.kappa_upp > 1 and kappa_ci(ANN1_8, ANN2_8, method="wald")[1] == 1.0
    assert kappa_ci(ANN1_8, ANN2_8, method="wald")[0] == pytest.approx(ref8.kappa_low, rel=1e-9)
    assert kappa_ci(ANN1_8, ANN2_8)[1] == 1.0


def test_perfect_agreement_interval_keeps_a_width():
    a = ["a", "b", "tie", "a"]
    assert kappa(a, a) == 1.0
    assert kappa_se(a, a) == 0.0
    assert kappa_ci(a, a, method="wald") == (1.0, 1.0)  # the large-sample interval collapses
    # hybrid: Wilson for 4 of 4 is (0.5101, 1) (statsmodels: proportion_confint(4, 4, method="wilson"));
    # pe = (2*2 + 1*1 + 1*1) / 16 = 3/8, so the lower bound is (0.5101 - 0.375) / 0.625 = 0.2162
    low, high = kappa_ci(a, a)
    assert high == 1.0 and low == pytest.approx((proportion_confint(4, 4, method="wilson")[0] - 0.375) / 0.625, abs=1e-12)
    assert round(low, 4) == 0.2162
    # 2 of 2: Wilson (0.3424, 1), pe 1/2: lower bound (0.3424 - 0.5) / 0.5 = -0.3152
    assert round(kappa_ci(["a", "b"], ["a", "b"])[0], 4) == -0.3152


def test_a_constant_rater_keeps_a_width():
    # one rater says tie everywhere: kappa 0 with large-sample se 0, so Wald gives (0, 0)
    humans = ["a"] * 10 + ["b"] * 10 + ["tie"] * 10
    judge = ["tie"] * 30
    assert kappa(humans, judge) == 0.0 and kappa_ci(humans, judge, method="wald") == (0.0, 0.0)
    low, high = kappa_ci(humans, judge)
    # po = pe = 1/3; Wilson for 10 of 30 mapped by (x - 1/3) / (2/3)
    lo, hi = proportion_confint(10, 30, method="wilson")
    assert (low, high) == pytest.approx(((lo - 1 / 3) * 1.5, (hi - 1 / 3) * 1.5), abs=1e-12)
    assert low < 0 < high


def test_an_unknown_interval_method_is_named():
    with pytest.raises(AgreementError, match="'bootstrap' is not one of hybrid, wald"):
        kappa_ci(["a", "b"], ["a", "b"], method="bootstrap")


# --- confusion and disagreements ----------------------------------------------------------------

def test_confusion_lists_every_label_in_sorted_order_with_zeros():
    got = confusion(["b", "a", "a"], ["tie", "a", "b"])
    assert list(got) == ["a", "b", "tie"]
    assert all(list(row) == ["a", "b", "tie"] for row in got.values())
    assert got == {"a": {"a": 1, "b": 1, "tie": 0}, "b": {"a": 0, "b": 0, "tie": 1}, "tie": {"a": 0, "b": 0, "tie": 0}}


def test_confusion_with_given_labels_keeps_unused_labels_and_order():
    got = confusion(["a", "a"], ["a", "b"], labels=["tie", "b", "a"])
    assert list(got) == ["tie", "b", "a"]
    assert got["a"] == {"tie": 0, "b": 1, "a": 1}
    assert got["tie"] == {"tie": 0, "b": 0, "a": 0}


def test_confusion_matches_sklearn():
    a, b = random_raters(7, n=200, k=3)
    got = confusion(a, b)
    from sklearn.metrics import confusion_matrix

    assert [list(row.values()) for row in got.values()] == confusion_matrix(a, b, labels=[0, 1, 2]).tolist()


@pytest.mark.slow
def test_a_million_labels_match_scikit_learn_and_statsmodels():
    # scale: 1,000,000 labels over five classes, unweighted and quadratic; counts in the millions must
    # not overflow or lose precision (run with `pytest -m slow`; timings are in benchmarks/bench_agreement.py)
    a, b = random_raters(11, n=1_000_000, k=5)
    table = np.zeros((5, 5), dtype=np.int64)
    np.add.at(table, (np.asarray(a), np.asarray(b)), 1)
    assert [list(row.values()) for row in confusion(a, b).values()] == table.tolist()
    for weights in (None, "quadratic"):
        assert kappa(a, b, weights) == pytest.approx(cohen_kappa_score(a, b, weights=weights), abs=1e-12)
    ref = cohens_kappa(table)
    assert kappa_se(a, b) == pytest.approx(ref.std_kappa, rel=1e-9)
    assert kappa_ci(a, b, method="wald") == pytest.approx((ref.kappa_low, ref.kappa_upp), abs=1e-9)


def test_disagreements_keep_input_order_and_default_to_positions():
    assert disagreements(["z", "y", "x"], ["a", "b", "a"], ["b", "b", "tie"]) == [("z", "a", "b"), ("x", "a", "tie")]
    assert disagreements(None, ["a", "b"], ["b", "b"]) == [(1, "a", "b")]


def test_numpy_arrays_and_lists_give_the_same_report():
    a, b = random_raters(3, n=100, k=3)
    labels = np.array(["a", "b", "tie"])
    from_lists, pairs_l = agreement_report(None, labels[a].tolist(), labels[b].tolist())
    from_arrays, pairs_a = agreement_report(None, labels[a], labels[b])
    assert from_lists == from_arrays and pairs_l == pairs_a


# --- edge cases ---------------------------------------------------------------------------------

def test_empty_input_is_nan_with_a_reason():
    assert math.isnan(observed([], [])) and math.isnan(expected([], [])) and math.isnan(kappa([], []))
    assert all(math.isnan(x) for x in kappa_ci([], []))
    report, pairs = agreement_report([], [], [])
    assert report["undefined"] == NO_PAIRS and report["n"] == 0 and report["disagreements"] == 0 and pairs == []
    assert math.isnan(report["kappa"]) and report["confusion"] == {}


def test_unequal_lengths_raise():
    with pytest.raises(AgreementError, match=r"different numbers of labels \(3 and 2\)"):
        kappa(["a", "b", "a"], ["a", "b"])
    with pytest.raises(AgreementError, match="2 ids for 3 label pairs"):
        disagreements(["p1", "p2"], ["a", "b", "a"], ["a", "b", "b"])


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_chance_agreement_of_one_is_undefined_not_one(weights):
    # both raters said "a" every time: po = pe = 1, kappa = 0/0 (the notes' reference code returns 1.0 here)
    a = ["a"] * 6
    assert expected(a, a) == 1.0
    assert math.isnan(kappa(a, a, weights))
    assert math.isnan(kappa(a, a, weights, labels=["a", "b", "tie"]))
    report, _ = agreement_report(None, a, a, weights)
    assert report["undefined"] == CHANCE_IS_ONE and math.isnan(report["kappa_ci_low"])


def test_constant_raters_on_different_labels_is_defined_zero():
    # po = 0 and pe = 0, so kappa = 0 / 1 = 0: defined, and no better than chance
    assert kappa(["a"] * 4, ["b"] * 4) == 0.0
    # one rater constant: pe = share of b's "a" = 2/4 = po, kappa = 0
    assert kappa(["a"] * 4, ["a", "a", "b", "tie"]) == 0.0


def test_bad_labels_and_weights_raise():
    with pytest.raises(AgreementError, match=r"rater b has no label \(None or NaN\) at position 1"):
        kappa(["a", "b"], ["a", None])
    with pytest.raises(AgreementError, match="rater a has no label"):
        kappa([float("nan"), 1.0], [1.0, 1.0])
    with pytest.raises(AgreementError, match="label 'maybe' is not one of a, b, tie"):
        kappa(["a", "maybe"], ["a", "b"], labels=["a", "b", "tie"])
    with pytest.raises(AgreementError, match="cannot be sorted"):
        kappa([1, "a"], [1, "a"])
    with pytest.raises(AgreementError, match="repeat a label"):
        kappa(["a"], ["a"], labels=["a", "a"])
    with pytest.raises(AgreementError, match="weights 'cubic' is not one of"):
        kappa(["a", "b"], ["a", "b"], weights="cubic")
    with pytest.raises(AgreementError, match="must be hashable"):
        kappa([["a"], ["b"]], [["a"], ["b"]])


def test_one_and_string_one_are_different_labels():
    # np.asarray would turn [1, "1"] into two equal strings; the factorization must not
    assert contingency([1, "1"], [1, 1], labels=[1, "1"]).observed() == 0.5
    assert contingency(np.array([1, 2]), np.array(["1", "2"]), labels=[1, 2, "1", "2"]).observed() == 0.0
    assert confusion([1, "1"], [1, 1], labels=[1, "1"]) == {1: {1: 1, "1": 0}, "1": {1: 1, "1": 0}}


def test_report_fields():
    ann1, ann2 = seed_thirty()
    ids = [f"p{i:02d}" for i in range(30)]
    report, pairs = agreement_report(ids, ann1, ann2, names=("ann1", "ann2"))
    assert report["n"] == 30 and report["disagreements"] == 4 == len(pairs)
    assert report["kappa"] == kappa(ann1, ann2) and report["undefined"] is None and report["weights"] is None
    assert (report["kappa_ci_low"], report["kappa_ci_high"]) == kappa_ci(ann1, ann2)
    assert report["labels"] == {"a": {"ann1": 10, "ann2": 13}, "b": {"ann1": 11, "ann2": 12}, "tie": {"ann1": 9, "ann2": 5}}
    assert pairs[0] == ("p21", "tie", "a")  # rows 0-9 a/a, 10-20 b/b, then tie/a
    assert not any(isinstance(v, list) for v in report.values())  # fit for a metrics file


# --- properties ---------------------------------------------------------------------------------

same_type_pairs = st.one_of(
    st.lists(st.tuples(st.sampled_from(["a", "b", "tie"]), st.sampled_from(["a", "b", "tie"])), max_size=40),
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=40),
)
WEIGHTS = st.sampled_from([None, "linear", "quadratic"])


@given(same_type_pairs, WEIGHTS)
def test_kappa_is_within_minus_one_and_one_when_defined(pairs, weights):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    k = kappa(a, b, weights)
    assert math.isnan(k) == (contingency(a, b).undefined() is not None)
    if not math.isnan(k):
        assert -1.0 <= k <= 1.0
        low, high = kappa_ci(a, b, weights)
        assert -1.0 <= low <= k <= high <= 1.0


@given(same_type_pairs, WEIGHTS)
def test_kappa_of_a_rater_with_itself_is_one_when_defined(pairs, weights):
    a = [x for x, _ in pairs]
    k = kappa(a, a, weights)
    if len(set(a)) > 1:
        assert k == 1.0
    else:
        assert math.isnan(k)  # empty, or one label only: chance agreement is 1


@given(same_type_pairs, WEIGHTS)
def test_kappa_is_symmetric_in_the_raters(pairs, weights):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    k_ab, k_ba = kappa(a, b, weights), kappa(b, a, weights)
    assert (math.isnan(k_ab) and math.isnan(k_ba)) or k_ab == k_ba
    assert expected(a, b) == expected(b, a) or math.isnan(expected(a, b))


@given(st.lists(st.tuples(st.sampled_from("xyz"), st.sampled_from("xyz")), min_size=1, max_size=40))
def test_kappa_matches_seed_formula_property(pairs):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    if contingency(a, b).undefined() is None:
        assert kappa(a, b) == pytest.approx(reference_kappa(a, b), abs=1e-12)


# --- the stage ----------------------------------------------------------------------------------

def write_pairs(path: Path, ann1: list[str], ann2: list[str]) -> None:
    rows = []
    for i, (x, y) in enumerate(zip(ann1, ann2, strict=True)):
        rows.append({"id": f"p{i:02d}", "case_question": "How long is the return window?", "facts": ["30 days"],
                     "a": "30 days.", "b": "Thirty days, from delivery.", "kind": "clear" if i % 2 else "tie",
                     "lang": "bn" if i % 3 == 0 else "en", "ann1": x, "ann2": y, "final": x})
    rows.reverse()  # the stage sorts by id, whatever the file order
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def run_stage_script(tmp_path: Path, monkeypatch) -> None:
    spec = importlib.util.spec_from_file_location("stage_agreement", ROOT / "stages" / "agreement.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.chdir(tmp_path)
    module.main()


def test_stage_writes_metrics_disagreements_and_plot(tmp_path, monkeypatch):
    ann1, ann2 = seed_thirty()
    write_pairs(tmp_path / "labels" / "pairs.jsonl", ann1, ann2)
    (tmp_path / "params.yaml").write_text("inputs:\n  pairs: labels/pairs.jsonl\n  guidelines: labels/guidelines.md\n"
                                          "agreement:\n  weights: null\n")
    (tmp_path / "labels" / "guidelines.md").write_text("# Guidelines, version 1\n")
    run_stage_script(tmp_path, monkeypatch)

    metrics = json.loads((tmp_path / "metrics/agreement.json").read_text())
    assert metrics["n"] == 30 and metrics["disagreements"] == 4
    assert metrics["kappa"] == pytest.approx(473 / 593) and metrics["expected"] == pytest.approx(307 / 900)
    prov = json.loads((tmp_path / "reports/provenance/agreement.json").read_text())
    assert prov["inputs"] == {"pairs": sha256_file(tmp_path / "labels/pairs.jsonl"),
                              "guidelines": sha256_file(tmp_path / "labels/guidelines.md")}
    assert prov["assay_version"] and prov["details"] == {"weights": None, "undefined": None}
    assert metrics["labels"]["tie"] == {"ann1": 9, "ann2": 5}
    assert not any(isinstance(v, list) for v in metrics.values())

    rows = [json.loads(line) for line in (tmp_path / "reports/disagreements.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["p21", "p22", "p23", "p24"]  # the notes' tie-vs-a/b rows, sorted
    assert rows[0] == {"id": "p21", "ann1": "tie", "ann2": "a", "kind": "clear", "lang": "bn"}

    with open(tmp_path / "reports/plots/confusion_annotators.csv", newline="") as fh:
        plot = list(csv.DictReader(fh))
    assert len(plot) == 30 and Counter((r["ann1"], r["ann2"]) for r in plot)[("tie", "a")] == 3

    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    run_stage_script(tmp_path, monkeypatch)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before  # byte-stable


def test_stage_params_reject_unknown_key(tmp_path, monkeypatch):
    from assay.core.errors import InputError

    (tmp_path / "params.yaml").write_text("agreement:\n  weight: linear\n")
    with pytest.raises(InputError, match="agreement.weight"):
        run_stage_script(tmp_path, monkeypatch)
