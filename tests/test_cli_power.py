"""`assay power`: exact output of each question, figures read from metrics/compare.json and params.yaml,
every argument with help text, bad input as one line and exit 2."""

from __future__ import annotations

import json

import pytest

from assay.cli import build_parser, main
from assay.stats.power import (JudgeMoments, KappaRule, detectable_change, holdout_size, kappa_pairs, ppi_labels,
                               threshold_detectable, threshold_size)

from conftest import ROOT

PARAMS = """judge:
  kind: fake
  preset: mixed
  prompt_version: 2
  swap: true
  min_kappa: 0.7
"""


@pytest.fixture
def root(tmp_path):
    """A repository with a compare record of 66 holdout cases, 3 better and 11 worse, and min_kappa 0.7."""
    (tmp_path / "metrics").mkdir()
    record = json.loads((ROOT / "metrics" / "compare.json").read_text(encoding="utf-8"))
    record.update(n=66, better=3, worse=11, unchanged=52)
    (tmp_path / "metrics" / "compare.json").write_text(json.dumps(record), encoding="utf-8")
    (tmp_path / "params.yaml").write_text(PARAMS, encoding="utf-8")
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["power", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_subcommand_and_argument_has_help():
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices["power"]
    commands = next(a for a in sub._actions if a.dest == "power_command")
    assert set(commands.choices) == {"holdout", "detectable", "threshold", "kappa", "ppi"}
    for name, p in commands.choices.items():
        assert p.description, name
        assert next(a.help for a in commands._choices_actions if a.dest == name), name
        for action in p._actions:
            assert action.help, f"assay power {name} {action.option_strings} has no help"


def test_holdout_given_discordance(capsys, root):
    code, out, err = run(capsys, "holdout", "--change", "0.1", "--discordance", "0.2", "--root", str(root))
    r = holdout_size(0.1, 0.2)
    assert (code, err, r.n) == (0, "", 168)
    assert out == ("cases needed        168\n"
                   "change              +0.100 in pass rate (candidate minus baseline)\n"
                   "discordance         0.200 (given)\n"
                   f"power               {r.power:.3f} at 168 cases (target 0.8)\n"
                   "test                exact McNemar, two-sided at 95%\n")


def test_holdout_reads_the_observed_discordance(capsys, root):
    code, out, _ = run(capsys, "holdout", "--change", "-0.05", "--method", "normal", "--root", str(root))
    r = holdout_size(-0.05, 14 / 66, method="normal")
    assert code == 0
    assert out.splitlines()[0] == f"cases needed        {r.n}"
    assert out.splitlines()[2] == "discordance         0.212 (observed in metrics/compare.json: 14 of 66 cases differ)"
    assert out.splitlines()[4] == "test                McNemar, normal approximation, two-sided at 95%"


def test_detectable_on_the_compared_holdout(capsys, root):
    code, out, _ = run(capsys, "detectable", "--root", str(root))
    change = detectable_change(66, 14 / 66, method="exact").change
    assert code == 0 and out == (f"smallest change     {change:.3f} in pass rate, either direction\n"
                                 "cases               66 (metrics/compare.json)\n"
                                 "discordance         0.212 (observed in metrics/compare.json: 14 of 66 cases differ)\n"
                                 "power               0.8\n"
                                 "test                exact McNemar, two-sided at 95%\n")


def test_detectable_as_json(capsys, root):
    code, out, _ = run(capsys, "detectable", "--n", "200", "--discordance", "0.2", "--json", "--root", str(root))
    data = json.loads(out)
    assert code == 0 and data["n"] == 200 and data["n_source"] == "given" and data["discordance_source"] == "given"
    assert data["change"] == pytest.approx(detectable_change(200, 0.2, method="exact").change)


def test_kappa_reads_the_rule_from_params_and_the_prevalences_from_calibration(capsys, root):
    (root / "metrics" / "calibration.json").write_text((ROOT / "metrics" / "calibration.json").read_text(encoding="utf-8"),
                                                       encoding="utf-8")  # the demo's human labels: 14 a, 14 b, 14 tie
    code, out, _ = run(capsys, "kappa", "--expected", "0.85", "--reps", "2000", "--root", str(root))
    r = kappa_pairs(0.85, KappaRule(0.7, 30, 0.05), (1 / 3, 1 / 3, 1 / 3), reps=2000)
    assert code == 0 and out == (f"pairs needed        {r.n} (seeded simulation of the rule: 2000 label sets per size, seed 0)\n"
                                 f"Wald formula        {r.n_wald} (the large-sample size for the Wald bound alone; optimistic)\n"
                                 f"probability         {r.power:.3f} that the rule passes (target 0.8)\n"
                                 "rule                at least 30 pairs, at most 0.05 without a verdict, kappa's 95% lower "
                                 "bound at least 0.7\n"
                                 "expected kappa      0.85\n"
                                 "min_kappa           0.7 (params.yaml judge.min_kappa)\n"
                                 "prevalences         a 0.333, b 0.333, tie 0.333 (human labels in metrics/calibration.json: "
                                 "14, 14, 14)\n"
                                 "invalid rate        0\n")


def test_kappa_with_given_prevalences_as_json(capsys, root):
    code, out, _ = run(capsys, "kappa", "--expected", "0.8", "--min-kappa", "0.6", "--prevalences", "0.8,0.1,0.1",
                       "--invalid-rate", "0.01", "--reps", "1000", "--json", "--root", str(root))
    data = json.loads(out)
    r = kappa_pairs(0.8, KappaRule(0.6), (0.8, 0.1, 0.1), 0.01, reps=1000)
    assert code == 0 and (data["n"], data["power"], data["prevalence_source"]) == (r.n, r.power, "given")
    assert data["rule"] == {"min_kappa": 0.6, "min_pairs": 30, "max_invalid_share": 0.05, "conservative": True}


def test_threshold_size_and_distance(capsys):
    code, out, _ = run(capsys, "threshold", "--threshold", "0.85", "--change", "0.05")
    r = threshold_size(0.05, 0.85)
    assert code == 0 and out == (f"cases needed        {r.n}\n"
                                 "true share          0.05 above the threshold 0.85\n"
                                 f"power               {r.power:.3f} at {r.n} cases (target 0.8)\n"
                                 "test                one-sided exact binomial test at 0.05\n")
    code, out, _ = run(capsys, "threshold", "--threshold", "0.85", "--n", "58")
    assert code == 0 and out.splitlines()[0] == f"smallest distance   {threshold_detectable(58, 0.85):.3f} above the threshold 0.85"
    code, out, _ = run(capsys, "threshold", "--threshold", "0.9", "--n", "14", "--direction", "lower", "--json")
    assert code == 0 and json.loads(out)["detectable"] == threshold_detectable(14, 0.9, direction="lower")
    code, out, _ = run(capsys, "threshold", "--threshold", "0.9", "--n", "14")
    assert out.splitlines()[0] == "smallest distance   none: no true share passes with that power; add cases"
    code, out, err = run(capsys, "threshold", "--threshold", "1.2", "--n", "14")
    assert (code, out, err) == (2, "", "assay power: threshold 1.2 must be in (0.0, 1.0)\n")


def test_kappa_without_prevalences_or_calibration_names_the_fix(capsys, root):
    code, _, err = run(capsys, "kappa", "--expected", "0.8", "--root", str(root))
    assert (code, err) == (2, "assay power: --prevalences not given and metrics/calibration.json not found (fix: give "
                              "--prevalences a,b,tie, e.g. 0.45,0.45,0.1, or run `dvc repro calibrate`)\n")


def test_ppi_with_a_biased_judge(capsys, root):
    code, out, _ = run(capsys, "ppi", "--width", "0.1", "--judged", "10000", "--pass-rate", "0.7", "--tpr", "0.92", "--fpr", "0.25")
    r = ppi_labels(0.1, JudgeMoments.from_rates(0.7, 0.92, 0.25), 10_000)
    assert (r.n, r.n_human_only) == (179, 327)
    assert code == 0 and out == ("labels needed       179 (PPI++, t interval)\n"
                                 "human only          327 labels for the same width\n"
                                 f"expected width      {r.width_at_n:.4f} at 179 labels (target 0.1, 95% level)\n"
                                 "judge               correlation 0.683 with people (TPR 0.92, FPR 0.25); weight 0.684\n"
                                 "judged cases        10000\n"
                                 "pass rate           0.7 (people)\n")


def test_ppi_by_agreement_and_by_correlation_agree():
    # equal pass rates: a judge agreeing on .9 of cases at pass rate .7 has correlation 1 - .1 / (2 * .21)
    rho = 1 - 0.1 / 0.42
    by_agreement = ppi_labels(0.1, JudgeMoments.from_agreement(0.7, 0.9), 5_000)
    by_correlation = ppi_labels(0.1, JudgeMoments.from_pass_rate(0.7, rho), 5_000)
    assert by_agreement.n == by_correlation.n


@pytest.mark.parametrize("argv,message", [
    (["holdout", "--change", "0.3", "--discordance", "0.2"],
     "change 0.3 must be non-zero and at most the discordance 0.2 in size (a change of d needs at least d of the cases to differ between the versions)"),
    (["holdout", "--change", "0.1", "--discordance", "0.2", "--power", "1.5"], "power 1.5 must be in (0.0, 1.0)"),
    (["holdout", "--change", "0.1", "--discordance", "nan"], "discordance nan must be in (0.0, 1.0]"),
    (["detectable", "--n", "0", "--discordance", "0.2"], "n 0 must be a whole number of cases, at least 1"),
    (["kappa", "--expected", "0.6", "--prevalences", "0.5,0.3,0.2"],
     "expected kappa 0.6 must be above min_kappa 0.7: a judge expected at or below the bar does not clear it with any number of pairs"),
    (["kappa", "--expected", "0.8", "--min-kappa", "0.6", "--prevalences", "0.5,0.3"],
     "prevalences (0.5, 0.3) must be three positive shares (a, b, tie) summing to 1"),
    (["kappa", "--expected", "0.8", "--prevalences", "a,b,c"], "--prevalences 'a,b,c' is not three numbers a,b,tie such as 0.45,0.45,0.1"),
    (["ppi", "--width", "0.1", "--judged", "100", "--pass-rate", "0.7"],
     "ppi: describe the judge one way: --tpr and --fpr, or --agreement, or --correlation"),
    (["ppi", "--width", "0.1", "--judged", "100", "--pass-rate", "0.7", "--agreement", "0.9", "--correlation", "0.5"],
     "ppi: describe the judge one way: --tpr and --fpr, or --agreement, or --correlation (got --agreement and --correlation)"),
    (["ppi", "--width", "0.1", "--judged", "100", "--pass-rate", "0.7", "--tpr", "0.9"], "ppi: --tpr and --fpr go together; give both"),
    (["ppi", "--width", "-1", "--judged", "100", "--pass-rate", "0.7", "--correlation", "0.5"], "width -1.0 must be in (0.0, inf)"),
    (["ppi", "--width", "0.1", "--judged", "100", "--pass-rate", "0.7", "--agreement", "0.2"],
     "agreement 0.2 is impossible at pass rate 0.7 with equal pass rates; the lowest is 0.400"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, root, argv, message):
    code, out, err = run(capsys, *argv, "--root", str(root))
    assert (code, out, err) == (2, "", f"assay power: {message}\n")


def test_no_compare_record_names_the_fix(capsys, tmp_path):
    code, _, err = run(capsys, "holdout", "--change", "0.1", "--root", str(tmp_path))
    assert (code, err) == (2, "assay power: --discordance not given and metrics/compare.json not found "
                              "(fix: give --discordance, or run `dvc repro compare`)\n")
    code, _, err = run(capsys, "detectable", "--discordance", "0.2", "--root", str(tmp_path))
    assert (code, err) == (2, "assay power: --n not given and metrics/compare.json not found "
                              "(fix: give --n, or run `dvc repro compare`)\n")


def test_no_discordant_case_names_the_fix(capsys, root):
    record = json.loads((root / "metrics" / "compare.json").read_text())
    record.update(better=0, worse=0, unchanged=66)
    (root / "metrics" / "compare.json").write_text(json.dumps(record))
    code, _, err = run(capsys, "holdout", "--change", "0.1", "--root", str(root))
    assert (code, err) == (2, "assay power: metrics/compare.json has 0 of 66 cases scored differently; no discordance "
                              "to plan with (fix: give --discordance, e.g. 0.2)\n")


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["power", "holdout", "--change", "abc"])
    assert info.value.code == 2 and "argument --change: invalid float value: 'abc'" in capsys.readouterr().err



@pytest.mark.parametrize("argv, message", [
    (["detectable", "--n", "100000000000", "--discordance", "0.2"],
     "--n 100,000,000,000 is above 1,000,000, the most this command works with (fix: give at most 1,000,000)"),
    (["kappa", "--reps", "100000000", "--expected", "0.8", "--min-kappa", "0.6", "--prevalences", "0.45,0.45,0.1"],
     "--reps 100,000,000 is above 200,000, the most this command works with (fix: give at most 200,000)"),
])
def test_hostile_sizes_are_refused_at_once(capsys, root, argv, message):
    # both ran for minutes before (issue 31); MAX_N in the CLI is the library's, written out
    from assay.cli.power import MAX_N as CLI_MAX_N
    from assay.stats.power import MAX_N

    assert CLI_MAX_N == MAX_N
    code, out, err = run(capsys, *argv, "--root", str(root))
    assert (code, out, err) == (2, "", f"assay power: {message}\n")
