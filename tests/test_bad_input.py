"""The red team's bad inputs (issue 22): each is one clean error naming file:line, field and fix,
with a non-zero exit and no traceback; nothing is accepted silently."""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys

import pytest

from assay.cli import main
from assay.core.errors import InputError
from assay.core.fmt import md_text
from assay.core.io import load_yaml_text, parse_json_line, read_jsonl, read_yaml
from assay.judge.prompts import load_prompt
from assay.queue.report import report_markdown
from assay.queue.results import summarize
from assay.queue.snapshot import read_snapshot
from assay.release.params_check import check_params
from conftest import ROOT

QRELS = "a 0 d1 2\na 0 d2 0\nb 0 d3 1\n"
RUN = "a Q0 d2 1 2.0 t\na Q0 d1 2 1.0 t\n"


def ir_eval(tmp_path, capsys, qrels: bytes, run: bytes = RUN.encode()):
    (tmp_path / "q.trec").write_bytes(qrels)
    (tmp_path / "r.trec").write_bytes(run)
    capsys.readouterr()
    code = main(["ir-eval", str(tmp_path / "q.trec"), str(tmp_path / "r.trec")])
    return code, capsys.readouterr().err


# (name, qrels bytes, start of the message after "assay ir-eval: <qrels>")
IR_BAD = [
    ("invalid UTF-8", b"a 0 d1 2\na 0 d\xff2 1\n", ":2: not valid UTF-8: byte(s) ff"),
    ("grade 10^30", b"a 0 d1 2\na 0 d2 1" + b"0" * 30 + b"\n", ":2: field 'grade': '1000000000000000000000000000000' is outside -1 to 100"),
    ("grade -5", b"a 0 d1 -5\n", ":1: field 'grade': '-5' is outside -1 to 100"),
    ("NUL in a query id", b"a 0 d1 2\na\x00x 0 d2 1\n", ":2: holds a NUL or control character ('\\x00') at character 2"),
    ("empty qrels", b"", ": holds no judgments"),
    ("only comments", b"# nothing\n\n", ": holds no judgments"),
]


@pytest.mark.parametrize("name, qrels, expected", IR_BAD, ids=[b[0] for b in IR_BAD])
def test_ir_eval_bad_qrels_is_one_clean_error(tmp_path, capsys, name, qrels, expected):
    code, err = ir_eval(tmp_path, capsys, qrels)
    assert code == 1 and "Traceback" not in err
    assert err.startswith(f"assay ir-eval: {tmp_path / 'q.trec'}{expected}"), err
    assert "(fix: " in err


def test_ir_eval_with_no_common_query_fails(tmp_path, capsys):
    code, err = ir_eval(tmp_path, capsys, QRELS.encode(), b"z Q0 d1 1 1.0 t\n")
    assert code == 1 and "no query id in common" in err and "field 'qid'" in err and "(fix: " in err


