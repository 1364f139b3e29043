"""The review and training stage scripts on a hard-fill snapshot: the bias is flagged everywhere."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from conftest import ROOT
from queue_helpers import sign_folder


def test_review_and_training_stages_flag_a_hard_fill(tmp_path):
    lines = (ROOT / "data/reviews/demo.jsonl").read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])
    meta.update(name="hardq", fill="hard", synthetic=False, note=None)
    (tmp_path / "data/reviews").mkdir(parents=True)
    (tmp_path / "data/reviews/hardq.jsonl").write_text("\n".join([json.dumps(meta)] + lines[1:]) + "\n", encoding="utf-8")
    sign_folder(tmp_path / "data/reviews")  # the team's queue server signed it
    (tmp_path / "params.yaml").write_text("review:\n  snapshots: [hardq]\n", encoding="utf-8")
    shutil.copytree(ROOT / "stages", tmp_path / "stages")
    for stage in (["stages/review.py", "hardq"], ["stages/training.py"]):
        out = subprocess.run([sys.executable, *stage], cwd=tmp_path, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
    metrics = json.loads((tmp_path / "metrics/review/hardq.json").read_text(encoding="utf-8"))
    assert metrics["random_fill"] == 0 and metrics["n"] == len(lines) - 1
    report = (tmp_path / "reports/review/hardq.md").read_text(encoding="utf-8")
    assert "Biased for overall agreement" in report and "Synthetic" not in report
    training = json.loads((tmp_path / "metrics/training.json").read_text(encoding="utf-8"))
    assert training["n_dpo"] == len((tmp_path / "reports/training/dpo.jsonl").read_text().splitlines())

    unlisted = subprocess.run([sys.executable, "stages/review.py", "other"], cwd=tmp_path, capture_output=True, text=True)
    assert unlisted.returncode == 1 and "review.snapshots" in unlisted.stderr and "Traceback" not in unlisted.stderr
