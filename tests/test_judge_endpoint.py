"""The judge's key goes only where the base branch says, and the rejudge audit is CI's (assay.release.judge_endpoint).

Issue 31, attack 4: a change points the judge at a server it controls; with the key present `assay ci`
refuses before any request, so the second server never sees the key (two real servers on 127.0.0.1).
Attack 3: the audited sample is drawn from the seed CI provides (ASSAY_CI_SEED), includes every stored
reply that changed against the base, and is judged with the base's tolerance, not the change's."""

from __future__ import annotations

import json
import shutil

import pytest

from assay.cli import main
from assay.judge.audit import rejudge
from assay.judge.base import Verdict
from assay.release.judge_endpoint import (Endpoint, EndpointRefused, SeedMissing, check_endpoint, ci_seed,
                                          trusted_endpoint)
from conftest import ROOT, run

KEY = "sk-test-0123456789abcdef"
KEY_ENV = "ASSAY_TEST_JUDGE_KEY"


def judge_params(url: str, **extra: object) -> dict:
    return {"judge": {"kind": "openai", "openai": {"base_url": url, "model": "judge-1", "api_key_env": KEY_ENV},
                      **extra}}


def test_without_a_key_nothing_is_guarded_and_nothing_is_trusted():
    assert check_endpoint(judge_params("http://b/v1"), judge_params("http://a/v1"), {}) is None


def test_a_moved_endpoint_is_refused_when_a_key_is_present():
    with pytest.raises(EndpointRefused, match="moves the judge endpoint to http://b/v1 model judge-1"):
        check_endpoint(judge_params("http://b/v1"), judge_params("http://a/v1"), {KEY_ENV: KEY})


def test_the_key_variable_and_the_model_are_part_of_the_endpoint():
    head = judge_params("http://a/v1")
    head["judge"]["openai"]["model"] = "cheaper"
    with pytest.raises(EndpointRefused):
        check_endpoint(head, judge_params("http://a/v1"), {KEY_ENV: KEY})
    head = judge_params("http://a/v1")
    head["judge"]["openai"]["api_key_env"] = "OTHER_SECRET"
    with pytest.raises(EndpointRefused):
        check_endpoint(head, judge_params("http://a/v1"), {KEY_ENV: KEY, "OTHER_SECRET": "x"})


def test_the_ci_environment_may_say_where_instead_of_the_base():
    env = {KEY_ENV: KEY, "ASSAY_JUDGE_BASE_URL": "http://ci/v1", "ASSAY_JUDGE_MODEL": "judge-1"}
    assert check_endpoint(judge_params("http://ci/v1"), judge_params("http://a/v1"), env) == \
        Endpoint("openai", "http://ci/v1", "judge-1", KEY_ENV)
    assert trusted_endpoint(None, {}) is None
    with pytest.raises(EndpointRefused, match="nothing outside the change says where it may go"):
        check_endpoint(judge_params("http://a/v1"), None, {KEY_ENV: KEY})


def test_the_seed_comes_from_ci_and_any_text_will_do():
    with pytest.raises(SeedMissing, match="ASSAY_CI_SEED"):
        ci_seed({})
    assert ci_seed({"ASSAY_CI_SEED": "9876543210"}) != ci_seed({"ASSAY_CI_SEED": "9876543211"})


class Fixed:
    def __init__(self, winners):
        self.winners = winners

    def judge_many(self, items, prompt):
        return [Verdict(self.winners.get(i.first, "tie"), "ok", None) for i in items]


def test_every_changed_reply_is_re_asked_on_top_of_the_seeded_sample():
    from assay.data.pairs import Pair

    pairs = [Pair(id=f"p{i}", case_question="q", facts=[], a=f"a{i}", b=f"b{i}", kind="clear", lang="en",
                  ann1="a", ann2="a", final="a") for i in range(50)]
    honest = {f"a{i}": "first" for i in range(50)}
    stored = Fixed({**honest, "a7": "second"})  # one reply forged
    live = Fixed(honest)
    sample = rejudge(pairs, None, stored, live, 3, seed=5, swap=False, tolerance=0.0)
    assert sample.asked == 3 and sample.ok  # a sample of 3 of 50 misses the forgery (seed 5)
    audited = rejudge(pairs, None, stored, live, 3, seed=5, swap=False, tolerance=0.0, also={("p7", "ab")})
    assert audited.asked == 4 and audited.differed == ["pair p7 order ab: stored second (ok), now first (ok)"]
    assert not audited.ok


