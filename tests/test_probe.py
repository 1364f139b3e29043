"""Bias probes: each preset shows its own signature on data/pairs.jsonl."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.judge.fake import PRESETS, FakeJudge
from assay.data.pairs import load_pairs
from assay.judge.probe import PROBES, bias_probes, preset_table, table_markdown

from conftest import ROOT

PAIRS = load_pairs(ROOT / "data" / "pairs.jsonl")


def probes(name):
    p = bias_probes(PRESETS[name], PAIRS, None)
    return tuple(round(getattr(p, k), 3) for k in PROBES)


def test_clean_signature():
    assert probes("clean") == (0.5, 0.0, 0.0, 0.0)


def test_position_signature():
    # position 0.3 beats every equal-fact gap (0 or the 0.15 citation bonus, plus the 0.1 margin), so the
    # 28 verbose_tie, tie, cite and self pairs pick the first answer in both orders (56 first picks) and flip;
    # the 14 clear and padded_wrong pairs keep their winner (14 first, 14 second picks).
    # first_pick = (56 + 14) / 84 = 0.833; order_flip = 28 / 42 = 0.667. A flip is a tie, so nothing else moves.
    assert probes("position") == (0.833, 0.667, 0.0, 0.0)


def test_verbosity_signature():
    assert probes("verbosity") == (0.5, 0.0, 1.0, 0.0)


def test_self_signature():
    assert probes("self") == (0.5, 0.0, 0.0, 1.0)


def test_mixed_blurs_every_signature():
    first_pick, order_flip, longer_wins, self_wins = probes("mixed")
    assert first_pick > 0.6 and order_flip > 0.3 and 0 < longer_wins < 1 and 0 < self_wins < 1


def test_counts_and_empty_input():
    p = bias_probes(PRESETS["clean"], PAIRS, None)
    assert (p.n_pairs, p.n_verbose_tie, p.n_self) == (42, 7, 7)
    assert p.n_decisive == 56  # 28 decided pairs (clear, padded_wrong, cite, self) x 2 orders
    empty = bias_probes(PRESETS["clean"], [], None)
    assert all(math.isnan(getattr(empty, k)) for k in PROBES) and empty.n_pairs == 0


@settings(max_examples=30, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.booleans(), st.floats(0, 0.5))
def test_an_order_blind_judge_never_leans_first_and_never_flips(verbosity, self_pref, blind, margin):
    p = bias_probes(FakeJudge(verbosity=verbosity, self_pref=self_pref, bangla_blind=blind, margin=margin), PAIRS, None)
    assert p.order_flip == 0.0
    assert p.first_pick == 0.5 or (math.isnan(p.first_pick) and p.n_decisive == 0)


def test_table_markdown():
    text = table_markdown(preset_table(PAIRS, None))
    assert "| clean | 0.50 | 0.00 | 0.00 | 0.00 |" in text and "| self | 0.50 | 0.00 | 0.00 | 1.00 |" in text
    empty = bias_probes(PRESETS["clean"], [], None)  # every share nan
    assert table_markdown({"x": empty}).endswith("| x | n/a | n/a | n/a | n/a |\n")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_share_is_a_share(name):
    p = bias_probes(PRESETS[name], PAIRS, None)
    assert all(0.0 <= getattr(p, k) <= 1.0 for k in PROBES)