def test_a_10mb_line_is_refused_at_its_line_with_bounded_memory(tmp_path, capsys):
    # run in a child with a 1 GB address-space cap: the red team saw 22 GB for this file
    (tmp_path / "q.trec").write_bytes(b"a 0 d1 2\n" + b"a 0 " + b"x" * 10_000_000 + b" 1\nb 0 d3 1\n")
    (tmp_path / "r.trec").write_text(RUN)
    script = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
              "from assay.cli import main; sys.exit(main(sys.argv[1:]))")
    out = subprocess.run([sys.executable, "-c", script, "ir-eval", "q.trec", "r.trec"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    assert out.stderr.startswith("assay ir-eval: q.trec:2: line is longer than 65536 bytes") and "Traceback" not in out.stderr
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 1 << 20  # KB: under 1 GB


# ---- duplicate keys, lone surrogates -------------------------------------------------------------------------

def test_a_json_object_with_a_key_twice_is_an_error_at_its_line(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": "g01"}\n{"id": "g02", "task": "a", "task": "b"}\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_jsonl(path)
    [problem] = info.value.problems
    assert problem.line == 2 and "'task' appears twice" in problem.message


def test_duplicate_yaml_keys_are_an_error_at_the_second(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("gate:\n  max_holdout_looks: 5\n  min_human_kappa: 0.6\n  max_holdout_looks: 50\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_yaml(path)
    [problem] = info.value.problems
    assert problem.line == 4 and "'max_holdout_looks' appears twice" in problem.message and "first on line 2" in problem.message
    assert problem.fix == "keep one of the two keys"
    assert check_params(path)[0].line == 4  # assay validate params.yaml reports it too
    assert load_yaml_text("a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n", "f") == {"a": {"b": 1}, "c": {"b": 1, "d": 2}}


@pytest.mark.parametrize("line", ['{"id": "\\ud800"}', '{"id": "ok", "facts": ["x\\udfff"]}', '{"\\udc00": 1}'])
def test_a_lone_surrogate_is_a_clean_error(line):
    value, why = parse_json_line(line)
    assert value is None and "lone surrogate" in why
    assert parse_json_line('{"e": "\\ud83d\\ude00"}') == ({"e": "\U0001F600"}, None)  # a valid pair is text


@pytest.fixture
def repo(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "data", tmp_path / "data", ignore=shutil.ignore_patterns("derived"))
    shutil.copy(ROOT / "params.yaml", tmp_path / "params.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def append_row(path, **over):
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({**first, **over}, ensure_ascii=False) + "\n")
    return first


def validate(target, capsys):
    capsys.readouterr()
    code = main(["validate", target])
    return code, capsys.readouterr().err


def test_a_lone_surrogate_in_cases_and_pairs_is_a_clean_error_in_validate(repo, capsys):
    for target in ("data/cases.jsonl", "data/pairs.jsonl"):
        path = repo / target
        lines = path.read_text(encoding="utf-8").splitlines()
        path.write_text("\n".join(lines + ['{"id": "x\\ud800"}']) + "\n")
        code, err = validate(target, capsys)
        assert code == 1 and f"{target}:{len(lines) + 1}: a string holds a lone surrogate" in err and "Traceback" not in err


FULL_WIDTH = str.maketrans("0123456789abcdefghijklmnopqrstuvwxyz", "０１２３４５６７８９ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘｙｚ")


@pytest.mark.parametrize("alter", [str.upper, lambda i: f" {i} ", lambda i: i.translate(FULL_WIDTH)],
                         ids=["case", "blanks", "full-width"])
def test_ids_that_differ_only_by_case_blanks_or_width_collide(repo, capsys, alter):
    path = repo / "data/cases.jsonl"
    n = len(path.read_text(encoding="utf-8").splitlines())
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert alter(first["id"]) != first["id"]
    append_row(path, id=alter(first["id"]))
    code, err = validate("data/cases.jsonl", capsys)
    assert code == 1 and f"data/cases.jsonl:{n + 1}: field 'id': duplicate id" in err and "(first on line 1)" in err, err


@pytest.mark.parametrize("bad", ["g\x0001", "a/b", "..\\x"], ids=["NUL", "slash", "backslash"])
def test_ids_with_nul_or_path_separators_are_errors(repo, capsys, bad):
    n = len((repo / "data/pairs.jsonl").read_text(encoding="utf-8").splitlines())
    append_row(repo / "data/pairs.jsonl", id=bad)
    code, err = validate("data/pairs.jsonl", capsys)
    assert code == 1 and f"data/pairs.jsonl:{n + 1}: field 'id': {bad!r}" in err and "Traceback" not in err


def test_two_corpus_files_differing_only_by_case_and_a_self_superseding_page(repo, capsys):
    doc = repo / "data/corpus/kb-roaming.md"
    (repo / "data/corpus/KB-Roaming.md").write_text(doc.read_text(encoding="utf-8"), encoding="utf-8")
    code, err = validate("data/corpus", capsys)
    assert code == 1 and "differs from" in err and "only in case" in err
    (repo / "data/corpus/KB-Roaming.md").unlink()
    text = doc.read_text(encoding="utf-8")
    doc.write_text(text.replace("---\n", "---\nsuperseded_by: kb-roaming\n", 1), encoding="utf-8")
    code, err = validate("data/corpus", capsys)
    assert code == 1 and "kb-roaming.md:2: field 'superseded_by': 'kb-roaming' names the document itself" in err


@pytest.mark.parametrize("section, key, line_text", [("gate", "max_holdout_looks", "max_holdout_looks: 5"),
                                                     ("leakage", "threshold", "threshold: 0.6"),
                                                     ("split", "holdout_share", "holdout_share: 0.3"),
                                                     ("judge", "min_kappa", "min_kappa: 0.6")])
def test_booleans_where_numbers_belong_are_errors(repo, capsys, section, key, line_text):
    params = repo / "params.yaml"
    text = params.read_text(encoding="utf-8")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if line_text in t)
    params.write_text(text.replace(line_text, f"{key}: true", 1), encoding="utf-8")
    code, err = validate("params.yaml", capsys)
    assert code == 1
    assert f"params.yaml:{line}: field '{section}.{key}': True is a boolean, not a number" in err, err


def test_a_boolean_threshold_in_the_plan_is_an_error(repo, capsys):
    plan = repo / "data/plan.yaml"
    text = plan.read_text(encoding="utf-8")
    old = next(t for t in text.splitlines() if "threshold:" in t and "null" not in t)
    plan.write_text(text.replace(old, old.split(":")[0] + ": true", 1), encoding="utf-8")
    code, err = validate("data/plan.yaml", capsys)
    assert code == 1 and "is a boolean, not a number" in err


def test_a_crlf_prompt_reads_like_its_lf_twin(tmp_path):
    lf = (ROOT / "data/prompts/pairwise_v2.md").read_bytes()
    (tmp_path / "pairwise_v2.md").write_bytes(lf.replace(b"\n", b"\r\n"))
    crlf, orig = load_prompt(tmp_path / "pairwise_v2.md"), load_prompt(ROOT / "data/prompts/pairwise_v2.md")
    assert (crlf.system, crlf.user, crlf.criteria) == (orig.system, orig.user, orig.criteria)


@pytest.mark.parametrize("edit, expected", [
    (lambda t: t.replace(b"{{question}}", b"{{question", 1), "placeholder '{{question"),
    (lambda t: t + b"\x00\n", "holds a NUL byte")])
def test_a_prompt_with_nul_or_an_unclosed_placeholder_is_an_error(tmp_path, edit, expected):
    (tmp_path / "pairwise_v2.md").write_bytes(edit((ROOT / "data/prompts/pairwise_v2.md").read_bytes()))
    with pytest.raises(InputError) as info:
        load_prompt(tmp_path / "pairwise_v2.md")
    assert expected in str(info.value) and info.value.problems[0].line is not None


def test_markdown_reports_escape_user_text():
    snap = read_snapshot(ROOT / "data/reviews/demo.jsonl")
    attack = "<script>alert(1)</script>\n# heading | [x](javascript:alert(1))"
    for review in snap.reviews:
        review.note = review.correction = attack
        review.answers = {k: attack for k in review.answers}
        review.question = attack
    report = report_markdown(summarize(snap), {"snap": "0" * 64})
    assert "<script>" not in report and "&lt;script" in report
    assert "\n# heading" not in report and " [x](javascript" not in report and "\\[x\\](javascript" in report
    assert md_text("a  \n b") == "a b" and md_text(None) == ""


def test_a_rubric_with_invalid_utf8_or_a_key_twice_is_a_clean_error(tmp_path):
    from assay.queue.rubric import load_rubric

    text = (ROOT / "data/rubric.yaml").read_bytes()
    (tmp_path / "bad.yaml").write_bytes(text + b"# caf\xe9\n")
    with pytest.raises(InputError, match=r"bad.yaml:\d+: not valid UTF-8"):
        load_rubric(tmp_path / "bad.yaml")
    (tmp_path / "twice.yaml").write_bytes(text + b"version: 2\n")
    with pytest.raises(InputError, match="appears twice"):
        load_rubric(tmp_path / "twice.yaml")


def test_a_lone_surrogate_in_a_jsonl_source_is_a_clean_error(tmp_path):
    from assay.data.leakage.sources import load_sources

    (tmp_path / "forum.jsonl").write_text('{"question": "ok?"}\n{"question": "bad \\ud800"}\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_sources(tmp_path)
    assert info.value.problems[0].line == 2 and "lone surrogate" in info.value.problems[0].message


def test_every_written_file_gets_the_mode_open_would_give(tmp_path):
    import os

    from assay.core.io import write_json, write_jsonl, write_text

    umask = os.umask(0o022)
    os.umask(umask)
    for name, write in (("a.txt", lambda p: write_text(p, "x")), ("b.json", lambda p: write_json(p, {})),
                        ("c.jsonl", lambda p: write_jsonl(p, [{}]))):
        write(tmp_path / name)
        (tmp_path / f"plain-{name}").write_text("x")
        assert os.stat(tmp_path / name).st_mode & 0o777 == os.stat(tmp_path / f"plain-{name}").st_mode & 0o777 == 0o666 & ~umask


def test_an_unknown_prompt_version_is_an_error_at_its_line(repo, capsys):
    params = repo / "params.yaml"
    text = params.read_text(encoding="utf-8")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "prompt_version: 2" in t)
    params.write_text(text.replace("prompt_version: 2", "prompt_version: 99", 1), encoding="utf-8")
    code, err = validate("params.yaml", capsys)
    assert code == 1 and f"params.yaml:{line}: field 'judge.prompt_version': 99 names no prompt" in err and "fix:" in err


def test_a_pair_whose_two_answers_are_the_same_is_an_error(repo, capsys):
    path = repo / "data/pairs.jsonl"
    n = len(path.read_text(encoding="utf-8").splitlines())
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    append_row(path, id="dup-answers", b=" " + first["a"] + " ")
    code, err = validate("data/pairs.jsonl", capsys)
    assert code == 1 and f"data/pairs.jsonl:{n + 1}: field 'b': is the same text as answer a" in err


def test_judge_scores_outside_1_to_5_and_other_rubric_scales_are_errors():
    from pydantic import ValidationError

    from assay.queue.items import JudgeOpinion
    from assay.queue.rubric import parse_rubric

    with pytest.raises(ValidationError):
        JudgeOpinion(scores={"a": {"correctness": 99}})
    with pytest.raises(ValidationError):
        JudgeOpinion(scores={"a": {"correctness": True}})
    assert JudgeOpinion(scores={"a": {"correctness": 5}}).scores == {"a": {"correctness": 5}}
    text = (ROOT / "data/rubric.yaml").read_text(encoding="utf-8")
    with pytest.raises(InputError, match="scale.max"):
        parse_rubric(text.replace("scale: {min: 1, max: 5}", "scale: {min: 1, max: 10}"))


def test_ir_eval_on_sealed_holdout_files_needs_the_flag_and_the_opening_and_logs_each_read(tmp_path, monkeypatch, capsys):
    from assay.study.evidence import ACCESS_LOG, EvidenceRoot
    from assay.study.opening import open_holdout

    root = tmp_path / "vault-7f3e2a"
    sealed = root / "sealed_holdout"
    (sealed / "runs").mkdir(parents=True)
    (sealed / "qrels.trec").write_text(QRELS)
    (sealed / "runs" / "hybrid.trec").write_text(RUN)
    args = ["ir-eval", str(sealed / "qrels.trec"), str(sealed / "runs" / "hybrid.trec")]
    monkeypatch.setenv("ASSAY_EVIDENCE_ROOT", str(root))
    capsys.readouterr()
    assert main(args) == 2  # no flag
    err = capsys.readouterr().err
    assert "--allow-sealed" in err and "$ASSAY_EVIDENCE_ROOT/sealed_holdout/qrels.trec" in err and str(root) not in err
    assert main(args + ["--allow-sealed"]) == 2  # not opened yet
    err = capsys.readouterr().err
    assert "has not been opened" in err and str(root) not in err and not (root / ACCESS_LOG).exists()
    open_holdout(EvidenceRoot(root), "CRD-01", "rc frozen", ROOT / "data/relevance/thresholds.yaml")
    assert main(args + ["--allow-sealed"]) == 0
    out = capsys.readouterr().out
    assert str(root) not in out and "$ASSAY_EVIDENCE_ROOT/sealed_holdout/runs/hybrid.trec: 1 queries scored" in out
    log = [json.loads(line) for line in (root / ACCESS_LOG).read_text().splitlines()]
    assert [(r["by"], r["file"]) for r in log[1:]] == [("ir-eval", "sealed_holdout/qrels.trec"),
                                                       ("ir-eval", "sealed_holdout/runs/hybrid.trec")]
    monkeypatch.delenv("ASSAY_EVIDENCE_ROOT")  # without the root nothing can be checked or logged
    assert main(args + ["--allow-sealed"]) == 2 and "outside the evidence root" in capsys.readouterr().err


def test_two_sources_whose_names_differ_only_by_case_collide(tmp_path):
    from assay.data.leakage.sources import SourceFolder

    (tmp_path / "forum.txt").write_text("a line\n")
    (tmp_path / "Forum.jsonl").write_text('{"question": "q?"}\n')
    with pytest.raises(InputError, match="also used by") as info:
        SourceFolder(tmp_path)
    assert "ignoring case" in str(info.value)
