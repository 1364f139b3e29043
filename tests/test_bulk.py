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


def test_batch_rows_comes_from_the_environment_and_a_bad_value_names_the_variable(monkeypatch):
    from assay.core.bulk import BATCH_ENV, DEFAULT_BATCH, batch_rows, batched
    from assay.core.errors import InputError

    monkeypatch.delenv(BATCH_ENV, raising=False)
    assert batch_rows() == DEFAULT_BATCH
    monkeypatch.setenv(BATCH_ENV, "7")
    assert batch_rows() == 7
    for bad in ("0", "-3", "2k", "1.5"):
        monkeypatch.setenv(BATCH_ENV, bad)
        with pytest.raises(InputError, match=rf"\$ASSAY_BATCH_ROWS: {bad!r} is not a positive whole number of rows"):
            batch_rows()
    assert [len(b) for b in batched(range(15), 7)] == [7, 7, 1] and list(batched([], 3)) == []
    with pytest.raises(ValueError, match="size 0 is below 1"):
        list(batched([1], 0))
