"""Secrets in any form (issue 22): the API key is redacted in every altered echo the red team found,
in the cache, the stored replies, the logs and the report's samples."""

from __future__ import annotations

import base64
import json
import logging
import sqlite3

import pytest

from assay.core.redaction import Redactor, secret_forms
from assay.judge.base import JudgeItem
from assay.judge.cache import ResponseCache, request_key
from assay.judge.openai import OpenAIJudge, OpenAIJudgeParams, invalid_replies, redact
from fake_openai_server import FakeOpenAIServer, key_forms, make_prompt

KEY = "sk-proj-Q7vLm2XcR9tBw4NzK8pYe3Hd"


@pytest.mark.parametrize("form", sorted(key_forms(KEY)))
def test_each_altered_form_of_the_key_is_redacted(form):
    echoed = key_forms(KEY)[form]
    text = f"before «{echoed}» after"
    cleaned = Redactor(KEY)(text)
    assert cleaned.startswith("before «") and cleaned.endswith("» after") and "***" in cleaned
    leftover = cleaned.removeprefix("before «").removesuffix("» after").replace("***", "")
    # what stays is only the neighbours of an encoded key (at most 3 base64 characters each side,
    # the URL's own ?k= and &x=1) and never 8 characters of any form of the key
    for f in secret_forms(KEY):
        assert not any(f[i:i + 8].lower() in leftover.lower() for i in range(len(f) - 7)), (form, leftover)
    if form != "base64 in a header":  # there the encoded "Authorization: Bearer " stays, rightly
        assert len(leftover) <= 16, (form, leftover)


def test_every_fragment_of_six_characters_of_the_key_its_reverse_and_rot13_is_redacted_and_five_are_not():
    import codecs

    r = Redactor(KEY)
    for form in (KEY, KEY[::-1], codecs.encode(KEY, "rot13"), codecs.encode(KEY, "rot13")[::-1]):
        for i in range(len(form) - 5):
            assert r(f"<{form[i:i + 6]}>") == "<***>", form[i:i + 6]
    assert r(f"<{KEY[3:8]}>") == f"<{KEY[3:8]}>"  # 5 characters: kept (the stated limit)


def test_base64_of_the_key_inside_a_longer_encoded_text_at_every_alignment():
    r = Redactor(KEY)
    for prefix in (b"", b"a", b"ab", b"Bearer ", b"Authorization: Bearer "):
        for suffix in (b"", b"!", b"!!", b" trailing text"):
            for encode in (base64.b64encode, base64.urlsafe_b64encode):
                encoded = encode(prefix + KEY.encode() + suffix).decode()
                assert "***" in r(encoded)
                assert base64.b64encode(KEY.encode()).decode()[4:20] not in r(encoded)


def test_text_without_the_key_is_unchanged_and_no_key_changes_nothing():
    text = "The first answer cites the returns page; 30 days, 2 years. Bearer-less text."
    assert Redactor(KEY)(text) == text
    assert Redactor(None)(text) == text and Redactor("")(text) == text
    assert redact(f"key {KEY.lower()}", (KEY,)) == "key ***"


def item(question: str) -> JudgeItem:
    return JudgeItem(question, (), "first answer", "second answer")


def test_a_server_echoing_altered_keys_leaves_no_trace_in_cache_replies_logs_or_samples(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    prompt = make_prompt(tmp_path, 1)
    cache = tmp_path / "cache.sqlite"
    with FakeOpenAIServer() as server:
        judge = OpenAIJudge(OpenAIJudgeParams(base_url=server.base_url, model="m", retries=0, progress=False,
                                              max_failed_share=1.0, cache_path=str(cache), api_key_env="ASSAY_TEST_JUDGE_KEY"))
        verdicts = judge.judge_many([item("q1 [[fake:echo_forms]]"), item("q2 [[fake:echo_forms_ok]]"), item("q3")], prompt)
        assert f"Bearer {KEY}" in server.auth_headers  # the key really went out
    samples = invalid_replies(verdicts)
    texts = {
        "cache": cache.read_bytes().decode("latin-1") + "".join(r[0] for r in sqlite3.connect(cache).execute(
            "SELECT response FROM responses")),
        "stored replies": json.dumps([v.extra for v in verdicts]) + json.dumps([v.reason for v in verdicts]),
        "report samples": json.dumps(samples) + json.dumps(judge.invalid_samples()),
        "logs": caplog.text,
    }
    assert "***" in texts["stored replies"] and samples
    for where, text in texts.items():
        for name, form in key_forms(KEY).items():
            probe = form if name != "url" else form[len("%3Fk%3D"):-len("%26x%3D1")]
            assert probe not in text and probe.lower() not in text.lower(), (where, name)


def test_a_cache_row_kept_before_redaction_is_scrubbed_when_read(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", KEY)
    prompt = make_prompt(tmp_path, 1)
    params = OpenAIJudgeParams(base_url="http://127.0.0.1:9/v1", model="m", retries=0, progress=False,
                               cache_path=str(tmp_path / "cache.sqlite"), api_key_env="ASSAY_TEST_JUDGE_KEY")
    judge = OpenAIJudge(params)
    body = judge.request_body(item("q"), prompt)
    reply = {"model": "m", "choices": [{"message": {"content": json.dumps(
        {"winner": "first", "reason": f"old row {KEY.lower()} {base64.b64encode(KEY.encode()).decode()}"})},
        "finish_reason": "stop"}]}
    with ResponseCache(params.cache_path) as cache:
        cache.put(request_key(judge.url, "m", body), json.dumps(reply), "m")
    [verdict] = judge.judge_many([item("q")], prompt)  # from the cache: the server (port 9) is never asked
    assert verdict.winner == "first" and verdict.reason.count("***") == 2 and KEY.lower() not in verdict.reason
