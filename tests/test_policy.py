"""The policy pre-registered against the base branch (assay.release.policy, `assay ci --base`).

Attack 7 of issue 31: every blocking metric downgraded to report, no-regression off and a looser
judge rule, in the same change as a worse system. `assay ci --base` lists each policy change and
refuses the change before recomputing anything; the same loosening on its own passes the policy
step (listed); a tightening passes with a note."""

from __future__ import annotations

import pytest

from assay.cli import main
from assay.release.policy import PolicyChange, flatten, policy_changes, review_policy
from conftest import BIN, run

pytestmark = pytest.mark.e2e
ASSAY = str(BIN / "assay")

PARAMS = """\
parts: [core, judge]
inputs:
  plan: data/plan.yaml
rag:
  versions:
    mine: {min_score: 0.2}
gate:
  min_human_kappa: 0.6
judge:
  kind: fake
  min_kappa: 0.6
  rejudge_tolerance: 0.0
"""
PLAN = """\
task: t
dataset: {path: data/cases.jsonl}
failures: [{name: f, cost: high, harmed: h, metric: answer_correct}]
metrics:
  - {name: answer_correct, family: correctness, gate: block, threshold: 0.85, no_regression: true}
  - {name: format_ok, family: format, gate: block, threshold: 0.95}
release_rule: r
"""


def commit(root, message="change"):
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", message], root)


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "params.yaml").write_text(PARAMS, encoding="utf-8")
    (root / "data/plan.yaml").write_text(PLAN, encoding="utf-8")
    (root / "data/cases.jsonl").write_text('{"id": "c1"}\n', encoding="utf-8")
    run(["git", "init", "-q", "-b", "main"], root)
    commit(root, "base")
    run(["git", "checkout", "-q", "-b", "change"], root)
    return root


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def loosen(root):
    """Attack 7's policy half: both blocking metrics to report, no-regression off, a looser judge and tolerance."""
    edit(root / "data/plan.yaml", "gate: block, threshold: 0.85, no_regression: true",
         "gate: report, threshold: 0.85, no_regression: false")
    edit(root / "data/plan.yaml", "gate: block, threshold: 0.95", "gate: report, threshold: 0.95")
    edit(root / "params.yaml", "  min_kappa: 0.6", "  min_kappa: 0.2")
    edit(root / "params.yaml", "  rejudge_tolerance: 0.0", "  rejudge_tolerance: 1.0")


def test_attack_7_loosening_with_a_worse_system_is_refused_and_every_change_listed(repo, capsys):
    loosen(repo)
    edit(repo / "params.yaml", "min_score: 0.2", "min_score: 0.9")  # the worse system
    (repo / "data/cases.jsonl").write_text('{"id": "c1"}\n{"id": "c2"}\n', encoding="utf-8")
    commit(repo)
    code = main(["ci", "--root", str(repo), "--base", "main"])
    out = capsys.readouterr().out
    assert code == 2
    policy = [line for line in out.splitlines() if line.startswith("POLICY")]
    assert policy == [
        "POLICY    params judge.min_kappa: 0.6 -> 0.2 (loosens)",
        "POLICY    params judge.rejudge_tolerance: 0.0 -> 1.0 (loosens)",
        "POLICY    plan metric answer_correct: gate: 'block' -> 'report' (loosens)",
        "POLICY    plan metric answer_correct: no_regression: True -> False (loosens)",
        "POLICY    plan metric format_ok: gate: 'block' -> 'report' (loosens)",
    ]
    assert ("REFUSED   the policy is loosened (5 of 5 changes) in the same change as a system or data change "
            "(data/cases.jsonl, params.yaml section rag): merge the plan change on its own first") in out
    assert "verified" not in out  # refused before recomputing


def test_the_same_loosening_on_its_own_passes_the_policy_step(repo):
    loosen(repo)
    (repo / "README.md").write_text("why the rule changed\n", encoding="utf-8")  # documentation is neither
    commit(repo)
    review = review_policy(str(repo), "main")
    assert not review.refused and len(review.loosened) == 5 and review.others == []
    assert review.note() == "the policy is loosened, with no system or data change: it takes effect for later changes"


def test_tightening_with_a_system_change_passes_with_a_note(repo):
    edit(repo / "data/plan.yaml", "threshold: 0.85", "threshold: 0.9")
    edit(repo / "params.yaml", "min_human_kappa: 0.6", "min_human_kappa: 0.7")
    edit(repo / "params.yaml", "min_score: 0.2", "min_score: 0.3")
    commit(repo)
    review = review_policy(str(repo), "main")
    assert [str(c) for c in review.changes] == ["params gate.min_human_kappa: 0.6 -> 0.7 (tightens)",
                                                "plan metric answer_correct: threshold: 0.85 -> 0.9 (tightens)"]
    assert review.others == ["params.yaml section rag"] and not review.refused
    assert review.note() == "the policy is tightened: the stricter rule applies to this change"


