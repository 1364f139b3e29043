"""The gate trusts nothing it can check (issue 22): no --skip-dvc-status in CI, and a calibration
whose usability flag disagrees with its own reasons or numbers is stale (exit 2), naming the file."""

from __future__ import annotations

import json

import pytest

from assay.artifacts.judge import CalibrationMetrics
from assay.cli import main
from assay.judge.usability import UsabilityRule
from assay.release.checks import calibration_consistency, exit_code
from assay.release.gather import gather
from conftest import ROOT

RECORD = json.loads((ROOT / "metrics/calibration.json").read_text(encoding="utf-8"))
REASONS = json.loads((ROOT / "reports/provenance/calibrate.json").read_text(encoding="utf-8"))["details"]["reasons"]


@pytest.mark.parametrize("value", ["true", "TRUE", "1", "yes"])
def test_skip_dvc_status_is_refused_under_ci(committed_repo, monkeypatch, capsys, value):
    monkeypatch.setenv("CI", value)
    assert main(["gate", "--root", str(committed_repo), "--skip-dvc-status"]) == 2
    err = capsys.readouterr().err
    assert "--skip-dvc-status is refused when CI=true" in err and "fix:" in err and "Traceback" not in err


def test_skip_dvc_status_still_works_outside_ci(committed_repo, monkeypatch, capsys):
    monkeypatch.setenv("CI", "false")
    code = main(["gate", "--root", str(committed_repo), "--skip-dvc-status", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == out["exit_code"] and "dvc status" not in [c["name"] for c in out["checks"]]


def test_the_committed_calibration_is_consistent():
    assert not RECORD["usable"] and REASONS
    assert calibration_consistency(CalibrationMetrics(**RECORD), REASONS, UsabilityRule(max_flip_share=0.2)) == []


def test_usable_with_reasons_or_unusable_without_is_stale_naming_the_files():
    forged = CalibrationMetrics(**{**RECORD, "usable": 1})
    [flag, numbers] = calibration_consistency(forged, REASONS, UsabilityRule(max_flip_share=0.2))
    assert flag.status == numbers.status == "stale" and exit_code([flag]) == 2
    assert "metrics/calibration.json says usable 1" in flag.detail and "reports/provenance/calibrate.json lists 5" in flag.detail
    assert "its own numbers under params judge's rule say not usable: order flips on 28 of 42" in numbers.detail
    [none] = calibration_consistency(CalibrationMetrics(**RECORD), [], None)
    assert none.status == "stale" and "usable 0 but reports/provenance/calibrate.json lists no reason" in none.detail


def test_the_gate_reports_a_hand_edited_usable_flag_as_stale(committed_repo):
    path = committed_repo / "metrics/calibration.json"
    path.write_text(json.dumps({**RECORD, "usable": 1}), encoding="utf-8")
    checks = gather(committed_repo)[0]
    stale = [c for c in checks if c.name == "calibration consistency"]
    assert len(stale) == 2 and all(c.status == "stale" for c in stale) and exit_code(checks) == 2
    # editing the provenance too (no reasons) leaves the numbers: the rule, applied again, still says no
    prov = committed_repo / "reports/provenance/calibrate.json"
    record = json.loads(prov.read_text(encoding="utf-8"))
    record["details"]["reasons"] = []
    prov.write_text(json.dumps(record), encoding="utf-8")
    stale = [c for c in gather(committed_repo)[0] if c.name == "calibration consistency"]
    assert [c.status for c in stale] == ["stale"] and "its own numbers" in stale[0].detail


def test_the_gate_checks_its_own_recorded_verdict(committed_repo, monkeypatch, capsys):
    from assay.artifacts.release import GateMetrics
    from assay.release.checks import Check, recorded_verdict_checks

    monkeypatch.delenv("CI", raising=False)
    record = GateMetrics(passed=0, failed=1, missing=0, stale=0, warnings=0, holdout_candidates=1,
                         checks={"answer_correct (candidate, holdout)": 0, "human agreement": 1})
    passing = [Check("answer_correct (candidate, holdout)", "pass", "ok"), Check("human agreement", "pass", "ok")]
    [stale] = recorded_verdict_checks(record, passing)
    assert stale.status == "stale" and "metrics/gate.json" in stale.detail and "passed 0 (now 1)" in stale.detail
    assert "answer_correct (candidate, holdout) 0 (now 1)" in stale.detail
    assert recorded_verdict_checks(record, [Check("answer_correct (candidate, holdout)", "fail", "x"),
                                            Check("human agreement", "pass", "ok")]) == []
    assert recorded_verdict_checks(None, passing) == []
    # the committed record agrees with the committed metrics: no gate record check
    code = main(["gate", "--root", str(committed_repo), "--skip-dvc-status", "--json"])
    names = {c["name"]: c["status"] for c in json.loads(capsys.readouterr().out)["checks"]}
    assert "gate record" not in names or code == 2
    # a metrics file edited to pass while the gate's own record says it failed
    gate = json.loads((committed_repo / "metrics/gate.json").read_text())
    gate["checks"]["human agreement"] = 0
    (committed_repo / "metrics/gate.json").write_text(json.dumps(gate))
    assert main(["gate", "--root", str(committed_repo), "--skip-dvc-status", "--json"]) == 2
    names = {c["name"]: c["status"] for c in json.loads(capsys.readouterr().out)["checks"]}
    assert names["gate record"] == "stale"


def test_in_ci_a_forged_verify_record_does_not_make_the_gate_pass(tmp_path, monkeypatch, capsys):
    """Issue 31, attack 5: under CI=true the gate believes no record file (`.assay/verified.json` was one function
    call to write); where it would pass it refuses (exit 2) and names `assay ci`. A failure stays exit 1, and
    outside CI the gate passes as before."""
    import assay.cli.gate as gate_cli
    import assay.release.gather as gather_module
    from assay.release.checks import Check
    from conftest import run

    run(["git", "init", "-q"], tmp_path)
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics/score.json").write_text('{"x": 1}\n')
    run(["git", "add", "-A"], tmp_path)
    verdict = [Check("answer_correct", "pass", "ok")]
    monkeypatch.setattr(gather_module, "gather", lambda root: (verdict, None))
    monkeypatch.setattr(gate_cli, "dvc_status", lambda root: {})

    def gate():
        capsys.readouterr()
        code = main(["gate", "--root", str(tmp_path), "--json"])
        return code, {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}

    # the record the old `assay verify` left, forged: the key it held was the SHA-256 over every tracked file
    import hashlib

    digest = hashlib.sha256(b"metrics/score.json\0" + hashlib.sha256(b'{"x": 1}\n').hexdigest().encode() + b"\n")
    (tmp_path / ".assay").mkdir()
    (tmp_path / ".assay/verified.json").write_text(json.dumps({"workspace": digest.hexdigest(), "stages": ["square"],
                                                               "compared": 1}))
    monkeypatch.setenv("CI", "true")
    code, checks = gate()
    assert code == 2 and checks[gate_cli.CI_CHECK]["status"] == "missing"
    assert "(fix: run `assay ci`, which recomputes every stage" in checks[gate_cli.CI_CHECK]["detail"]
    assert [name for name, c in checks.items() if c["status"] != "pass"] == [gate_cli.CI_CHECK]
    capsys.readouterr()
    assert main(["gate", "--root", str(tmp_path)]) == 2  # the table names the refusal too
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(gate_cli.CI_CHECK))
    assert row.split()[4] == "missing" and row.endswith("in one process)")
    verdict[0] = Check("answer_correct", "fail", "0.5 < 0.85")
    code, checks = gate()
    assert code == 1 and gate_cli.CI_CHECK not in checks  # a failure needs no proof
    verdict[0] = Check("answer_correct", "pass", "ok")
    monkeypatch.setenv("CI", "false")  # outside CI the committed outputs are read as they are
    code, checks = gate()
    assert code == 0 and gate_cli.CI_CHECK not in checks
