"""`assay gate` on the laptop says what CI would: on a project made by `assay init`, outputs no stage
declares any more (a renamed version) and a dvc.lock that does not match the workspace are exit 2,
each named with the fix; an error inside assay is exit 3 with one line and no traceback (issue 30)."""

from __future__ import annotations

import pytest

from assay.cli import main
from conftest import BIN, run

DVC, ASSAY = str(BIN / "dvc"), str(BIN / "assay")


def test_an_internal_error_is_exit_3_with_one_line_and_no_traceback(tmp_path, monkeypatch, capsys):
    # 1 means "threshold unmet" and 2 "input problem": a bug in assay must be neither
    import assay.release.gather

    def broken(root="."):
        raise KeyError("holdout")

    monkeypatch.setattr(assay.release.gather, "gather", broken)
    monkeypatch.delenv("CI", raising=False)
    (tmp_path / "params.yaml").write_text("parts: [core]\n", encoding="utf-8")
    assert main(["gate", "--root", str(tmp_path), "--skip-dvc-status"]) == 3
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.startswith("assay gate: internal error: KeyError: 'holdout' at assay/")
    assert out.err.endswith("(a bug in assay, not in your inputs: report this line; exit 3)\n")
    assert out.err.count("\n") == 1 and "Traceback" not in out.err


def test_verify_under_an_internal_error_is_exit_3_too(tmp_path, monkeypatch, capsys):
    import assay.release.verify

    def broken(root=".", scratch=None, strict=False):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(assay.release.verify, "verify", broken)
    assert main(["verify", "--root", str(tmp_path)]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("assay verify: internal error: ZeroDivisionError: division by zero at assay/")


@pytest.mark.e2e
def test_a_renamed_version_leaves_outputs_the_gate_names_and_a_stale_lock_is_refused(small_copy):
    root = small_copy  # `assay init` with every part, reproduced and committed (conftest.small_project)
    assert run([ASSAY, "gate"], root, check=False).returncode in (0, 1)
    # rename the team's version, as docs/plug-in.md says to
    params = root / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace("    mine:", "    ours:").replace("candidate: mine",
                                                                                               "candidate: ours"),
                      encoding="utf-8")
    gate = run([ASSAY, "gate"], root, check=False)  # before dvc repro: dvc.lock does not match the workspace
    assert gate.returncode == 2
    row = next(line for line in gate.stdout.splitlines() if line.startswith("dvc status"))
    assert "dvc.lock does not match the workspace; changed: " in row and "evaluate@ours" in row
    assert row.endswith("(fix: run `dvc repro` and commit dvc.lock and the outputs)")
    run([DVC, "repro", "-q"], root)
    assert run([DVC, "status", "--json"], root).stdout.strip() in ("{}", "")  # DVC itself is green
    gate = run([ASSAY, "gate"], root, check=False)
    assert gate.returncode == 2, gate.stdout
    left = ["metrics/rag/mine.json", "reports/provenance/evaluate_mine.json"]
    row = next(line for line in gate.stdout.splitlines() if line.startswith("undeclared outputs"))
    assert all(f in row for f in left) and "ours" not in row.split("(fix:")[0]
    command = row.split("`")[1]
    assert command.startswith("rm -f -- ") and set(command.split()[3:]) >= set(left)
    run(["sh", "-c", command], root)  # the fix the row gives
    gate = run([ASSAY, "gate"], root, check=False)
    assert gate.returncode in (0, 1), gate.stdout
    assert "undeclared outputs" not in gate.stdout
