"""The gate's calibration freshness check needs no API key, also for a real (openai) judge."""

import shutil

import yaml

from assay.data.pairs import load_pairs
from assay.judge.calibration import judge_settings, labels_hash, settings_hash
from assay.judge.calibration_record import CalibrationIdentity, PromptRef
from assay.judge.factory import JudgeParams, make_judge
from assay.judge.prompts import load_prompt
from assay.release.judge_staleness import current_staleness, current_state

from conftest import ROOT

KEY_ENV = "ASSAY_STALENESS_TEST_KEY"


def workspace(tmp_path, model="judge-model"):
    shutil.copytree(ROOT / "data/prompts", tmp_path / "data/prompts")
    shutil.copy(ROOT / "data/pairs.jsonl", tmp_path / "data/pairs.jsonl")
    params = {"inputs": {"prompts": "data/prompts", "pairs": "data/pairs.jsonl"},
              "judge": {"kind": "openai",
                        "openai": {"base_url": "http://127.0.0.1:9/v1", "model": model, "api_key_env": KEY_ENV}}}
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params), encoding="utf-8")
    return path


def test_staleness_of_an_openai_calibration_is_checked_with_the_key_unset(tmp_path, monkeypatch):
    params_path = workspace(tmp_path)
    # the record, as calibrate wrote it on a machine that had the key
    monkeypatch.setenv(KEY_ENV, "sk-test")
    params = JudgeParams.model_validate(yaml.safe_load(params_path.read_text(encoding="utf-8"))["judge"])
    settings = judge_settings(make_judge(params).identity, swap=True, rule=params.rule)
    prompt = load_prompt(params.prompt_file(tmp_path / "data/prompts"))
    record = CalibrationIdentity(prompt=PromptRef(name=prompt.name, version=prompt.version, sha=prompt.sha),
                                 settings=settings.model_dump(), judge=settings.judge, swap=True,
                                 judge_settings_hash=settings_hash(settings),
                                 labels_hash=labels_hash(load_pairs(tmp_path / "data/pairs.jsonl")))
    monkeypatch.delenv(KEY_ENV)

    prompt_now, settings_now, labels_now = current_state(params_path.parent)  # the working directory is elsewhere
    assert settings_now == settings and prompt_now.sha == prompt.sha and labels_now == record.labels_hash
    assert current_staleness(record, params_path.parent) == []
    workspace(tmp_path / "other", model="another-model")
    changes = current_staleness(record, tmp_path / "other")
    assert changes == ["judge settings: judge.model 'judge-model' -> 'another-model'"]
