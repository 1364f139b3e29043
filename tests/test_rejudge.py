"""Stored judge replies can be audited (issue 22): `assay verify --rejudge N` re-asks a seeded sample
and fails, naming the items, when more than judge.rejudge_tolerance of the verdicts differ."""

from __future__ import annotations

import json
import shutil

import pytest

from assay.cli import main
from assay.cli.verify import _rejudge
from assay.judge.audit import Rejudged, rejudge
from assay.judge.base import Verdict
from conftest import ROOT


@pytest.fixture
def repo(tmp_path):
    dest = tmp_path / "repo"
    shutil.copytree(ROOT / "data", dest / "data")
    shutil.copy(ROOT / "params.yaml", dest / "params.yaml")
    return dest


def forge(repo, every: int = 1) -> int:
    """Flip the stored winner of every ``every``-th reply of the calibrated prompt; return how many."""
    path = repo / "data/derived/judge/pairwise_v2.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    flip = {"first": "second", "second": "first", "tie": "first"}
    for row in rows[::every]:
        row["winner"] = flip[row["winner"]]
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    return len(rows[::every])


def test_honest_replies_of_a_deterministic_judge_rejudge_identically(repo):
    audit = _rejudge(str(repo), 30, seed=7)
    assert audit.asked == 30 and audit.differed == [] and audit.ok
    assert _rejudge(str(repo), 10_000, seed=7).asked == 84  # every stored request of the demo (42 pairs, both orders)


def test_forged_winners_are_found_and_named_and_verify_exits_2(repo, capsys):
    forge(repo)
    audit = _rejudge(str(repo), 12, seed=3)
    assert len(audit.differed) == 12 and not audit.ok
    assert all(line.startswith("pair ") and ": stored " in line and ", now " in line for line in audit.differed)
    capsys.readouterr()
    assert main(["verify", "--root", str(repo), "--rejudge", "12", "--seed", "3"]) == 2
    out = capsys.readouterr().out
    assert out.count("REJUDGED  pair ") == 12 and "12 of 12 re-asked verdicts differ" in out and "fix:" in out


def test_the_sample_is_seeded_and_the_tolerance_decides():
    class Fixed:
        def __init__(self, winners):
            self.winners = winners

        def judge_many(self, items, prompt):
            return [Verdict(self.winners.get(i.first, "tie"), "ok", None) for i in items]

    from assay.data.pairs import Pair

    pairs = [Pair(id=f"p{i}", case_question="q", facts=[], a=f"a{i}", b=f"b{i}", kind="clear", lang="en",
                  ann1="a", ann2="a", final="a") for i in range(10)]
    stored, live = Fixed({f"a{i}": "first" for i in range(10)}), Fixed({f"a{i}": "first" for i in range(9)})
    first = rejudge(pairs, None, stored, live, 20, seed=1, swap=True, tolerance=0.1)
    assert first.asked == 20 and first.differed == ["pair p9 order ab: stored first (ok), now tie (ok)"]
    assert first.share == 0.05 and first.ok  # 1 of 20 <= 0.1
    assert rejudge(pairs, None, stored, live, 20, seed=1, swap=True, tolerance=0.0).ok is False
    assert rejudge(pairs, None, stored, live, 5, seed=1, swap=True, tolerance=0) == \
        rejudge(pairs, None, stored, live, 5, seed=1, swap=True, tolerance=0)  # same seed, same sample
    assert rejudge(pairs, None, stored, live, 0, seed=1, swap=True, tolerance=0) == Rejudged(0, 0)


def test_stored_rows_keep_the_servers_response_id_and_a_fake_judges_rows_keep_their_bytes(tmp_path, monkeypatch):
    from assay.judge.base import JudgeItem
    from assay.judge.openai import OpenAIJudge, OpenAIJudgeParams
    from assay.judge.replies import StoredReply
    from fake_openai_server import FakeOpenAIServer, make_prompt

    prompt = make_prompt(tmp_path, 1)
    with FakeOpenAIServer() as server:
        judge = OpenAIJudge(OpenAIJudgeParams(base_url=server.base_url, model="m", progress=False,
                                              cache_path=str(tmp_path / "c.sqlite")))
        [verdict] = judge.judge_many([JudgeItem("q", (), "x", "y")], prompt)
    assert verdict.extra["response_id"] == "chatcmpl-fake" and verdict.extra["system_fingerprint"] is None
    row = StoredReply(key="0" * 64, pair="p", order="ab", prompt_version=1, prompt_sha="s", status="ok",
                      winner="first", response_id="chatcmpl-fake").row()
    assert row["response_id"] == "chatcmpl-fake" and "system_fingerprint" not in row
    committed = (ROOT / "data/derived/judge/pairwise_v2.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(json.dumps(StoredReply(**json.loads(line)).row(), sort_keys=True, ensure_ascii=False) == line
               for line in committed)  # the fake judge's committed rows are unchanged, byte for byte
