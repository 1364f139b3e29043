"""The persistent judge response cache: keys, rows, WAL mode, and surviving a killed run."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer, make_prompt
from hypothesis import given
from hypothesis import strategies as st

from assay.judge.base import JudgeItem
from assay.judge.cache import CacheUnavailable, ResponseCache, request_key
from assay.judge.openai import OpenAIJudge, OpenAIJudgeParams

URL = "http://127.0.0.1:8000/v1/chat/completions"
TESTS = Path(__file__).resolve().parent

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                           max_leaves=10)


@given(st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=6), st.randoms())
def test_key_ignores_dict_order(body, rnd):
    keys = list(body)
    rnd.shuffle(keys)
    assert request_key(URL, "m", body) == request_key(URL, "m", {k: body[k] for k in keys})


def test_key_changes_with_url_model_and_any_body_value():
    body = {"model": "m", "messages": [{"role": "user", "content": "q"}], "temperature": 0.0, "max_tokens": 256}
    base = request_key(URL, "m", body)
    assert len(base) == 64 and all(c in "0123456789abcdef" for c in base)
    assert request_key(URL.replace("8000", "8001"), "m", body) != base
    assert request_key(URL, "m2", body) != base
    assert request_key(URL, "m", {**body, "temperature": 0.5}) != base
    assert request_key(URL, "m", {**body, "messages": [{"role": "user", "content": "q "}]}) != base


def test_rows_round_trip_persist_and_replace(tmp_path):
    path = tmp_path / "deep" / "cache.sqlite"
    with ResponseCache(path) as cache:
        assert cache.get("k1") is None and len(cache) == 0
        cache.put("k1", '{"choices": []}', "model-a")
        cache.put("k2", "body", None)
    with ResponseCache(path) as cache:  # a new connection sees the committed rows
        assert cache.get("k1").response == '{"choices": []}' and cache.get("k1").model == "model-a"
        assert cache.get("k2").model is None
        cache.put("k1", "newer", "model-b")
        assert cache.get("k1").response == "newer" and len(cache) == 2
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_file_that_is_not_sqlite_is_a_clear_error(tmp_path):
    bad = tmp_path / "cache.sqlite"
    bad.write_text("this is not a database, just some text that is long enough to have a header\n" * 20)
    with pytest.raises(CacheUnavailable, match="cache.sqlite.*fix: point judge.openai.cache_path at a writable file, or delete"):
        ResponseCache(bad)


def _rows(path: Path) -> int:
    """Rows committed so far, read by a second connection while the writer runs (0 before the table exists)."""
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


# The child starts with ctrl-c's default meaning, as in a terminal. A test suite started in the background
# by a shell without job control (`make test &`, nohup, some CI runners) inherits SIGINT ignored, and so
# would the child: it then never saw the signal, waited out the slow requests and exited 0.
CHILD = """
import json, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from assay.judge.base import JudgeItem
from assay.judge.openai import OpenAIJudge, OpenAIJudgeParams
from assay.judge.prompts import load_prompt
from assay.core.stage import run_stage
base_url, cache_path, prompt_path, questions = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
judge = OpenAIJudge(OpenAIJudgeParams(base_url=base_url, model="m", cache_path=cache_path, concurrency=8, timeout=120,
                                      retries=0, progress=False, max_failed_share=1.0))
run_stage("judge", lambda: judge.judge_many([JudgeItem(q, (), "one", "two") for q in questions], load_prompt(prompt_path)))
"""


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["kill", "ctrl-c"])
def test_an_interrupted_run_keeps_every_completed_response(tmp_path, sig):
    prompt = make_prompt(tmp_path / "prompts", 1)
    cache_path = tmp_path / "cache.sqlite"
    questions = [f"fast {i}" for i in range(6)] + ["slow 1 [[fake:slow]]", "slow 2 [[fake:slow]]"]
    with FakeOpenAIServer(slow_seconds=60.0) as server:
        child = subprocess.Popen([sys.executable, "-c", CHILD, server.base_url, str(cache_path), prompt.path,
                                  json.dumps(questions)], stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while _rows(cache_path) < 6 and time.monotonic() < deadline and child.poll() is None:
                time.sleep(0.05)
            assert _rows(cache_path) == 6, "the fast replies were not committed while the run was still going"
            assert child.poll() is None  # still waiting on the slow ones
            child.send_signal(sig)
            # ctrl-c exits in 0.1-0.2 s while two requests hang on a 60 s server, also beside two test
            # suites; the bound only keeps a hung child from hanging the suite
            _, err = child.communicate(timeout=120)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        if sig == signal.SIGINT:  # the stage wrapper's one line, never exit 0, never a traceback
            assert child.returncode == 130 and b"Traceback" not in err, err.decode()
            assert err.decode().endswith("stage judge: interrupted (ctrl-c); no file is left half-written; "
                                         "run the command again to finish\n"), err.decode()
        else:
            assert child.returncode == -signal.SIGKILL
        assert _rows(cache_path) == 6  # nothing lost to the interruption
        server.reset()
        server.slow_seconds = 0.0
        params = OpenAIJudgeParams(base_url=server.base_url, model="m", cache_path=str(cache_path), progress=False)
        verdicts = OpenAIJudge(params).judge_many([JudgeItem(q, (), "one", "two") for q in questions], prompt)
        assert server.requests == 2  # only the two that never finished
        assert [v.extra["cached"] for v in verdicts] == [True] * 6 + [False] * 2


def test_the_system_reply_store_names_its_own_file_not_the_judges_setting(tmp_path):
    from assay.rag.reply_store import CACHE_PATH, ReplyStore

    (tmp_path / CACHE_PATH).parent.mkdir(parents=True)
    (tmp_path / CACHE_PATH).write_text("not a database, long enough to have a header\n" * 40)
    with pytest.raises(CacheUnavailable) as caught:
        ReplyStore("v1", root=tmp_path)
    assert str(caught.value).endswith(f"(fix: make {CACHE_PATH} a writable file, or delete a corrupt cache file)")
    assert "judge." not in str(caught.value)
