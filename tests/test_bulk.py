"""The garbage-collector pause used while building objects in bulk."""

from __future__ import annotations

import gc

import pytest

from assay.core.bulk import bulk


def test_pause_restores_the_collector_even_after_an_error():
    assert gc.isenabled()
    with pytest.raises(ValueError), bulk():
        assert not gc.isenabled() and gc.get_freeze_count() > 0
        with bulk():  # nested: the inner block must not switch the collector back on
            pass
        assert not gc.isenabled()
        raise ValueError("boom")
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    try:
        with bulk():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_calibration_gives_the_same_record_with_the_pause():
    from assay.judge.calibration import calibrate
    from assay.judge.fake import PRESETS
    from assay.judge.prompts import load_prompt
    from pathlib import Path
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_calibration import synthetic_pairs

    pairs = synthetic_pairs(600)
    prompt = load_prompt(Path(__file__).resolve().parents[1] / "data" / "prompts" / "pairwise_v2.md")
    with_pause = calibrate(pairs, PRESETS["mixed"], prompt)
    assert gc.isenabled()
    from assay.judge import calibration

    without = calibration._calibration_run(pairs, PRESETS["mixed"], prompt, True, None, None).record
    assert repr(with_pause) == repr(without)
