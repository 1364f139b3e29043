import json

import pytest

from assay.core.errors import InputError
from assay.data.cases import CaseRecord
from assay.data.leakage import LeakageParams, leakage_metrics, leakage_report
from assay.data.leakage.report import ParaphraseParams
from assay.data.leakage.sources import SourceFolder, SourceTexts

from conftest import case


def cases_and_sides():
    cases = [CaseRecord.model_validate(case("g01", question="When does a gift card expire?")),
             CaseRecord.model_validate(case("p10", question="when does my gift card expire")),
             CaseRecord.model_validate(case("g02", question="Is delivery free on weekends?")),
             CaseRecord.model_validate(case("g03", question="Can I get my money refunded?"))]
    return cases, {"g01": "holdout", "p10": "dev", "g02": "dev", "g03": "holdout"}


def test_report_finds_cross_split_and_source_hits():
    cases, sides = cases_and_sides()
    report = leakage_report(cases, sides, {"few_shot": ["Q: When does a gift card expire?", "A: after 36 months"]}, 0.6)
    # both reduce to {gift, card, expire} ("when", "does", "a", "my" are function words) -> 1.0
    assert report["dev_holdout"] == [{"dev": "p10", "holdout": "g01", "score": 1.0}]
    assert [(r["case"], r["line"]) for r in report["sources"]] == [("g01", 1), ("p10", 1)]
    assert "paraphrase" in report["limitation"]
    assert "warnings" not in report and "detectors" not in report


def test_chunk_size_does_not_change_the_report():
    cases, sides = cases_and_sides()
    texts = {"earlier": ["gift card expire when", "weekend delivery free", "delivery free weekends", "refunded money"] * 5,
             "prompt": ["is delivery free on weekends"]}
    whole = leakage_report(cases, sides, SourceTexts(texts, chunk_lines=1000), 0.6)
    assert len(whole["sources"]) == 21  # 5 x (2 gift-card cases + g02 twice) + g03 x 5 + prompt line
    for size in (1, 2, 3, 7):
        assert leakage_report(cases, sides, SourceTexts(texts, chunk_lines=size), 0.6) == whole


def test_empty_sources_folder_is_a_warning_not_silence(tmp_path):
    cases, sides = cases_and_sides()
    folder = SourceFolder(tmp_path)
    report = leakage_report(cases, sides, folder, 0.6)
    assert report["sources"] == []
    assert report["warnings"] == [f"{tmp_path.as_posix()} has no source files: only the dev/holdout split was checked"]
    assert leakage_metrics(report, folder.names)["by_source"] == {}


def test_empty_source_file_is_named_in_a_warning(tmp_path):
    cases, sides = cases_and_sides()
    (tmp_path / "blank.txt").write_text("\n  \nQ:\n", encoding="utf-8")
    report = leakage_report(cases, sides, SourceFolder(tmp_path), 0.6)
    assert report["warnings"] == ["source 'blank' (blank.txt) has no lines to check"]


def test_bad_source_line_fails_the_report(tmp_path):
    cases, sides = cases_and_sides()
    (tmp_path / "a.txt").write_bytes(b"fine line\n\xff\xfe bad\n")
    with pytest.raises(InputError, match=r"a\.txt:2: not valid UTF-8"):
        leakage_report(cases, sides, SourceFolder(tmp_path), 0.6)


def test_paraphrase_findings_are_reported_apart_from_exact_ones():
    cases, sides = cases_and_sides()
    texts = {"earlier": ["When does a gift card expire?", "can i get a refund of my money"]}
    para = ParaphraseParams(threshold=0.5)
    report = leakage_report(cases, sides, texts, 0.6, paraphrase=para)
    # exact: line 1 matches g01 and p10 (Jaccard 1.0); line 2 shares {get, money} with g03's
    # {get, money, refunded}: 2 / 4 = 0.5 < 0.6, so only the paraphrase detector sees it
    assert [(r["case"], r["line"]) for r in report["sources"]] == [("g01", 1), ("p10", 1)]
    block = report["paraphrase"]
    assert [(r["case"], r["line"]) for r in block["sources"]] == [("g03", 2)]
    assert block["also_exact"]["sources"] == 2  # line 1 with g01 and p10, listed only as exact
    assert block["dev_holdout"] == [] and block["also_exact"]["dev_holdout"] == 1
    assert set(report["detectors"]) == {"exact", "paraphrase"}
    metrics = leakage_metrics(report, ["earlier"])
    assert metrics["paraphrase"] == {"dev_holdout": 0, "sources": 1, "threshold": 0.5}


def test_metrics_hold_numbers_only():
    cases, sides = cases_and_sides()
    report = leakage_report(cases, sides, {"a": ["gift card expire"]}, 0.6, paraphrase=ParaphraseParams(threshold=0.5))

    def numbers(value):
        if isinstance(value, dict):
            return all(numbers(v) for v in value.values())
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    assert numbers(leakage_metrics(report, ["a"]))
    json.dumps(report)  # the report is plain JSON


def test_params_reject_unknown_keys_and_engines():
    with pytest.raises(ValueError):
        LeakageParams.model_validate({"threshold": 0.6, "engine": "spark"})
    with pytest.raises(ValueError):
        LeakageParams.model_validate({"threshold": 0.6, "chunk_size": 10})
    assert LeakageParams.model_validate({"threshold": 0.6}).paraphrase is None
