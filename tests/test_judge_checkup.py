"""`assay judge doctor` against the fake server on 127.0.0.1, and the arithmetic behind its suggestions."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml
from fake_openai_server import FakeOpenAIServer, make_prompt
from hypothesis import given
from hypothesis import strategies as st

from assay.cli import build_parser, main
from assay.judge.checkup import served_at_once, suggested_timeout


@given(st.integers(2, 32), st.integers(1, 32), st.floats(0.01, 60.0), st.floats(-0.2, 0.2))
def test_served_at_once_finds_a_slotted_servers_slots_and_never_more(parallel, slots, t, jitter):
    # a server with `slots` slots answers `parallel` requests of t seconds each in ceil(parallel / slots) rounds;
    # the last one finishes after that many rounds, the first after one (jitter: +-20% on the last)
    slots = min(slots, parallel)
    rounds = math.ceil(parallel / slots)
    found = served_at_once(parallel, t, rounds * t * (1 + jitter / rounds))
    assert 1 <= found <= slots
    if parallel % slots == 0:
        assert found == slots


def test_suggested_timeout_by_hand():
    # one slot, 20 s a request, 4 at once took 80 s; at concurrency 1 a request takes 80 * 1/4 = 20 s: 3 x 20 = 60
    assert suggested_timeout(20.0, 80.0, 4, 1) == 60
    # four slots on a CPU: 4 at once took 50 s, each 30 s alone; at concurrency 4: 50 s, 3 x 50 = 150
    assert suggested_timeout(30.0, 50.0, 4, 4) == 150
    # a fast server: 3 x 0.6 = 1.8 s, raised to the 10 s floor
    assert suggested_timeout(0.5, 0.6, 4, 4) == 10


@pytest.fixture
def project(tmp_path):
    make_prompt(tmp_path / "prompts", 2)

    def write(base_url: str, **openai) -> str:
        params = {"inputs": {"prompts": str(tmp_path / "prompts")},
                  "judge": {"kind": "openai", "prompt_version": 2,
                            "openai": {"base_url": base_url, "model": "m", **openai}}}
        path = tmp_path / "params.yaml"
        path.write_text(yaml.safe_dump(params), encoding="utf-8")
        return str(path)
    return write


def doctor(capsys, params: str, *extra: str) -> tuple[int, str, str]:
    code = main(["judge", "doctor", "--params", params, "--timeout", "20", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_llama_cpp_python_like_server_one_at_a_time_gets_json_object_and_concurrency_1(project, capsys):
    with FakeOpenAIServer(latency=0.3, response_formats=("text", "json_object"), parallel=1) as server:
        code, out, err = doctor(capsys, project(server.base_url, response_format="json_schema", concurrency=8))
        assert server.max_serving == 1 and server.requests == 3 + 1 + 4  # three shapes, one alone, four at once
    assert code == 0, err
    assert "response_format json_schema HTTP 500" in out and "refused: HTTP 500:" in out
    assert "Input should be 'text' or 'json_object'" in out
    assert "response_format json_object HTTP 200" in out and "response_format none        HTTP 200" in out
    assert "about 1 served at once" in out
    assert out.endswith("suggested judge.openai settings:\n  concurrency: 1\n  timeout: " + out.rsplit("timeout: ", 1)[1])
    assert out.rstrip().endswith("response_format: json_object")
    timeout = int(out.rsplit("timeout: ", 1)[1].split()[0])
    assert timeout == 10  # 3 x about 0.3 s, raised to the floor
    assert "judge doctor: request 1 of 8: response_format none" in err


@pytest.mark.parametrize("slots, expected", [(None, 4), (2, 2)])
def test_a_server_serving_several_at_once_gets_that_concurrency_and_json_schema(project, capsys, slots, expected):
    with FakeOpenAIServer(latency=0.3, parallel=slots) as server:
        code, out, err = doctor(capsys, project(server.base_url), "--parallel", "4")
        assert server.max_serving == expected
    assert code == 0, err
    assert f"about {expected} served at once" in out and f"  concurrency: {expected}\n" in out
    assert out.rstrip().endswith("response_format: json_schema")
    assert ("served all 4 requests at once; run again with --parallel 8" in out) == (expected == 4)


def test_base_url_and_model_check_a_server_the_fake_judge_params_do_not_name(project, capsys, tmp_path):
    params = project("http://127.0.0.1:9/v1")
    data = yaml.safe_load(Path(params).read_text(encoding="utf-8"))
    data["judge"] = {"kind": "fake", "prompt_version": 2}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    code, _, err = doctor(capsys, params)
    assert code == 1 and err == (f"assay judge: {params}: field 'judge.kind': 'fake': the fake judge has no server to check "
                                 "(fix: set judge.kind: openai with judge.openai.base_url and model, or pass --base-url and --model)\n")
    with FakeOpenAIServer() as server:
        code, out, err = doctor(capsys, params, "--base-url", server.base_url, "--model", "other")
        assert {b["model"] for b in server.bodies} == {"other"}
    assert code == 0 and out.startswith(f"judge doctor: {server.base_url} model other\n")


def test_a_server_that_is_not_there_is_one_line_with_the_fix(project, capsys):
    with FakeOpenAIServer() as gone:
        url = gone.base_url
    code, out, err = doctor(capsys, project(url))
    assert code == 1 and out == "" and err.count("\n") == 1 + 3  # three progress lines, then the error
    last = err.splitlines()[-1]
    assert last.startswith(f"assay judge: judge doctor: the server at {url}/chat/completions answered no request: ClientConnectorError")
    assert last.endswith("(fix: start the server, check judge.openai.base_url (the API root, ending in /v1) and model, "
                         "or pass a longer --timeout for a slow first request)")


def test_every_doctor_argument_has_help():
    parser = build_parser()
    judge = next(a for a in parser._actions if a.dest == "command").choices["judge"]
    doctor_parser = next(a for a in judge._actions if a.dest == "judge_command").choices["doctor"]
    assert doctor_parser.description
    for action in doctor_parser._actions:
        assert action.help, action.dest



def _fake_error(status: str) -> str:
    return f'HTTP {status}: {{"error": {{"message": "fake {status}", "type": "fake", "code": "{status}"}}}} (not retried)'


@pytest.mark.parametrize("status", ["401", "403"])
def test_a_refused_key_is_named_with_its_setting_not_start_the_server(project, capsys, monkeypatch, status):
    monkeypatch.setenv("ASSAY_TEST_DOCTOR_KEY", "sk-wrong")
    with FakeOpenAIServer() as server:
        server.fault(status, attempts=None)
        code, out, err = doctor(capsys, project(server.base_url, api_key_env="ASSAY_TEST_DOCTOR_KEY"))
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == (
        f"assay judge: judge doctor: the server at {server.base_url}/chat/completions refused the key "
        f"({_fake_error(status)}) (fix: check the key in the environment variable "
        "ASSAY_TEST_DOCTOR_KEY that judge.openai.api_key_env names: export the key this server accepts)")
    assert "sk-wrong" not in err and "start the server" not in err


def test_a_key_wanted_but_none_sent_says_set_api_key_env(project, capsys):
    with FakeOpenAIServer() as server:
        server.fault("401", attempts=None)
        code, _, err = doctor(capsys, project(server.base_url))
    assert code == 1
    assert err.splitlines()[-1] == (
        f"assay judge: judge doctor: the server at {server.base_url}/chat/completions refused the key "
        f"({_fake_error('401')}; no key was sent) (fix: set judge.openai.api_key_env to the name of the "
        "environment variable holding the server's key, or pass --api-key-env)")


def test_an_unset_key_names_judge_openai_api_key_env(project, capsys, monkeypatch):
    monkeypatch.delenv("ASSAY_TEST_DOCTOR_KEY", raising=False)
    with FakeOpenAIServer() as server:
        code, out, err = doctor(capsys, project(server.base_url, api_key_env="ASSAY_TEST_DOCTOR_KEY"))
        assert server.requests == 0
    assert code == 1 and out == ""
    assert err == ("assay judge: OpenAIJudge: environment variable ASSAY_TEST_DOCTOR_KEY (judge.openai.api_key_env) "
                   "is unset or empty (fix: export ASSAY_TEST_DOCTOR_KEY=<your key>, or remove api_key_env for a "
                   "server without auth)\n")
