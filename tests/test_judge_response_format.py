"""A server that refuses a response_format shape is told once, with the fix, and not retried."""

from __future__ import annotations

import json

import pytest
from fake_openai_server import FakeOpenAIServer, make_prompt

from assay.core.errors import AssayError
from assay.judge.base import JudgeItem
from assay.judge.http import refuses_response_format
from assay.judge.openai import OpenAIJudge, OpenAIJudgeParams, ResponseFormatRefused


@pytest.fixture(scope="module")
def prompt(tmp_path_factory):
    return make_prompt(tmp_path_factory.mktemp("prompts"), 1)


def judge(server, tmp_path, **overrides) -> OpenAIJudge:
    settings = {"base_url": server.base_url, "model": "m", "timeout": 5.0, "retries": 4, "backoff": 0.01,
                "concurrency": 1, "max_failed_share": 1.0, "progress": False,
                "cache_path": str(tmp_path / "cache.sqlite"), **overrides}
    return OpenAIJudge(OpenAIJudgeParams(**settings))


def items(n: int) -> list[JudgeItem]:
    return [JudgeItem(f"q{i}", (), "first", "second") for i in range(n)]


@pytest.mark.parametrize("concurrency", [1, 4])
def test_llama_cpp_python_refusing_json_schema_stops_at_once_naming_json_object(tmp_path, prompt, concurrency):
    with FakeOpenAIServer(response_formats=("text", "json_object")) as server:
        with pytest.raises(ResponseFormatRefused) as caught:
            judge(server, tmp_path, response_format="json_schema", concurrency=concurrency).judge_many(items(12), prompt)
        message = str(caught.value)
        assert isinstance(caught.value, AssayError) and "\n" not in message
        assert "does not accept response_format json_schema" in message
        assert "Input should be 'text' or 'json_object'" in message
        assert "(fix: set `response_format: json_object` in the judge params (judge.openai.response_format)" in message
        # not retried: no item was asked twice, and the requests in flight when it came were the last
        asked = [json.dumps(body["messages"]) for body in server.bodies]
        assert len(asked) == len(set(asked)) and 1 <= server.requests <= concurrency
        assert server.behaviours == {"format_refused": server.requests}


def test_the_shape_the_server_takes_works(tmp_path, prompt):
    with FakeOpenAIServer(response_formats=("text", "json_object")) as server:
        verdicts = judge(server, tmp_path, response_format="json_object").judge_many(items(3), prompt)
        assert [v.status for v in verdicts] == ["ok"] * 3 and server.requests == 3
        judge(server, tmp_path / "other", response_format=None).judge_many(items(1), prompt)  # no response_format


def test_a_server_refusing_json_object_is_told_json_schema(tmp_path, prompt):
    with FakeOpenAIServer(response_formats=("text", "json_schema")) as server:
        with pytest.raises(ResponseFormatRefused, match=r"fix: set `response_format: json_schema`") as caught:
            judge(server, tmp_path, response_format="json_object").judge_many(items(2), prompt)
        assert "llama-cpp-python" not in str(caught.value) and server.requests == 1


def test_a_plain_500_is_still_retried_when_a_response_format_is_sent(tmp_path, prompt):
    with FakeOpenAIServer() as server:
        server.fault("500", attempts=2)
        verdicts = judge(server, tmp_path, response_format="json_schema").judge_many(items(1), prompt)
        assert verdicts[0].status == "ok" and server.requests == 3


@pytest.mark.parametrize("status, body, refused", [
    # llama-cpp-python's server, response_format json_schema (the pydantic error it returns as a 500)
    (500, '{"error": {"message": "1 validation error for CreateChatCompletionRequest\\nresponse_format.type\\n  '
          "Input should be 'text' or 'json_object' [type=literal_error, input_value='json_schema']\"}}", True),
    # OpenAI's wording for a model without structured outputs
    (400, "{\"error\": {\"message\": \"Invalid parameter: 'response_format' of type 'json_schema' is not supported "
          "with this model.\"}}", True),
    (422, '{"detail": [{"loc": ["body", "response_format"], "msg": "Extra inputs are not permitted"}]}', True),
    (500, '{"error": {"message": "CUDA error: out of memory"}}', False),
    (503, '{"error": {"message": "Loading model"}}', False),
    (429, "response_format invalid", False),
    (401, "invalid api key for json_schema", False),
    (200, "response_format should be json_object", False),
])
def test_which_bodies_say_the_response_format_is_refused(status, body, refused):
    assert refuses_response_format(status, body) is refused
