"""assay.relevance.thresholds: the committed file holds seed 003's seven thresholds, and only them."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import InputError
from assay.relevance.thresholds import FIGURES, load_thresholds

FILE = Path(__file__).resolve().parents[1] / "data/relevance/thresholds.yaml"


def test_the_committed_file_is_the_seeds_table():
    # seed 003, "Наперед зареєстровані пороги": key, threshold, pass condition
    seed = {"recall_at_10": (">=", 0.80), "ndcg_at_10": (">=", 0.70), "mrr_at_10": (">=", 0.70),
            "citation_provenance_accuracy": (">=", 0.95), "stale_answer_rate_max": ("<=", 0.02),
            "abstention_quality": (">=", 0.90), "p95_latency_ms": ("<=", 1500)}
    loaded = load_thresholds(FILE)
    assert {k: (t.direction, t.value) for k, t in loaded.items()} == seed
    assert list(loaded) == list(FIGURES)


def test_threshold_met_in_its_direction_and_never_when_undefined():
    t = load_thresholds(FILE)
    assert t["recall_at_10"].met(0.80) and not t["recall_at_10"].met(0.7999)
    assert t["p95_latency_ms"].met(1500) and not t["p95_latency_ms"].met(1500.5)
    assert not t["ndcg_at_10"].met(None) and not t["ndcg_at_10"].met(float("nan"))
    assert str(t["stale_answer_rate_max"]) == "stale_answer_rate_max <= 0.02"


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace("mrr_at_10: {direction: \">=\", value: 0.70}\n", ""), "field 'mrr_at_10': missing"),
    (lambda s: s + "precision_at_5: {direction: \">=\", value: 0.5}\n", "field 'precision_at_5': unknown threshold key"),
    (lambda s: s.replace("stale_answer_rate_max: {direction: \"<=\"", "stale_answer_rate_max: {direction: \">=\""),
     "field 'stale_answer_rate_max.direction'"),
    (lambda s: s.replace("value: 0.95", "value: 95"), "field 'citation_provenance_accuracy.value': 95 is not a number in [0, 1]"),
    (lambda s: s.replace("value: 1500", "value: fast"), "field 'p95_latency_ms.value'"),
])
def test_a_file_that_is_not_the_seven_thresholds_is_refused(tmp_path, edit, message):
    path = tmp_path / "thresholds.yaml"
    path.write_text(edit(FILE.read_text()))
    with pytest.raises(InputError) as err:
        load_thresholds(path)
    assert message in str(err.value)
