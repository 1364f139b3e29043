"""The CLI: every subcommand has help text; errors are one clean line and a non-zero exit."""

import json


from assay.cli import COMMANDS, build_parser, main

from conftest import ROOT, case, write_jsonl


def test_every_command_has_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    aliases = {name for name, p in sub.choices.items() if sub.choices.get(p.prog.split()[-1]) is p and p.prog.split()[-1] != name}
    assert aliases == {"relevance"}  # `assay relevance` is `assay study` under its old name
    assert set(sub.choices) - aliases == {c.replace("_", "-") for c in COMMANDS}
    for name, p in sub.choices.items():
        if name in aliases:
            continue
        assert p.description, f"assay {name} has no description"
        help_text = next(a.help for a in sub._choices_actions if a.dest == name)
        assert help_text, f"assay {name} has no help line"


def test_validate_good_cases(tmp_path, tiny_corpus, capsys):
    path = write_jsonl(tmp_path / "cases.jsonl", [case("g01"), case("g02", set="adversarial")])
    assert main(["validate", str(path), "--corpus", str(tiny_corpus)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: 2 valid cases, hash ") and out.endswith("15 thin cell(s), 13 empty\n")  # both cells hold 1


def test_validate_bad_cases_exits_non_zero_with_one_line_per_row(tmp_path, tiny_corpus, capsys):
    path = write_jsonl(tmp_path / "cases.jsonl", [case("g01", lang="français"), case("g02", doc_ids=["missing"])])
    assert main(["validate", str(path), "--corpus", str(tiny_corpus)]) == 1
    err = capsys.readouterr().err
    assert err == (f"assay validate: {path}:1: field 'lang': 'français' is not a BCP 47 language tag (fix: write a language "
                   "tag such as en, es, de, pt-BR, zh-Hans, ja, th, ar, hi (language, then optional script and region, "
                   "joined by '-'))\n"
                   f"{path}:2: field 'doc_ids': 'missing' is not a document in the corpus (fix: name a file in data/corpus/ without .md)\n")


def test_validate_missing_file(tmp_path, tiny_corpus, capsys):
    assert main(["validate", str(tmp_path / "nope.jsonl"), "--corpus", str(tiny_corpus)]) == 1
    assert capsys.readouterr().err == f"assay validate: {tmp_path}/nope.jsonl: file not found (fix: check the path)\n"


def test_summary_prints_one_line_per_metrics_file(tmp_path, capsys):
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "split.json").write_text(json.dumps({"dev": 7, "holdout": 3, "holdout_share": 0.3}))
    (tmp_path / "metrics" / "gate.json").write_text(json.dumps({
        "passed": 0, "failed": 2, "missing": 0, "stale": 1, "warnings": 0, "holdout_candidates": 1, "checks": {}}))
    assert main(["summary", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out == (
        "split        dev 7, holdout 3\n"
        "gate         FAIL (2 check(s) unmet, 1 missing or stale); details in reports/summary.md, CI runs `assay ci`\n")


def test_the_readme_shows_what_summary_prints_on_the_committed_demo(capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = readme.split("demo's real output):\n\n```\n", 1)[1].split("```", 1)[0]
    assert main(["summary", "--root", str(ROOT)]) == 0
    assert capsys.readouterr().out == shown


def test_summary_refuses_a_forged_metrics_file(tmp_path, capsys):
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "split.json").write_text(json.dumps({"dev": 7, "holdout": 3, "holdout_share": 0.3, "note": "x"}))
    assert main(["summary", "--root", str(tmp_path)]) == 2
    assert "metrics/split.json: field 'note': Extra inputs are not permitted" in capsys.readouterr().err


def test_ctrl_c_is_one_line_and_exit_130_not_a_traceback(tmp_path, tiny_corpus, capsys, monkeypatch):
    import assay.cli.validate

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(assay.cli.validate, "run", interrupted)  # the parser binds func when it is built
    assert main(["validate", str(tmp_path / "cases.jsonl"), "--corpus", str(tiny_corpus)]) == 130
    assert capsys.readouterr().err == ("assay validate: interrupted (ctrl-c); no file is left half-written; "
                                       "run the command again to finish\n")
