"""The probe, calibrate and sensitivity stages with `judge.kind: openai` against a real HTTP server on 127.0.0.1."""

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


def stage(root, name):
    env = {"PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "ASSAY_TEST_KEY": KEY}
    return subprocess.run([sys.executable, f"stages/{name}.py"], cwd=root, env=env, capture_output=True, text=True)


def test_calibrate_with_a_real_endpoint_records_identity_and_uses_the_cache(clone):
    with FakeOpenAIServer() as server:
        use_openai(clone, server.base_url)
        proc = stage(clone, "calibrate")
        assert proc.returncode == 0, proc.stderr
        record = json.loads((clone / "metrics/calibration.json").read_text(encoding="utf-8"))
        assert record["judge"]["provider"] == "openai-compatible"
        assert record["judge"]["model_version"] == server.model
        assert record["n"] == 42 and record["invalid"] == record["failed"] == record["refused"] == 0
        assert server.requests == 84  # 42 pairs in both orders
        assert stage(clone, "calibrate").returncode == 0
        assert server.requests == 84  # the re-run is served from the response cache
        assert stage(clone, "sensitivity").returncode == 0
        assert server.requests == 168  # the other prompt wording is new; the version in use is cached
    leaked = [p for p in clone.rglob("*") if p.is_file() and ".git" not in p.parts and KEY.encode() in p.read_bytes()]
    assert leaked == []


def quarter(content: str) -> bool:
    """About a quarter of the items, chosen by their content (the same items on every run, in any order)."""
    return hashlib.sha256(content.encode()).digest()[0] % 4 == 0


def test_a_run_where_too_many_requests_fail_stops_without_a_calibration(clone):
    with FakeOpenAIServer() as server:
        use_openai(clone, server.base_url, max_failed_share=0.05)
        server.fault("500", attempts=None, where=quarter)  # these items fail on every attempt, retries included
        before = (clone / "metrics/calibration.json").read_bytes()
        proc = stage(clone, "calibrate")
        failing = [c for c in server.attempts if quarter(c)]
        attempts = {server.attempts[c] for c in failing}
    assert len(server.attempts) == 84 and 0.05 * 84 < len(failing) < 84  # enough to trip the threshold
    assert attempts == {2}  # one try and one retry each (retries: 1)
    assert proc.returncode != 0
    assert proc.stderr.startswith("stage calibrate: ")
    assert f"{len(failing)} of 84 items" in proc.stderr and f"failed {len(failing)}" in proc.stderr
    assert KEY not in proc.stderr
    assert (clone / "metrics/calibration.json").read_bytes() == before  # nothing half-written


def test_a_first_attempt_that_fails_for_every_item_is_retried_and_the_run_completes(clone):
    with FakeOpenAIServer() as server:
        use_openai(clone, server.base_url, max_failed_share=0.0)
        server.fault("500", attempts=1)  # every item's first request fails; its retry succeeds
        proc = stage(clone, "calibrate")
        assert proc.returncode == 0, proc.stderr
        assert set(server.attempts.values()) == {2} and server.requests == 168
    record = json.loads((clone / "metrics/calibration.json").read_text(encoding="utf-8"))
    assert record["n"] == 42 and record["failed"] == record["invalid"] == record["refused"] == 0
