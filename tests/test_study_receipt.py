"""assay.study.receipt: the agreement receipt's contents, recorded before any discussion."""

from __future__ import annotations

import hashlib
import json

import krippendorff
import pytest
from sklearn.metrics import cohen_kappa_score

import assay
from assay.core.errors import InputError
from assay.study.receipt import ALPHA, KAPPA, build_receipt, receipt_is_current, write_receipt
from study_helpers import PAIRS, judgment, jsonl, make_split


def test_receipt_names_measures_formula_tool_hashes_counts_and_intervals(tmp_path):
    root = make_split(tmp_path)
    receipt = build_receipt(root, "development", resamples=500, seed=3)
    a, b = [p[3] for p in PAIRS], [p[4] for p in PAIRS]
    assert receipt["pairs"] == 8 and receipt["queries"] == 3
    assert receipt["disagreements"] == 3  # (0,1), (2,0), (-1,0) in tests/study_helpers.PAIRS
    for who in ("A", "B"):
        data = (tmp_path / "development" / f"judgments_{who}.jsonl").read_bytes()
        assert receipt["inputs"][f"judgments_{who}.jsonl"] == hashlib.sha256(data).hexdigest()
    alpha, kappa = receipt["measures"]
    assert alpha["name"] == ALPHA and kappa["name"] == KAPPA
    assert "d2_ck" in alpha["formula"] and "(i - j)^2" in kappa["formula"]
    assert alpha["value"] == pytest.approx(krippendorff.alpha(reliability_data=[a, b], level_of_measurement="ordinal",
                                                               value_domain=[-1, 0, 1, 2]))
    assert kappa["value"] == pytest.approx(cohen_kappa_score(a, b, weights="quadratic"))
    for m in (alpha, kappa):
        assert m["interval"]["low"] <= m["value"] <= m["interval"]["high"]
        assert "bootstrap over queries, 500 resamples" in m["interval"]["method"]
    assert receipt["tool"]["assay"] == assay.__version__ and receipt["tool"]["numpy"]
    assert sum(receipt["pair_counts"].values()) == 8 and receipt["pair_counts"]["2|0"] == 1


def test_receipt_is_byte_stable(tmp_path):
    root = make_split(tmp_path)
    path = write_receipt(root, "development", build_receipt(root, "development", resamples=200))
    first = path.read_bytes()
    write_receipt(root, "development", build_receipt(root, "development", resamples=200))
    assert path.read_bytes() == first


def test_a_pair_judged_by_one_annotator_only_is_refused_at_its_line(tmp_path):
    root = make_split(tmp_path)
    jsonl(tmp_path / "development" / "judgments_B.jsonl", [judgment(q, d, b) for q, d, _, _, b in PAIRS[:-1]])
    with pytest.raises(InputError) as err:
        build_receipt(root, "development", resamples=200)
    assert "$ASSAY_EVIDENCE_ROOT/development/judgments_A.jsonl:8" in str(err.value)
    assert "no judgment from annotator B" in str(err.value)
    assert str(tmp_path) not in str(err.value)


def test_a_bad_grade_is_refused_with_file_and_line(tmp_path):
    root = make_split(tmp_path)
    rows = [judgment(q, d, a) for q, d, _, a, _ in PAIRS]
    rows[2]["relevance"] = 3
    jsonl(tmp_path / "development" / "judgments_A.jsonl", rows)
    with pytest.raises(InputError, match=r"judgments_A.jsonl:3: field 'relevance'"):
        build_receipt(root, "development", resamples=200)


def test_receipt_must_exist_and_match_the_judgments(tmp_path):
    root = make_split(tmp_path)
    with pytest.raises(InputError, match="no agreement receipt"):
        receipt_is_current(root, "development")
    write_receipt(root, "development", build_receipt(root, "development", resamples=200))
    assert receipt_is_current(root, "development")["pairs"] == 8
    rows = [judgment(q, d, b) for q, d, _, _, b in PAIRS]
    rows[0]["relevance"] = 1  # B edits a grade after the receipt
    jsonl(tmp_path / "development" / "judgments_B.jsonl", rows)
    with pytest.raises(InputError, match="judgments_B.jsonl changed since the receipt"):
        receipt_is_current(root, "development")
    assert json.loads((tmp_path / "development" / "receipt.json").read_text())["pairs"] == 8


def test_grade_minus_one_is_said_and_the_note_is_true():
    # what the note claims: the receipt's weighted kappa counts -1 against 0 as a disagreement (quadratic
    # weight (0 - 1)^2 = 1 > 0), while the IR measures give -1 and 0 the same gain 0, so swapping a -1
    # for a 0 in the qrels changes no IR measure (pytrec_eval agrees in test_measures)
    import pandas as pd

    from assay.relevance.measures import evaluate
    from assay.relevance.trec import Qrels, Run
    from assay.study.receipt import GRADE_NOTE

    assert cohen_kappa_score([-1, 0, 1, 2], [0, 0, 1, 2], weights="quadratic") < 1.0
    run = Run(pd.DataFrame([("q", "d1", 3.0), ("q", "d2", 2.0), ("q", "d3", 1.0)], columns=["qid", "docno", "score"]))

    def means(grade):
        qrels = Qrels(pd.DataFrame([("q", "d1", grade), ("q", "d2", 2), ("q", "d3", 1)], columns=["qid", "docno", "grade"]))
        return evaluate(qrels, run, "nDCG@10,P@10,AP,RR@10,R@10").mean

    assert means(-1) == means(0)
    assert "below 0" in GRADE_NOTE and "same gain 0" in GRADE_NOTE
    committed = json.loads((assay_root() / "reports/relevance/study/receipt.json").read_text(encoding="utf-8"))
    assert committed["grades"] == GRADE_NOTE


def assay_root():
    from conftest import ROOT

    return ROOT
