"""End-to-end with the real dvc CLI: a RAG version's `source` is a DVC dependency of its own evaluate stage.

Editing an answers-file version's file, or a callable version's module, makes `dvc status` name that
version's stage only, `dvc repro` re-run it, and the gate call its metrics stale until then. Once
re-run, the edited candidate is a new look in the holdout ledger although its settings are unchanged.
"""

import json
import re

import pytest
import yaml

from conftest import BIN, changed_stages, private_copy, run

pytestmark = pytest.mark.e2e
DVC, ASSAY = str(BIN / "dvc"), str(BIN / "assay")


def ran(proc) -> set[str]:
    return set(re.findall(r"Running stage '([^']+)'", proc.stdout))


@pytest.fixture(scope="module")
def plugged_once(reproduced, tmp_path_factory):
    """The reproduced demo plus the README's two plug-in versions, the answers file judged as candidate, committed
    (reproduced once for the module; each test edits its own copy)."""
    repro_copy = private_copy(reproduced, tmp_path_factory.mktemp("plugged") / "copy")
    params = yaml.safe_load((repro_copy / "params.yaml").read_text(encoding="utf-8"))
    params["rag"]["versions"].update({
        "keyword": {"system": "callable", "callable": "examples.keyword_rag:answer", "source": "examples/keyword_rag.py"},
        "exported": {"system": "answers_file", "answers": "examples/answers.jsonl", "source": "examples/answers.jsonl"},
    })
    params["compare"]["candidate"] = "exported"
    (repro_copy / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
    proc = run([DVC, "repro"], repro_copy)
    assert {"evaluate@keyword", "evaluate@exported", "compare", "gate"} <= ran(proc)
    run(["git", "add", "-A"], repro_copy)
    run(["git", "commit", "-qm", "plug-in versions"], repro_copy)
    assert changed_stages(repro_copy) == set()
    return repro_copy


@pytest.fixture
def plugged(plugged_once, tmp_path):
    return private_copy(plugged_once, tmp_path / "plugged")


def holdout_looks(repo) -> int:
    return json.loads((repo / "metrics/gate.json").read_text(encoding="utf-8"))["holdout_candidates"]


def test_editing_the_answers_file_reruns_that_version_only(plugged):
    looks_before = holdout_looks(plugged)
    ledger_before = (plugged / "data/holdout_ledger.jsonl").read_text(encoding="utf-8").splitlines()
    answers = plugged / "examples/answers.jsonl"
    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    rows[0]["latency_ms"] = 999.0  # any edit of the file, even one no metric shows
    answers.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")

    assert changed_stages(plugged) == {"evaluate@exported"}
    gate = run([ASSAY, "gate", "--skip-dvc-status"], plugged, check=False)
    assert gate.returncode == 2, gate.stdout
    assert re.search(r"fresh evaluate_exported\s+stale\s+changed since the last run: source", gate.stdout)

    proc = run([DVC, "repro"], plugged)
    assert "evaluate@exported" in ran(proc) and not ran(proc) & {"evaluate@keyword", "evaluate@baseline"}
    assert changed_stages(plugged) == set()
    gate = run([ASSAY, "gate"], plugged, check=False)
    assert gate.returncode == 1, gate.stdout  # fresh again: only the demo's unmet thresholds remain
    assert re.search(r"fresh evaluate_exported\s+pass", gate.stdout)
    ledger = (plugged / "data/holdout_ledger.jsonl").read_text(encoding="utf-8").splitlines()
    assert set(ledger_before) < set(ledger) and len(ledger) == len(ledger_before) + 1  # same settings, new bytes
    assert holdout_looks(plugged) == looks_before + 1


def test_editing_the_callable_module_reruns_that_version_only(plugged):
    module = plugged / "examples/keyword_rag.py"
    module.write_text(module.read_text(encoding="utf-8") + "\n# tuned by hand\n", encoding="utf-8")
    assert changed_stages(plugged) == {"evaluate@keyword"}
    proc = run([DVC, "repro"], plugged)
    assert "evaluate@keyword" in ran(proc) and not ran(proc) & {"evaluate@exported", "evaluate@baseline"}
    assert changed_stages(plugged) == set()


def test_a_source_that_misses_the_answers_file_fails_the_stage(plugged):
    params = plugged / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace("source: examples/answers.jsonl",
                                                                 "source: examples/keyword_rag.py"), encoding="utf-8")
    proc = run([DVC, "repro", "evaluate@exported"], plugged, check=False)
    assert proc.returncode != 0
    assert ("field 'rag.versions.exported.source': 'examples/keyword_rag.py' does not hold examples/answers.jsonl"
            in proc.stdout + proc.stderr)
