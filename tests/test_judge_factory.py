"""The judge params section and make_judge."""

import json
import subprocess
import sys

import pytest

from assay.core.errors import InputError
from assay.judge.factory import JudgeParams, make_judge
from assay.judge.fake import PRESETS
from assay.judge.usability import UsabilityRule
from assay.core.params import load_section



def test_defaults_and_prompt_file():
    params = JudgeParams()
    assert (params.kind, params.preset, params.swap, params.min_kappa, params.usability, params.interval) == \
        ("fake", "mixed", True, 0.6, "conservative", "wilson")
    assert params.rule == UsabilityRule() and JudgeParams(max_flip_share=0.3).rule.max_flip_share == 0.3
    assert params.prompt_file("prompts").as_posix() == "prompts/pairwise_v2.md"
    assert params.prompt_file("prompts", 1).as_posix() == "prompts/pairwise_v1.md"
    assert make_judge(JudgeParams(preset="self")) is PRESETS["self"]


@pytest.mark.parametrize("section, message", [
    ("preset: mixed\n  presett: clean", "field 'judge.presett': unknown field"),
    ("bootstrap_resamples: 2000", "field 'judge.bootstrap_resamples': unknown field"),
    ("usability: strict", "'strict' is not one of conservative, point"),
    ("preset: fair", "'fair' is not one of clean, position, verbosity, self, mixed"),
    # the pairs file and the prompts folder are written once, in `inputs` (assay.core.paths.InputPaths)
    ("pairs: data/pairs.jsonl", "field 'judge.pairs': unknown field"),
    ("prompts_dir: data/prompts", "field 'judge.prompts_dir': unknown field"),
])
def test_a_bad_judge_section_fails_loudly(tmp_path, section, message):
    f = tmp_path / "params.yaml"
    f.write_text(f"judge:\n  {section}\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_section("judge", JudgeParams, f)
    assert message in str(raised.value)


LAZY_CHECK = """
import json, sys
from assay.judge.base import JudgeItem
from assay.judge.factory import JudgeParams, make_judge
judge = make_judge(JudgeParams(kind="fake", preset="mixed"))
judge.judge_many([JudgeItem("q", ("x",), "x", "y")], None)
watched = ("assay.judge.openai", "assay.judge.http", "aiohttp")
fake = {name: name in sys.modules for name in watched}
make_judge(JudgeParams(kind="openai", openai={"base_url": "http://127.0.0.1:9/v1", "model": "m"}))
print(json.dumps({"fake": fake, "openai": {name: name in sys.modules for name in ("assay.judge.openai",)}}))
"""


def test_the_fake_judge_never_imports_the_http_client():
    # a fresh interpreter: this test process has long imported assay.judge.openai through other tests
    proc = subprocess.run([sys.executable, "-c", LAZY_CHECK], capture_output=True, text=True, check=True)
    seen = json.loads(proc.stdout)
    assert seen["fake"] == {"assay.judge.openai": False, "assay.judge.http": False, "aiohttp": False}
    assert seen["openai"] == {"assay.judge.openai": True}  # the check does see an import when there is one


def test_openai_subsection_builds_the_openai_judge_and_names_bad_fields():
    from assay.judge.openai import OpenAIJudge

    judge = make_judge(JudgeParams(kind="openai", openai={"base_url": "http://127.0.0.1:9/v1", "model": "m"}))
    assert isinstance(judge, OpenAIJudge) and judge.params.model == "m" and judge.url == "http://127.0.0.1:9/v1/chat/completions"
    with pytest.raises(InputError, match="params.yaml: field 'judge.openai.model': is required"):
        make_judge(JudgeParams(kind="openai", openai={"base_url": "http://127.0.0.1:9/v1"}))


def test_identity_of_an_openai_judge_needs_no_key(monkeypatch):
    from assay.judge.factory import judge_identity
    from assay.judge.openai import MissingApiKey

    params = JudgeParams(kind="openai", openai={"base_url": "http://127.0.0.1:9/v1", "model": "m",
                                                "api_key_env": "ASSAY_FACTORY_TEST_KEY"})
    monkeypatch.delenv("ASSAY_FACTORY_TEST_KEY", raising=False)
    with pytest.raises(MissingApiKey, match="ASSAY_FACTORY_TEST_KEY"):
        make_judge(params)  # asking needs the key
    keyless = judge_identity(params)  # naming the judge does not
    monkeypatch.setenv("ASSAY_FACTORY_TEST_KEY", "sk-test")
    assert keyless == make_judge(params).identity
    assert keyless == {"provider": "openai-compatible", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                       "model_version": None, "temperature": 0.0}
    assert judge_identity(JudgeParams(preset="self")) == PRESETS["self"].identity
    with pytest.raises(InputError, match="field 'judge.openai.model': is required"):
        judge_identity(JudgeParams(kind="openai", openai={"base_url": "http://h/v1"}))
