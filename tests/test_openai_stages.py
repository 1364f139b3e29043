"""The judge stage with `judge.kind: openai` against a real HTTP server on 127.0.0.1, and the probe,
calibrate and sensitivity stages replaying its stored replies with the server gone and no key."""

import hashlib
import json
import os
import secrets
import subprocess
import sys

import pytest
import yaml

from conftest import BIN, make_clone
from fake_openai_server import FakeOpenAIServer

KEY = "sk-test-" + secrets.token_hex(12)  # made at run time, so no file holds it unless assay wrote it


@pytest.fixture
def clone(tmp_path):
    return make_clone(tmp_path / "clone")


def use_openai(root, base_url, **extra):
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    params["judge"]["kind"] = "openai"
    params["judge"]["openai"] = {"base_url": base_url, "model": "judge-model", "api_key_env": "ASSAY_TEST_KEY",
                                 "concurrency": 8, "retries": 1, "backoff": 0.01, "timeout": 5,
                                 "cache_path": ".assay/judge_cache.sqlite", "progress": False, **extra}
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")


def stage(root, name, key=KEY):
    env = {"PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    if key is not None:
        env["ASSAY_TEST_KEY"] = key
    return subprocess.run([sys.executable, f"stages/{name}.py"], cwd=root, env=env, capture_output=True, text=True)


def replies(root):
    return {p.name: p.read_bytes() for p in sorted((root / "data/derived/judge").iterdir())}


def test_judge_stage_stores_replies_and_the_judged_stages_then_need_no_server_and_no_key(clone):
    with FakeOpenAIServer() as server:
        use_openai(clone, server.base_url)
        proc = stage(clone, "judge")
        assert proc.returncode == 0, proc.stderr
        assert server.requests == 168  # 42 pairs, both orders, prompt versions 1 and 2
        stored = replies(clone)
        assert stage(clone, "judge").returncode == 0
        assert server.requests == 168  # the re-run is served from the response cache
        assert replies(clone) == stored  # byte-stable
        model = server.model
    assert sorted(stored) == ["judge.json", "pairwise_v1.jsonl", "pairwise_v2.jsonl"]
    rows = [json.loads(line) for line in stored["pairwise_v2.jsonl"].decode().splitlines()]
    assert len(rows) == 84 and {r["order"] for r in rows} == {"ab", "ba"}
    # only the parsed fields and the reply text's SHA-256 are kept (the fake server's text, hashed here by hand)
    sent = {w: json.dumps({"winner": w, "reason": "deterministic fake verdict"}) for w in ("first", "second", "tie")}
    assert all(r["status"] == "ok" and r["model_version"] == model and r["reason"] == "deterministic fake verdict"
               and r["reply"] == hashlib.sha256(sent[r["winner"]].encode()).hexdigest() for r in rows)
    # the server is stopped and the key variable is unset: the three stages replay the stored replies
    for name in ("calibrate", "probe", "sensitivity"):
        proc = stage(clone, name, key=None)
        assert proc.returncode == 0, f"{name}: {proc.stderr}"
    record = json.loads((clone / "metrics/calibration.json").read_text(encoding="utf-8"))
    identity = json.loads((clone / "reports/provenance/calibrate.json").read_text(encoding="utf-8"))["settings"]["judge"]
    assert identity["provider"] == "openai-compatible"
    assert identity["model_version"] == model
    assert record["n"] == 42 and record["invalid"] == record["failed"] == record["refused"] == 0
    assert json.loads((clone / "metrics/sensitivity.json").read_text(encoding="utf-8"))["n"] == 42
    assert json.loads((clone / "metrics/bias.json").read_text(encoding="utf-8"))["n_pairs"] == 42
    # and the gate's freshness check agrees with the record without the key
    env = {"PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run([str(BIN / "assay"), "calibration-status"], cwd=clone, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    leaked = [p for p in clone.rglob("*") if p.is_file() and ".git" not in p.parts and KEY.encode() in p.read_bytes()]
    assert leaked == []


def quarter(content: str) -> bool:
    """About a quarter of the items, chosen by their content (the same items on every run, in any order)."""
    return hashlib.sha256(content.encode()).digest()[0] % 4 == 0


def test_a_run_where_too_many_requests_fail_stops_without_replies(clone):
    with FakeOpenAIServer() as server:
        use_openai(clone, server.base_url, max_failed_share=0.05)
        server.fault("500", attempts=None, where=quarter)  # these items fail on every attempt, retries included
        before = replies(clone)
        proc = stage(clone, "judge")
        failing = [c for c in server.attempts if quarter(c)]
        attempts = {server.attempts[c] for c in failing}
    assert 0.05 * len(server.attempts) < len(failing) < len(server.attempts)  # enough to trip the threshold
    assert attempts == {2}  # one try and one retry each (retries: 1)
    assert proc.returncode != 0
    assert proc.stderr.startswith("stage judge: ")
    assert f"failed {len(failing)}" in proc.stderr or "fail" in proc.stderr
    assert KEY not in proc.stderr
    assert replies(clone) == before  # nothing half-written


def test_a_first_attempt_that_fails_for_every_item_is_retried_and_the_run_completes(clone):
    with FakeOpenAIServer() as server:
        use_openai(clone, server.base_url, max_failed_share=0.0)
        server.fault("500", attempts=1)  # every item's first request fails; its retry succeeds
        proc = stage(clone, "judge")
        assert proc.returncode == 0, proc.stderr
        assert set(server.attempts.values()) == {2} and server.requests == 2 * 168
    rows = [json.loads(line) for line in replies(clone)["pairwise_v2.jsonl"].decode().splitlines()]
    assert len(rows) == 84 and {r["status"] for r in rows} == {"ok"}


def test_the_judge_record_counts_requests_cache_hits_retries_and_samples_invalid_replies_redacted(clone):
    def digest(content: str) -> int:
        return hashlib.sha256(content.encode()).digest()[0]

    def client() -> dict:
        return json.loads((clone / ".assay/judge_client.json").read_text(encoding="utf-8"))

    committed = ("metrics/judge.json", "reports/judge.md", "reports/provenance/judge.json")
    with FakeOpenAIServer() as server:
        use_openai(clone, server.base_url, max_failed_share=1.0)
        server.fault("notjson", attempts=None, where=lambda c: digest(c) % 8 == 1)
        server.fault("echo_auth_bad", attempts=None, where=lambda c: digest(c) % 8 == 2)  # the reply repeats the key
        server.fault("500", attempts=1, where=lambda c: digest(c) % 4 == 0)  # one failed try, then a good retry
        proc = stage(clone, "judge")
        assert proc.returncode == 0, proc.stderr
        invalid = sum(1 for c in server.attempts if digest(c) % 8 in (1, 2))
        retried = sum(1 for c in server.attempts if digest(c) % 4 == 0)
        assert len(server.attempts) == 168 and 0 < invalid < 168 and 0 < retried < 168
        assert server.requests == 168 + retried
    first = json.loads((clone / "metrics/judge.json").read_text(encoding="utf-8"))
    first_bytes = {f: (clone / f).read_bytes() for f in committed}
    assert client() == {"requests": 168, "cache_hits": 0, "http_attempts": 168 + retried, "failures": 0}
    assert f"judge: 168 requests: 0 from the cache, {168 + retried} HTTP attempts" in proc.stdout
    report = (clone / "reports/judge.md").read_text(encoding="utf-8")
    # the server is gone: the re-run is answered by the response cache alone, and the committed files keep their bytes
    again = stage(clone, "judge")
    assert again.returncode == 0, again.stderr
    assert {f: (clone / f).read_bytes() for f in committed} == first_bytes
    assert client() == {"requests": 168, "cache_hits": 168, "http_attempts": 0, "failures": 0}
    assert "judge: 168 requests: 168 from the cache, 0 HTTP attempts (retries included), 0 failed" in again.stdout
    statuses = {"ok": 168 - invalid, "invalid": invalid, "refused": 0, "failed": 0}
    assert first == {"items": 168, "requests": 168, "failures": 0, **statuses}
    assert "cache" not in report and "attempts" not in report
    assert f"| invalid | {invalid} |" in report and "## Invalid or refused replies (a sample)" in report
    assert "The first answer is better because it cites a source." in report
    assert "You sent *** I think the first is better." in report and KEY not in report  # the echoed key is redacted
    assert report.count(" invalid (") == 2  # distinct replies only: the two kinds of bad reply
    prov = json.loads((clone / "reports/provenance/judge.json").read_text(encoding="utf-8"))
    assert set(prov["inputs"]) == {"pairs", "prompt_v1", "prompt_v2"}
    assert prov["settings"]["judge"]["model"] == "judge-model"


def test_a_refused_response_format_stops_the_stage_with_one_line_and_the_fix(clone):
    with FakeOpenAIServer(response_formats=("text", "json_object")) as server:
        use_openai(clone, server.base_url, response_format="json_schema", retries=4)
        proc = stage(clone, "judge")
        assert server.requests <= 8  # at most the requests in flight when the first refusal came; none retried
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("stage judge: OpenAIJudge: the server at ")
    assert "(fix: set `response_format: json_object` in the judge params (judge.openai.response_format)" in proc.stderr
