"""A team's callable run like the judge: settings, strict replies, failures per case, stored replies that
resume a killed run and replay without calling (the function made to raise if called)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.core.plugins import PluginError
from assay.data.cases import load_cases
from assay.data.corpus import load_corpus
from assay.judge.cache import ResponseCache
from assay.rag.called import CallableSystem
from assay.rag.reply_store import CACHE_PATH, REPLAY_ENV, MissingSystemReply, ReplyStore, system_sha
from assay.rag.runner import VersionParams, run_version

TINY = Path(__file__).parent / "fixtures" / "tiny_corpus"
ROOT = Path(__file__).resolve().parents[1]

PLUGIN = '''
import json, os, sys, time
from pathlib import Path

LOG = Path(os.environ.get("PLUGIN_LOG", "calls.log"))

def answer(request):
    if os.environ.get("PLUGIN_REFUSE"):
        raise AssertionError("called although every reply is stored")
    time.sleep(float(os.environ.get("PLUGIN_SLEEP", "0")))
    with LOG.open("a") as f:
        f.write(request.case_id + "\\n")
    doc = sorted(request.corpus)[0]
    return {"answer": f"{request.question} {json.dumps(dict(request.settings), sort_keys=True)}",
            "citations": [doc], "abstained": False, "retrieved": [doc]}

def typo(request):
    return {"answer": "x", "citations": [], "abstained": False, "retreived": []}

def stringly(request):
    return {"answer": "", "citations": [], "abstained": "no"}

def leaves(request):
    sys.exit(0)

def surrogate(request):
    return {"answer": "bad \\ud800", "citations": [], "abstained": False}

def hangs(request):
    answer(request)
    if request.case_id == "t2":
        import threading
        threading.Event().wait()  # never returns
    return answer(request)

def flaky(request):
    if request.case_id == "t2":
        raise ConnectionError("backend down")
    return answer(request)
'''


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(TINY / "corpus")


@pytest.fixture(scope="module")
def cases(corpus):
    return load_cases(TINY / "cases.jsonl", corpus)


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    (tmp_path / "team_rag.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PLUGIN_LOG", str(tmp_path / "calls.log"))
    monkeypatch.delenv(REPLAY_ENV, raising=False)
    yield tmp_path
    sys.modules.pop("team_rag", None)


def calls(folder: Path) -> list[str]:
    log = folder / "calls.log"
    return log.read_text().split() if log.exists() else []


def test_settings_reach_the_function(plugin, corpus, cases):
    version = VersionParams(system="callable", callable="team_rag:answer", settings={"min_overlap": 2, "mode": "x"})
    [out] = CallableSystem("team_rag:answer", corpus, settings=version.settings).run(cases[:1], k=3)
    assert json.loads(out.reply)["answer"].endswith('{"min_overlap": 2, "mode": "x"}')
    assert version.identity()["settings"] == {"min_overlap": 2, "mode": "x"}


@pytest.mark.parametrize("fn, message", [
    ("typo", "rag.versions.mine.callable: team_rag:typo on case 't1' returned unknown key(s) 'retreived' (did you mean "
             "'retrieved'?) (fix: a reply holds only answer, citations, abstained, retrieved, latency_ms, tool_calls)"),
    ("stringly", "rag.versions.mine.callable: team_rag:stringly on case 't1': 'abstained' is 'no' (str) (fix: return "
                 "true or false, not a string or number)"),
    ("leaves", "rag.versions.mine.callable: team_rag:leaves on case 't1' called sys.exit(0); a system's function must "
               "return a reply (fix: return an abstaining reply, or raise an exception)"),
])
def test_nothing_is_silently_accepted(plugin, corpus, cases, fn, message):
    with pytest.raises(PluginError) as error:
        CallableSystem(f"team_rag:{fn}", corpus, param="rag.versions.mine.callable").run(cases[:1], k=3)
    assert str(error.value) == message


def test_a_lone_surrogate_is_an_error_not_a_traceback(plugin, corpus, cases):
    with pytest.raises(PluginError, match="the reply holds a character UTF-8 cannot store"):
        CallableSystem("team_rag:surrogate", corpus, param="p").run(cases[:1], k=3)


def test_failures_within_max_failed_share_are_scored_per_case(plugin, corpus, cases):
    # 6 cases, t2 fails: share 1/6 is allowed by 0.2 (floor(1.2) = 1 case), refused by 0.1 (0 cases)
    ok = VersionParams(system="callable", callable="team_rag:flaky", max_failed_share=0.2, retries=0)
    results = {r.id: r for r in run_version("mine", ok, cases, corpus, 3)}
    assert results["t2"].reply == "" and not results["t2"].format_ok and not results["t2"].passed
    assert all(r.format_ok for i, r in results.items() if i != "t2")
    strict = VersionParams(system="callable", callable="team_rag:flaky", max_failed_share=0.1, retries=0)
    with pytest.raises(PluginError, match=r"failed on 1 of 6 case\(s\) \('t2'\); max_failed_share 0.1 allows 0"):
        run_version("mine", strict, cases, corpus, 3)


def _run(version, cases, corpus, identity):
    with ReplyStore("mine") as store:
        results = run_version("mine", version, cases, corpus, 3, store=store, identity_sha=identity)
        store.write()
    return results, store.asked


def test_a_rerun_calls_nothing_and_a_replay_never_calls(plugin, corpus, cases, monkeypatch):
    version = VersionParams(system="callable", callable="team_rag:answer", settings={"a": 1})
    identity = system_sha(version.identity())
    first, asked = _run(version, cases, corpus, identity)
    assert asked == len(cases) and sorted(calls(plugin)) == sorted(c.id for c in cases)
    committed = (plugin / "data/derived/replies/mine.jsonl").read_text(encoding="utf-8")
    assert [json.loads(line)["case_id"] for line in committed.splitlines()] == sorted(c.id for c in cases)

    monkeypatch.setenv("PLUGIN_REFUSE", "1")  # the function raises if it is called at all
    (plugin / CACHE_PATH).unlink()  # a fresh clone: only the committed file is there
    again, asked = _run(version, cases, corpus, identity)
    assert asked == 0 and again == first
    assert (plugin / "data/derived/replies/mine.jsonl").read_text(encoding="utf-8") == committed  # byte-identical

    monkeypatch.setenv(REPLAY_ENV, "only")  # what assay verify sets: a missing reply is an error, not a call
    changed = VersionParams(system="callable", callable="team_rag:answer", settings={"a": 2})
    with pytest.raises(MissingSystemReply, match=r"no stored reply for 6 case\(s\) .* evaluate@mine"):
        _run(changed, cases, corpus, system_sha(changed.identity()))


def test_a_killed_run_resumes_where_it_stopped(plugin, cases):
    """A callable sleeping 0.2 s a case, killed (SIGKILL) after half its calls, then resumed: every case is
    asked once, except at most the one in flight at the kill."""
    script = plugin / "run_it.py"
    script.write_text(
        "import sys\n"
        "from assay.data.cases import load_cases\nfrom assay.data.corpus import load_corpus\n"
        "from assay.rag.reply_store import ReplyStore\nfrom assay.rag.runner import VersionParams, run_version\n"
        f"corpus = load_corpus({str(TINY / 'corpus')!r})\ncases = load_cases({str(TINY / 'cases.jsonl')!r}, corpus)\n"
        "version = VersionParams(system='callable', callable='team_rag:answer')\n"
        "with ReplyStore('mine') as store:\n"
        "    run_version('mine', version, cases, corpus, 3, store=store, identity_sha='i' * 64)\n"
        "    store.write()\n"
        "print(store.asked)\n", encoding="utf-8")
    env = {**os.environ, "PLUGIN_SLEEP": "0.2", "PYTHONPATH": f"{plugin}{os.pathsep}{ROOT / 'src'}"}
    proc = subprocess.Popen([sys.executable, str(script)], cwd=plugin, env=env, stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(calls(plugin)) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = calls(plugin)
    assert 3 <= len(before) < len(cases)
    with ResponseCache(plugin / CACHE_PATH) as cache:
        stored = len(cache)
    assert stored >= len(before) - 1  # each reply is stored as it arrives (one may be between call and store)
    assert not (plugin / "data/derived/replies/mine.jsonl").exists()  # nothing half-written

    resumed = subprocess.run([sys.executable, str(script)], cwd=plugin, env=env, capture_output=True, text=True,
                             check=True)
    assert int(resumed.stdout) == len(cases) - stored  # only the cases without a stored reply are asked
    assert sorted(set(calls(plugin))) == sorted(c.id for c in cases)
    assert len(calls(plugin)) == len(before) + len(cases) - stored


def test_verify_keeps_the_stored_replies_and_forbids_calls():
    import yaml

    from assay.release.verify import REPLAY_KEPT, _env

    assert _env()[REPLAY_ENV] == "only"  # every stage verify runs replays; none calls a system
    outs = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]["evaluate"]["do"]["outs"]
    declared = [next(iter(o)) for o in outs if isinstance(o, dict) and next(iter(o)).startswith(REPLAY_KEPT[0] + "/")]
    assert declared == ["data/derived/replies/${key}.jsonl"]
    assert outs[1] == {"data/derived/replies/${key}.jsonl": {"cache": False, "persist": True}}


def test_a_function_that_never_returns_stops_the_run_naming_the_case(plugin, corpus, cases):
    version = VersionParams(system="callable", callable="team_rag:hangs", timeout_s=0.3)
    with pytest.raises(PluginError) as error:
        run_version("mine", version, cases, corpus, 3)
    assert str(error.value).startswith(
        "rag.versions.mine.callable: team_rag:hangs failed on 1 of 6 case(s) ('t2'); max_failed_share 0 allows 0. "
        "First, case 't2': did not return within timeout_s=0.3 s")
    assert calls(plugin)[:3] == ["t1", "t1", "t2"] and "t3" not in calls(plugin)  # stopped at once, not after t6