def test_no_policy_change_reads_nothing_else():
    assert policy_changes(flatten({}, {}), flatten({"gate": {"min_human_kappa": 0.6}}, {})) == []  # the default written out


@pytest.mark.parametrize("before, after, effect", [
    ({"threshold": 0.85}, {"threshold": 0.80}, "loosens"),
    ({"threshold": 0.85}, {"threshold": 0.90}, "tightens"),
    ({"threshold": 900, "direction": "lower"}, {"threshold": 1200, "direction": "lower"}, "loosens"),
    ({"threshold": 900, "direction": "lower"}, {"threshold": 800, "direction": "lower"}, "tightens"),
    ({"threshold": 0.85}, {}, "loosens"),                       # threshold removed
    ({"direction": "higher"}, {"direction": "lower"}, "loosens"),  # cannot be ranked
    ({"min_n": 10}, {"min_n": 30}, "tightens"),
])
def test_metric_changes_are_ranked(before, after, effect):
    base = {"metrics": [{"name": "m", "gate": "block", **before}]}
    head = {"metrics": [{"name": "m", "gate": "block", **after}]}
    changes = policy_changes(flatten({}, base), flatten({}, head))
    assert [c.effect for c in changes] == [effect] * len(changes) and changes


def test_a_metric_removed_loosens_and_one_added_to_block_tightens():
    one = {"metrics": [{"name": "a", "gate": "block", "threshold": 0.5}]}
    two = {"metrics": [{"name": "a", "gate": "block", "threshold": 0.5}, {"name": "b", "gate": "block", "threshold": 0.9}]}
    assert {c.effect for c in policy_changes(flatten({}, two), flatten({}, one))} == {"loosens"}
    assert {c.effect for c in policy_changes(flatten({}, one), flatten({}, two))} == {"tightens"}


def test_judge_endpoint_and_parts_changes():
    base = {"parts": ["core", "judge"], "judge": {"kind": "openai", "openai": {"base_url": "https://a/v1", "model": "m"}}}
    head = {"parts": ["core"], "judge": {"kind": "openai", "openai": {"base_url": "http://evil/v1", "model": "m"}}}
    assert [str(c) for c in policy_changes(flatten(base, {}), flatten(head, {}))] == [
        "params judge.openai.base_url: 'https://a/v1' -> 'http://evil/v1' (loosens)",
        "parts: ('core', 'judge') -> ('core',) (loosens)",
    ]
    assert str(PolicyChange("x", None, 1, "tightens")) == "x: (absent) -> 1 (tightens)"


def test_an_unknown_base_is_exit_2_naming_the_fix(repo, capsys):
    code = main(["ci", "--root", str(repo), "--base", "origin/nope"])
    out = capsys.readouterr().out
    assert code == 2 and "--base 'origin/nope' is not a commit here (fix: fetch it" in out


def test_aliases_in_a_policy_file_are_refused(repo, capsys):
    (repo / "params.yaml").write_text("a: &x [1, 2]\nb: *x\n" + PARAMS, encoding="utf-8")
    code = main(["ci", "--root", str(repo), "--base", "main"])
    assert code == 2 and "params.yaml: YAML aliases are refused in policy files" in capsys.readouterr().out


def test_a_new_review_signing_key_with_new_snapshots_is_refused(repo):
    (repo / "data/reviews").mkdir()
    (repo / "data/reviews/queue_key.pub.json").write_text('{"public_key": "AAAA", "synthetic": true}\n', encoding="utf-8")
    (repo / "data/reviews/demo.jsonl").write_text("{}\n", encoding="utf-8")
    commit(repo, "key and snapshot")
    run(["git", "branch", "-f", "main", "HEAD"], repo)
    (repo / "data/reviews/queue_key.pub.json").write_text('{"public_key": "BBBB"}\n', encoding="utf-8")
    (repo / "data/reviews/demo.jsonl").write_text('{"forged": true}\n', encoding="utf-8")
    commit(repo, "my own key, my own reviews")
    review = review_policy(str(repo), "main")
    assert [str(c) for c in review.changes] == [
        "review signing key data/reviews/queue_key.pub.json: 'AAAA (synthetic)' -> 'BBBB' (loosens)"]
    assert review.others == ["data/reviews/demo.jsonl"] and review.refused
