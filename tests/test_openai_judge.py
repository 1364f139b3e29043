"""OpenAIJudge against a real local HTTP server (tests/fake_openai_server.py) on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import time

import pytest
import yaml
from fake_openai_server import FakeOpenAIServer, make_prompt

from assay.core.errors import InputError
from assay.judge.base import Judge, JudgeItem
from assay.judge.http import backoff_delay, retry_after_seconds
from assay.judge.openai import (JudgeFailures, MissingApiKey, OpenAIJudge, OpenAIJudgeParams, is_refusal,
                                read_completion, redact)
from assay.judge.prompts import VERDICT_SCHEMA
from assay.core.params import load_section

from conftest import ROOT

FAKE_KEY = "sk-assay-LEAKCHECK-5f3a9c7e1b2d"


@pytest.fixture(scope="module")
def prompt(tmp_path_factory):
    return make_prompt(tmp_path_factory.mktemp("prompts"), 1)


@pytest.fixture
def server():
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def make_judge(server, tmp_path):
    def make(**overrides) -> OpenAIJudge:
        settings = {"base_url": server.base_url, "model": "judge-model", "timeout": 5.0, "retries": 2,
                    "backoff": 0.01, "concurrency": 4, "max_failed_share": 1.0, "progress": False,
                    "cache_path": str(tmp_path / "cache.sqlite"), **overrides}
        return OpenAIJudge(OpenAIJudgeParams(**settings))
    return make


def item(question: str, first: str = "first answer", second: str = "second answer") -> JudgeItem:
    return JudgeItem(question, (), first, second)


def test_good_replies_are_parsed_and_identity_names_the_served_model(server, make_judge, prompt):
    judge = make_judge()
    assert isinstance(judge, Judge)
    assert judge.identity["model_version"] is None  # no reply seen yet
    items = [item("q1 [[winner:first]]"), item("q2 [[winner:second]]"), item("q3 [[winner:tie]]"),
             item("q4", "[[best]] right", "[[plain]] wrong"), item("q5", "[[plain]] wrong", "[[best]] right")]
    verdicts = judge.judge_many(items, prompt)
    assert [v.winner for v in verdicts] == ["first", "second", "tie", "first", "second"]
    assert {v.status for v in verdicts} == {"ok"}
    assert server.requests == 5
    assert judge.identity == {"provider": "openai-compatible", "base_url": server.base_url, "model": "judge-model",
                              "model_version": "fake-judge-2026-01", "temperature": 0.0}
    body = next(b for b in server.bodies if "q1 [[winner:first]]" in b["messages"][1]["content"])  # any arrival order
    assert body == {"model": "judge-model", "temperature": 0.0, "max_tokens": 256,
                    "messages": judge.request_body(items[0], prompt)["messages"]}
    assert server.auth_headers[0] is None  # no api_key_env: no Authorization header
    assert judge.last_counts == {"items": 5, "requests": 5, "cached": 0, "sent": 5,
                                 "ok": 5, "invalid": 0, "refused": 0, "failed": 0}


@pytest.mark.parametrize(("behaviour", "status", "reason_part"), [
    ("malformed", "invalid", "not JSON"),
    ("notjson", "invalid", "not JSON"),
    ("empty", "invalid", "empty reply"),
    ("length", "invalid", "max_tokens"),
    ("refuse", "refused", "can't help"),
    ("refusal_field", "refused", "cannot evaluate"),
    ("content_filter", "refused", "content_filter"),
])
def test_broken_replies_are_ties_in_their_bucket(server, make_judge, behaviour, status, reason_part, prompt):
    judge = make_judge()
    verdicts = judge.judge_many([item(f"q [[fake:{behaviour}]]"), item("q [[winner:first]]")], prompt)
    assert (verdicts[0].winner, verdicts[0].status) == ("tie", status)
    assert reason_part in verdicts[0].reason
    assert verdicts[1].status == "ok"  # never dropped, never shifts the others
    assert judge.last_counts[status] == 1 and judge.last_counts["ok"] == 1
    assert server.requests == 2  # a completed reply, however bad, is not retried


def test_retry_after_is_honoured(server, make_judge, prompt):
    server.script("429:1")
    judge = make_judge(backoff=0.0)
    start = time.monotonic()
    verdicts = judge.judge_many([item("q [[winner:second]]")], prompt)
    waited = time.monotonic() - start
    assert verdicts[0].winner == "second"
    assert server.requests == 2 and judge.last_counts["sent"] == 2
    assert 0.9 <= waited < 20.0  # Retry-After: 1 second; the upper bound only catches a hang on a loaded machine


def test_a_long_retry_after_is_capped_by_max_wait(server, make_judge, prompt):
    server.script("429:30")
    start = time.monotonic()
    assert make_judge(max_wait=0.2).judge_many([item("q")], prompt)[0].status == "ok"
    # waited 0.2 s, not the 30 s asked; 15 s leaves room for a loaded machine and still tells the two apart
    assert time.monotonic() - start < 15.0 and server.requests == 2


def test_429_and_500_are_retried_with_backoff_then_succeed(server, make_judge, prompt):
    server.script("429", "500", "503")
    verdicts = make_judge(retries=3).judge_many([item("q [[winner:first]]")], prompt)
    assert verdicts[0].status == "ok" and server.requests == 4


def test_5xx_to_the_end_fails_after_the_retries(server, make_judge, prompt):
    judge = make_judge(retries=2)
    verdicts = judge.judge_many([item("q [[fake:500]]")], prompt)
    assert (verdicts[0].winner, verdicts[0].status) == ("tie", "failed")
    assert "HTTP 500" in verdicts[0].reason and "3 attempt" in verdicts[0].reason
    assert server.requests == 3 and judge.last_counts["failed"] == 1


def test_other_4xx_are_not_retried(server, make_judge, prompt):
    verdicts = make_judge(retries=3).judge_many([item("q [[fake:400]]")], prompt)
    assert verdicts[0].status == "failed" and "not retried" in verdicts[0].reason
    assert server.requests == 1


def test_reply_slower_than_the_timeout_fails_after_retries(server, make_judge, prompt):
    server.slow_seconds = 60.0
    judge = make_judge(timeout=0.3, retries=1)
    start = time.monotonic()
    verdicts = judge.judge_many([item("q [[fake:slow]]")], prompt)
    assert verdicts[0].status == "failed" and "Timeout" in verdicts[0].reason
    assert server.requests == 2  # timeouts are retried
    assert time.monotonic() - start < 30.0  # two 0.3 s attempts, not the server's 60 s (with room for a loaded machine)


def test_verdicts_follow_the_items_when_replies_arrive_out_of_order(server, make_judge, prompt):
    # the first item's reply is held back until the three others have been answered, so replies
    # arrive in the order 2, 3, 4, 1 (or any order with 1 last); each verdict must stay with its item
    server.slow_seconds = 1.0
    items = [item("q1 [[fake:slow]] [[winner:second]]"), item("q2 [[winner:first]]"), item("q3 [[winner:tie]]"),
             item("q4", "[[plain]] wrong", "[[best]] right")]
    judge = make_judge(concurrency=4)
    assert [v.winner for v in judge.judge_many(items, prompt)] == ["second", "first", "tie", "second"]
    assert server.requests == 4 and server.behaviours["slow"] == 1


def test_connection_errors_are_retried_then_fail(tmp_path, prompt):
    with FakeOpenAIServer() as gone:
        url = gone.base_url  # a port that was just released: nothing listens there
    params = OpenAIJudgeParams(base_url=url, model="m", retries=2, backoff=0.01, timeout=2.0, progress=False,
                               max_failed_share=1.0, cache_path=str(tmp_path / "c.sqlite"))
    verdicts = OpenAIJudge(params).judge_many([item("q")], prompt)
    assert verdicts[0].status == "failed" and "ClientConnectorError" in verdicts[0].reason
    assert "3 attempt" in verdicts[0].reason


def test_a_2xx_body_that_is_not_a_completion_fails_and_is_not_cached(server, make_judge, prompt):
    judge = make_judge()
    assert judge.judge_many([item("q [[fake:notcompletion]]")], prompt)[0].status == "failed"
    judge.judge_many([item("q [[fake:notcompletion]]")], prompt)
    assert server.requests == 2


def test_failure_share_above_the_threshold_raises(server, make_judge, prompt):
    items = [item(f"q{i} [[fake:malformed]]") for i in range(2)] + [item(f"q{i} [[fake:400]]") for i in range(2, 3)]
    items += [item(f"q{i}") for i in range(3, 10)]
    with pytest.raises(JudgeFailures) as caught:
        make_judge(max_failed_share=0.2).judge_many(items, prompt)
    message = str(caught.value)
    assert "3 of 10 items (30.0%)" in message and "more than judge.openai.max_failed_share 0.2" in message
    assert "invalid 2" in message and "failed 1" in message
    # at the threshold it passes: 3/10 is not more than 0.3; the replies now come from the cache
    verdicts = make_judge(max_failed_share=0.3).judge_many(items, prompt)
    assert sum(v.status != "ok" for v in verdicts) == 3


def test_refusals_count_toward_the_failure_threshold(make_judge, prompt):
    items = [item(f"q{i} [[fake:refuse]]") for i in range(3)] + [item(f"q{i}") for i in range(3, 10)]
    with pytest.raises(JudgeFailures) as caught:
        make_judge(max_failed_share=0.2).judge_many(items, prompt)
    assert "3 of 10 items (30.0%)" in str(caught.value) and "refused 3" in str(caught.value)
    judge = make_judge(max_failed_share=0.3)  # 3/10 is not more than 0.3: kept, counted as refusals
    verdicts = judge.judge_many(items, prompt)
    assert [v.status for v in verdicts].count("refused") == 3 and judge.last_counts["refused"] == 3


@pytest.mark.parametrize("behaviour", ["401", "403"])
def test_a_rejected_key_names_its_variable_never_its_value(server, make_judge, prompt, monkeypatch, behaviour):
    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", FAKE_KEY)
    judge = make_judge(api_key_env="ASSAY_TEST_JUDGE_KEY", retries=3, max_failed_share=0.0)
    with pytest.raises(JudgeFailures) as caught:
        judge.judge_many([item(f"q [[fake:{behaviour}]]")], prompt)
    message = str(caught.value)
    assert f"HTTP {behaviour}" in message and "check the key in environment variable ASSAY_TEST_JUDGE_KEY" in message
    assert FAKE_KEY not in message and server.requests == 1  # not retried
    without = make_judge(max_failed_share=1.0).judge_many([item(f"q [[fake:{behaviour}]]")], prompt)[0]
    assert "name that variable in judge.openai.api_key_env" in without.reason


def test_counts_add_up_over_calls(server, make_judge, prompt):
    judge = make_judge(retries=1)
    assert judge.counts() == {"items": 0, "requests": 0, "cache_hits": 0, "http_attempts": 0, "failures": 0,
                              "ok": 0, "invalid": 0, "refused": 0, "failed": 0}
    items = [item("a"), item("a"), item("b [[fake:notjson]]"), item("c [[fake:500]]"), item("d [[fake:refuse]]")]
    judge.judge_many(items, prompt)
    judge.judge_many([item("a"), item("e")], prompt)
    # call 1: 5 items, 4 distinct bodies, 0 cached; HTTP: a, b, d once, c twice (500, one retry) = 5
    # call 2: 2 items, 2 bodies, "a" from the cache, "e" sent once
    assert judge.counts() == {"items": 7, "requests": 6, "cache_hits": 1, "http_attempts": 6, "failures": 1,
                              "ok": 4, "invalid": 1, "refused": 1, "failed": 1}
    assert server.requests == 6


def test_invalid_samples_are_short_distinct_and_hold_no_secret(server, make_judge, prompt, monkeypatch):
    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", FAKE_KEY)
    judge = make_judge(api_key_env="ASSAY_TEST_JUDGE_KEY")
    items = [item("q1 [[fake:notjson]]"), item("q2 [[fake:notjson]]"), item("q3 [[fake:refuse]]"),
             item("q4 [[fake:echo_auth_bad]]"), item("q5"), item("q6 [[fake:500]]")]
    judge.judge_many(items, prompt)
    samples = judge.invalid_samples(width=40)
    assert [s["status"] for s in samples] == ["invalid", "refused", "invalid"]  # two identical prose replies: one sample
    assert samples[0] == {"status": "invalid", "reason": "reply is not JSON",
                          "reply": "The first answer is better because it ci…",
                          "chars": len("The first answer is better because it cites a source.")}
    assert samples[1]["reply"] == "I'm sorry, but I can't help with that."
    assert FAKE_KEY not in json.dumps(samples) and FAKE_KEY[-12:] not in json.dumps(samples)
    assert "***" in samples[2]["reply"]
    assert judge.invalid_samples(limit=1, width=40) == samples[:1]


@pytest.mark.parametrize("kind, expected", [
    ("json_schema", {"type": "json_schema", "json_schema": {"name": "verdict", "schema": VERDICT_SCHEMA}}),
    ("json_object", {"type": "json_object", "schema": VERDICT_SCHEMA}),
])
def test_response_format_is_sent_in_the_shape_asked(server, make_judge, prompt, kind, expected):
    judge = make_judge(response_format=kind)
    assert judge.judge_many([item("q [[winner:second]]")], prompt)[0].winner == "second"
    [body] = server.bodies
    assert body["response_format"] == expected
    assert set(body) == {"model", "messages", "temperature", "max_tokens", "response_format"}
    # the schema states the reply contract parse_verdict enforces: exactly winner (one of three) and reason
    assert VERDICT_SCHEMA["properties"]["winner"]["enum"] == ["first", "second", "tie"]
    assert VERDICT_SCHEMA["required"] == ["winner", "reason"] and VERDICT_SCHEMA["additionalProperties"] is False


def test_without_response_format_the_body_has_none_and_the_setting_is_checked(server, make_judge, prompt):
    make_judge().judge_many([item("q")], prompt)
    assert "response_format" not in server.bodies[0]
    with pytest.raises(ValueError, match="response_format"):
        OpenAIJudgeParams(base_url="http://h/v1", model="m", response_format="json")


def test_rerun_is_served_from_the_cache(server, make_judge, prompt):
    items = [item(f"q{i}") for i in range(6)]
    first = make_judge().judge_many(items, prompt)
    server.reset()
    judge = make_judge()
    second = judge.judge_many(items, prompt)
    assert server.requests == 0
    assert [v.winner for v in first] == [v.winner for v in second]
    assert all(v.extra["cached"] for v in second) and judge.last_counts["cached"] == 6
    assert judge.identity["model_version"] == "fake-judge-2026-01"  # known from the cached rows
    judge.judge_many(items + [item("new one"), item("another")], prompt)
    assert server.requests == 2  # only the uncached ones


def test_a_changed_prompt_word_or_setting_misses_the_cache(server, make_judge, prompt, tmp_path):
    make_judge().judge_many([item("q")], prompt)
    make_judge().judge_many([item("q")], make_prompt(tmp_path / "v2", 2, "Compare the two answers. Be brief."))
    make_judge(max_tokens=100).judge_many([item("q")], prompt)
    assert server.requests == 3


def test_failed_requests_are_not_cached(server, make_judge, prompt):
    server.script("500", "500", "500")
    assert make_judge(retries=2).judge_many([item("q")], prompt)[0].status == "failed"
    assert make_judge(retries=2).judge_many([item("q")], prompt)[0].status == "ok"
    assert server.requests == 4


def test_identical_requests_are_sent_once(server, make_judge, prompt):
    verdicts = make_judge(cache_path=None).judge_many([item("same")] * 5, prompt)
    assert server.requests == 1 and len({v.winner for v in verdicts}) == 1 and len(verdicts) == 5


def test_empty_input_sends_nothing(server, make_judge, prompt):
    assert make_judge().judge_many([], prompt) == [] and server.requests == 0


@pytest.mark.parametrize("bound", [3, 10])  # 10 spans three client pools (4 + 4 + 2 connections)
def test_concurrency_bound_is_respected(server, make_judge, prompt, bound):
    server.latency = 0.5  # long enough that every slot fills even when the client is slow to send on a loaded machine
    make_judge(concurrency=bound).judge_many([item(f"q{i}") for i in range(4 * bound)], prompt)
    assert server.requests == 4 * bound
    assert server.max_in_flight == bound  # bound reached, never passed


def test_judge_many_works_inside_a_running_event_loop(server, make_judge, prompt):
    judge = make_judge()

    async def caller():
        return judge.judge_many([item("q [[winner:first]]")], prompt)

    assert asyncio.run(caller())[0].winner == "first"


def test_no_progress_output_when_stderr_is_not_a_tty(make_judge, capsys, prompt):
    make_judge(progress=True).judge_many([item(f"q{i}") for i in range(5)], prompt)
    assert capsys.readouterr().err == ""


def test_api_key_never_leaks(server, make_judge, tmp_path, monkeypatch, caplog, capsys, prompt):
    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", FAKE_KEY)
    caplog.set_level(logging.DEBUG)
    judge = make_judge(api_key_env="ASSAY_TEST_JUDGE_KEY", retries=1, max_failed_share=0.1)
    items = [item("q [[fake:echo_auth_ok]]"), item("q [[fake:echo_auth]]"), item("q [[fake:500]]"),
             item("q [[fake:malformed]]"), item("q [[fake:refuse]]"), item("q")]
    with pytest.raises(JudgeFailures) as caught:
        judge.judge_many(items, prompt)
    assert f"Bearer {FAKE_KEY}" in server.auth_headers  # the key was really sent
    verdicts = make_judge(api_key_env="ASSAY_TEST_JUDGE_KEY", retries=0).judge_many(items, prompt)
    assert "***" in verdicts[0].reason and "***" in verdicts[1].reason  # the echoed key was scrubbed
    out = capsys.readouterr()
    texts = {
        "cache files": b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file()).decode("latin-1"),
        "logs": caplog.text,
        "stdout/stderr": out.out + out.err,
        "error": str(caught.value) + repr(caught.value),
        "repr": repr(judge) + repr(judge.params),
        "identity": json.dumps(judge.identity),
        "params dump": json.dumps(judge.params.model_dump()),
        "verdicts": repr(verdicts),
        "counts": json.dumps(judge.last_counts),
        "judge attributes": repr(vars(judge)),
    }
    assert "ClientConnectorError" not in texts["logs"]  # sanity: the logs hold the retries, not a broken run
    assert "retrying" in texts["logs"]
    for where, text in texts.items():
        assert FAKE_KEY not in text, where
        assert FAKE_KEY[-12:] not in text, where


def test_missing_or_bad_key_variable_is_a_clear_error(server, make_judge, monkeypatch):
    monkeypatch.delenv("ASSAY_TEST_JUDGE_KEY", raising=False)
    with pytest.raises(MissingApiKey, match="ASSAY_TEST_JUDGE_KEY .* is unset or empty"):
        make_judge(api_key_env="ASSAY_TEST_JUDGE_KEY")
    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", "sk-with space-SECRETPART")
    with pytest.raises(MissingApiKey) as caught:
        make_judge(api_key_env="ASSAY_TEST_JUDGE_KEY")
    assert "SECRETPART" not in str(caught.value)
    assert server.requests == 0


def test_params_reject_mistakes_without_echoing_a_pasted_key(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text(f"judge:\n  base_url: http://127.0.0.1:1/v1/chat/completions\n  model: m\n"
                      f"  api_key_env: {FAKE_KEY}\n  temprature: 0\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_section("judge", OpenAIJudgeParams, params)
    message = str(caught.value)
    assert "judge.base_url" in message and "drop '/chat/completions'" in message
    assert "judge.api_key_env" in message and "NAME of an environment variable" in message
    assert "judge.temprature" in message and "unknown field" in message
    assert FAKE_KEY not in message
    assert OpenAIJudgeParams(base_url="http://h:1/v1/", model="m").base_url == "http://h:1/v1"


def test_refusal_detector():
    # hand-picked: refusals with no JSON; verdict-like prose and broken JSON are not refusals
    assert is_refusal("I'm sorry, but I can't help with that.")
    assert is_refusal("Sorry, I cannot do that.")
    assert is_refusal("I am unable to evaluate these answers.")
    assert is_refusal("As an AI language model, I cannot judge this.")
    assert not is_refusal("The second one is better.")
    assert not is_refusal("I can't decide. {\"winner\": \"tie\"")
    assert not is_refusal("")


def test_read_completion_edge_cases():
    assert read_completion("[]") is None
    assert read_completion('{"choices": []}') is None
    assert read_completion('{"choices": [{"message": "x"}]}') is None
    c = read_completion('{"choices": [{"message": {"content": null}, "finish_reason": "stop"}]}')
    assert c.content is None and c.model is None


def test_retry_after_and_backoff_helpers():
    assert retry_after_seconds("3") == 3.0 and retry_after_seconds("-1") == 0.0
    assert retry_after_seconds(None) is None and retry_after_seconds("") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0  # 07:28:00 minus 07:27:50
    for attempt in range(6):
        d = min(8.0, 0.5 * 2 ** attempt)  # full delay before jitter, capped at max_wait 8
        assert d / 2 <= backoff_delay(attempt, 0.5, 8.0) <= d


def test_default_cache_is_written_under_dot_assay_which_git_and_dvc_leave_alone(server, prompt, tmp_path,
                                                                                    monkeypatch):
    monkeypatch.chdir(tmp_path)
    params = {"base_url": server.base_url, "model": "m", "progress": False}
    assert OpenAIJudge(OpenAIJudgeParams(**params)).judge_many([item("q [[winner:first]]")], prompt)[0].winner == "first"
    written = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    assert written == [".assay/judge_cache.sqlite"]
    again = OpenAIJudge(OpenAIJudgeParams(**params))  # a new run in the same checkout reads the cache
    assert again.judge_many([item("q [[winner:first]]")], prompt)[0].winner == "first"
    assert server.requests == 1 and again.last_counts["cached"] == 1
    # not committed: the repository's .gitignore ignores it
    ignored = subprocess.run(["git", "check-ignore", "-q", ".assay/judge_cache.sqlite"], cwd=ROOT)
    assert ignored.returncode == 0
    # not a DVC output or dependency: no path dvc.yaml names lies under .assay/
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    bodies = [stage.get("do", stage) for stage in stages.values()]  # a foreach stage keeps its body under do
    named = [next(iter(e)) if isinstance(e, dict) else e for body in bodies
             for key in ("deps", "outs", "metrics", "plots") for e in (body.get(key) or [])]
    assert named and not [n for n in named if n.startswith(".assay")]


def test_redact_removes_keys_and_tokens():
    text = f"Incorrect API key provided: {FAKE_KEY}; Authorization: Bearer abc.def; token=0123456789; ok"
    assert redact(text, (FAKE_KEY,)) == "Incorrect API key provided: ***; Authorization: ***; token=***; ok"
    assert redact("sk-short is fine") == "sk-short is fine"  # too short to be a key