@pytest.fixture
def repo(tmp_path):
    """The demo's data and params with an OpenAI-compatible judge, committed on `main`, then a branch `change`."""
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "data", root / "data")
    shutil.copy(ROOT / "params.yaml", root / "params.yaml")
    run(["git", "init", "-q", "-b", "main"], root)
    return root


def set_judge(root, url: str, tolerance: float = 0.0) -> None:
    import yaml

    text = (root / "params.yaml").read_text(encoding="utf-8")
    start = text.index("\njudge:\n") + 1
    end = text.index("\n\n", start) if "\n\n" in text[start:] else len(text)
    block = (f"judge:\n  kind: openai\n  rejudge_tolerance: {tolerance}\n  openai:\n    base_url: {url}\n"
             f"    model: judge-1\n    api_key_env: {KEY_ENV}\n")
    (root / "params.yaml").write_text(text[:start] + block + text[end:], encoding="utf-8")
    assert yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))["judge"]["openai"]["base_url"] == url


def commit(root, message):
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", message], root)


@pytest.mark.e2e
def test_attack_4_the_key_never_reaches_the_server_a_change_points_at(repo, capsys, monkeypatch):
    from fake_openai_server import FakeOpenAIServer

    with FakeOpenAIServer() as trusted, FakeOpenAIServer() as attacker:
        set_judge(repo, trusted.base_url)
        commit(repo, "base")
        run(["git", "checkout", "-q", "-b", "change"], repo)
        set_judge(repo, attacker.base_url)
        commit(repo, "the judge moved")
        monkeypatch.setenv(KEY_ENV, KEY)
        monkeypatch.setenv("ASSAY_CI_SEED", "424242")
        code = main(["ci", "--root", str(repo), "--base", "main", "--rejudge", "8"])
        out = capsys.readouterr().out
        assert code == 2, out
        assert f"REFUSED   the change moves the judge endpoint to {attacker.base_url} model judge-1" in out
        assert attacker.requests == 0 and attacker.auth_headers == []  # the key never reached it
        assert trusted.requests == 0  # refused before any request


@pytest.mark.e2e
def test_attack_3_the_audit_uses_cis_seed_the_bases_endpoint_and_tolerance(repo, capsys, monkeypatch):
    from fake_openai_server import FakeOpenAIServer

    with FakeOpenAIServer() as trusted:
        set_judge(repo, trusted.base_url, tolerance=0.0)
        commit(repo, "base")
        run(["git", "checkout", "-q", "-b", "change"], repo)
        set_judge(repo, trusted.base_url, tolerance=1.0)  # the change would accept anything
        replies = repo / "data/derived/judge/pairwise_v2.jsonl"
        rows = [json.loads(line) for line in replies.read_text(encoding="utf-8").splitlines()]
        rows[0]["winner"] = {"first": "second", "second": "first", "tie": "first"}[rows[0]["winner"]]  # one forged
        replies.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
        commit(repo, "tolerance 1.0 and a forged reply")
        monkeypatch.setenv(KEY_ENV, KEY)
        assert main(["ci", "--root", str(repo), "--base", "main", "--rejudge", "8"]) == 2
        assert "--rejudge needs the seed CI provides in ASSAY_CI_SEED" in capsys.readouterr().out
        assert trusted.requests == 0
        monkeypatch.setenv("ASSAY_CI_SEED", "424242")
        code = main(["ci", "--root", str(repo), "--base", "main", "--rejudge", "8"])
        out = capsys.readouterr().out
    assert code == 2, out
    assert "POLICY    params judge.rejudge_tolerance: 0.0 -> 1.0 (loosens)" in out
    assert "(share " in out and "the base's tolerance 0)" in out  # not the change's 1.0
    asked = {(b["messages"][-1]["content"]) for b in trusted.bodies}
    assert trusted.requests >= 8 and len(asked) == 9  # the seeded 8 plus the changed reply
    assert all(h == f"Bearer {KEY}" for h in trusted.auth_headers)
    assert f"REJUDGED  pair {rows[0]['pair']} order {rows[0]['order']}: stored " in out
