"""End-to-end with the real git and dvc: a team's callable is tuned through its settings and replayed.

In a project made by `assay init`, `dvc exp run -S rag.versions.mine.settings.min_overlap=...` re-runs
evaluate@mine and not the reference version, `dvc exp show` has the setting as a column, the replies
are committed in data/derived/replies/mine.jsonl, and `assay verify` recomputes everything from them.
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import BIN, run

pytestmark = pytest.mark.e2e
DVC, ASSAY = str(BIN / "dvc"), str(BIN / "assay")


def test_settings_tune_only_that_version_and_verify_replays(tmp_path):
    root = tmp_path / "p"
    run([ASSAY, "init", str(root)], tmp_path)
    run([DVC, "repro", "-q"], root)
    replies = [json.loads(line) for line in (root / "data/derived/replies/mine.jsonl").read_text().splitlines()]
    assert replies and all(r["status"] == "ok" for r in replies)
    assert (root / "data/derived/replies/baseline.jsonl").read_text() == ""  # the reference system is computed
    prov = json.loads((root / "reports/provenance/evaluate_mine.json").read_text())
    assert prov["settings"]["settings"] == {"min_overlap": 1} and len(prov["settings"]["system_sha"]) == 64
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", "first evaluation"], root)

    verified = run([ASSAY, "verify"], root, check=False)
    assert verified.returncode == 0, verified.stdout + verified.stderr

    proc = run([DVC, "exp", "run", "-S", "rag.versions.mine.settings.min_overlap=3"], root)
    ran = set(re.findall(r"Running stage '([^']+)'", proc.stdout))
    assert "evaluate@mine" in ran and "evaluate@baseline" not in ran
    shown = run([DVC, "exp", "show", "--json"], root).stdout
    assert re.search(r'"min_overlap":\s*1\b', shown) and re.search(r'"min_overlap":\s*3\b', shown)  # both rows
