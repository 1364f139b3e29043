"""End-to-end: `assay verify` on the project itself refuses forged metrics that `dvc commit -f` made look fresh.

One verification of the whole demo pipeline takes minutes, so one run checks both sides: the two
forged files are named with their first differing key, and every other committed output matches its
recomputation (the verdict counts exactly two differences). The exit-0 path of a clean project is
covered on a small project in tests/test_verify.py.

Marked slow (`make test-all` runs it; `make test` and CI do not): the recomputation of all 30 stages
costs about 90 CPU-seconds. In the default run, tests/test_verify.py checks the same behaviour with the
real dvc on a small project (a metric forged and `dvc commit -f`-ed is exit 2 naming file and key; the
append-only ledger is kept; the fake judge is recomputed, and the demo's params name the fake judge; every
committed metrics/reports file of the demo is written or read by a stage), tests/test_difference.py names
nested keys, and tests/test_e2e_pipeline.py compares every committed metrics/reports file with a fresh
clone's `dvc repro`. What only this test checks: that all 30 stages, each forced to run again, give the
committed bytes (a fresh clone re-runs only the stages whose cached outputs it lacks)."""

import json

import pytest

from conftest import BIN, run

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
DVC, ASSAY = str(BIN / "dvc"), str(BIN / "assay")


def edit_json(path, **changes):
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(changes)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


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
    assert lines[-1].startswith("verdict: 2 of "), proc.stdout  # every other committed output matches
    assert "replayed" not in proc.stdout  # the fake judge is recomputed too
