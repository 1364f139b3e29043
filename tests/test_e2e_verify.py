"""End-to-end: `assay verify` on the project itself refuses forged metrics that `dvc commit -f` made look fresh."""

import json

import pytest

from conftest import BIN, run

pytestmark = pytest.mark.e2e
DVC, ASSAY = str(BIN / "dvc"), str(BIN / "assay")


def edit_json(path, **changes):
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(changes)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def test_a_clean_checkout_verifies_with_exit_0(repro_copy):
    assert run(["git", "status", "--porcelain"], repro_copy).stdout == ""
    proc = run([ASSAY, "verify"], repro_copy, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "DIFFERS" not in proc.stdout and "replayed" not in proc.stdout  # the fake judge is recomputed too
    assert proc.stdout.startswith("verified: ") and " stages from the committed inputs" in proc.stdout


def test_forged_metrics_committed_with_dvc_commit_fail_verify_naming_file_and_key(repro_copy):
    # the attack from issue 10: make an unusable judge usable and raise a pass rate, then make DVC agree
    edit_json(repro_copy / "metrics/calibration.json", usable=1)
    rag = repro_copy / "metrics/rag/candidate.json"
    forged = json.loads(rag.read_text(encoding="utf-8"))
    honest = forged["holdout"]["answer_correct"]["value"]
    forged["holdout"]["answer_correct"]["value"] = 0.95
    rag.write_text(json.dumps(forged, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    run([DVC, "commit", "-f", "-q"], repro_copy)
    run(["git", "commit", "-qam", "forged"], repro_copy)
    status = json.loads(run([DVC, "status", "--json"], repro_copy).stdout or "{}")
    assert status == {}  # DVC sees nothing wrong
    proc = run([ASSAY, "verify"], repro_copy, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "DIFFERS   metrics/calibration.json: key 'usable': committed 1, recomputed 0" in lines
    assert f"DIFFERS   metrics/rag/candidate.json: key 'holdout.answer_correct.value': committed 0.95, recomputed {honest}" in lines
    assert lines[-1].startswith("verdict: 2 of ")
