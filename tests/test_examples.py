"""The README's plug-in examples run through the real evaluate stage script on the demo data."""

import hashlib
import json
import subprocess
import sys

import pytest
import yaml

from conftest import BIN, make_clone


@pytest.mark.e2e
def test_callable_and_answers_file_plugins_run_through_the_evaluate_stage(tmp_path):
    root = make_clone(tmp_path / "clone")
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    params["rag"]["versions"] = {
        "keyword": {"system": "callable", "callable": "examples.keyword_rag:answer", "source": "examples/keyword_rag.py"},
        "exported": {"system": "answers_file", "answers": "examples/answers.jsonl", "source": "examples/answers.jsonl"},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
    for script in (["stages/validate.py"], ["stages/split.py"], ["stages/evaluate.py", "keyword"],
                   ["stages/evaluate.py", "exported"]):
        subprocess.run([sys.executable, *script], cwd=root, check=True, env={"PATH": str(BIN)}, capture_output=True, text=True)
    keyword = json.loads((root / "metrics/rag/keyword.json").read_text(encoding="utf-8"))
    exported = json.loads((root / "metrics/rag/exported.json").read_text(encoding="utf-8"))
    assert keyword["n"] == exported["n"] == 194
    # the answers file was exported from the callable, so both versions score the same on every family
    for side in ("dev", "holdout"):
        for key in ("pass_rate", "answer_correct", "abstain_correct", "citation_support", "recall_at_k", "format_ok"):
            assert keyword[side][key] == exported[side][key], (side, key)
    prov = json.loads((root / "reports/provenance/evaluate_exported.json").read_text(encoding="utf-8"))
    assert prov["inputs"]["source"] == hashlib.sha256((root / "examples/answers.jsonl").read_bytes()).hexdigest()
