"""The probe, calibrate and sensitivity stages with `judge.kind: openai` against a real HTTP server on 127.0.0.1."""

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
        identity = json.loads((clone / "reports/provenance/calibrate.json").read_text(encoding="utf-8"))["settings"]["judge"]
        assert identity["provider"] == "openai-compatible"
        assert identity["model_version"] == server.model
        assert record["n"] == 42 and record["invalid"] == record["failed"] == record["refused"] == 0
        assert server.requests == 84  # 42 pairs in both orders
        assert stage(clone, "calibrate").returncode == 0
        assert server.requests == 84  # the re-run is served from the response cache
        assert stage(clone, "sensitivity").returncode == 0
        assert server.requests == 168  # the other prompt wording is new; the version in use is cached
    leaked = [p for p in clone.rglob("*") if p.is_file() and ".git" not in p.parts and KEY.encode() in p.read_bytes()]
    assert leaked == []


def test_a_run_where_too_many_requests_fail_stops_without_a_calibration(clone):
    with FakeOpenAIServer() as server:
        use_openai(clone, server.base_url, max_failed_share=0.05)
        server.script(*["500"] * 40)
        before = (clone / "metrics/calibration.json").read_bytes()
        proc = stage(clone, "calibrate")
    assert proc.returncode != 0
    assert proc.stderr.startswith("stage calibrate: ")
    assert "fail" in proc.stderr and KEY not in proc.stderr
    assert (clone / "metrics/calibration.json").read_bytes() == before  # nothing half-written
