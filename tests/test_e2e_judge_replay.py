"""End-to-end: a team's project (`assay init`) with an OpenAI-compatible judge on 127.0.0.1 verifies in CI
with the key unset and the server stopped: every stage that asks the judge (``judge`` and
``judge_compare``) stores its replies, and verify takes them as committed while the stages after them
replay them. Before, verify re-ran judge_compare, which asked the live judge: without the key it failed
(exit 2), with it every CI run paid for the requests again (issue 30)."""

import os

import pytest
import yaml

from conftest import BIN, run
from fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.e2e
KEY_ENV = "ASSAY_TEST_KEY"


def test_verify_after_a_real_endpoint_run_needs_no_key_and_sends_no_request(tmp_path, monkeypatch):
    root = tmp_path / "p"
    run([str(BIN / "assay"), "init", str(root)], tmp_path)
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    assert "judge" in params["parts"]
    with FakeOpenAIServer() as server:
        params["judge"]["kind"] = "openai"
        params["judge"]["openai"] = {"base_url": server.base_url, "model": "judge-model", "api_key_env": KEY_ENV,
                                     "concurrency": 4, "retries": 1, "backoff": 0.01, "timeout": 5, "progress": False}
        (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
        monkeypatch.setenv(KEY_ENV, "sk-test-not-a-secret")
        run([str(BIN / "dvc"), "repro", "-q"], root)
        asked = server.requests
        assert asked > 0
        assert (root / "data/derived/judge_compare/judge.json").is_file()  # judge_compare asked the server too
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", "evaluation with a served judge"], root)
    monkeypatch.delenv(KEY_ENV)  # the key is unset and the server stopped (its port refuses), as in CI without the secret
    verify = run([str(BIN / "assay"), "verify"], root, check=False)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    replayed = sorted(line.split()[1].rstrip(":") for line in verify.stdout.splitlines() if line.startswith("replayed"))
    assert replayed == ["judge", "judge_compare"]
    assert "verified:" in verify.stdout and os.environ.get(KEY_ENV) is None
