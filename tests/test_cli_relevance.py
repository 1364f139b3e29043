"""`assay study scan` and `assay study check`: exit codes, exact output, the evidence root never shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cli import build_parser, main
from assay.core.errors import InputError
from assay.study.evidence import ENV

D1, D2 = "doc-00000000a1", "doc-00000000b2"


def write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def packet(folder):
    return write(folder / "packet_A.jsonl", [{"query_id": "q-1", "query": "q", "document_id": d, "title": "t", "text": "x"}
                                             for d in (D1, D2)])


def test_relevance_is_an_alias_of_study_with_the_same_handlers(tmp_path, capsys, monkeypatch):
    choices = next(a for a in build_parser()._actions if a.dest == "command").choices
    assert choices["relevance"] is choices["study"]
    with pytest.raises(SystemExit):
        main(["relevance", "--help"])
    assert "`assay relevance ...` is an alias of `assay study ...`" in " ".join(capsys.readouterr().out.split())
    monkeypatch.delenv(ENV, raising=False)
    f = write(tmp_path / "notes.txt", ["mail ann@example.com"])
    outputs = []
    for name in ("study", "relevance"):
        assert main([name, "scan", str(f)]) == 1
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == f"{f}:1:6: email\n"


def judgment(d, **over):
    return {"query_id": "q-1", "document_id": d, "relevance": 1, "abstention_correct": False,
            "acceptable_citation_ids": [], "temporal_classification": "current", **over}


def test_every_subcommand_has_help_text():
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices["study"]
    group = next(a for a in sub._actions if a.dest == "study_command")
    assert set(group.choices) >= {"scan", "check"}
    for name, parser in group.choices.items():
        assert parser.description, name


def test_scan_clean_file_exits_0(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    f = write(tmp_path / "p.jsonl", ['{"text": "fee 500 BDT from 2024-03-01"}'])
    assert main(["study", "scan", str(f)]) == 0
    assert capsys.readouterr().out == "clean: 1 file(s), no hit\n"


def test_scan_hits_exit_1_with_file_line_column_kind(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    f = write(tmp_path / "p.jsonl", ['{"text": "clean"}', '{"text": "see https://x.example/a by the lexical mode"}'])
    assert main(["study", "scan", str(f)]) == 1
    out = capsys.readouterr()
    assert out.out == f"{f}:2:15: url\n{f}:2:42: mode\n"
    assert out.err == "2 hit(s) in 1 file(s): mode, url; de-identify before the packet leaves the coordinator\n"
    assert "https" not in out.out + out.err


def test_scan_shows_paths_under_the_root_without_its_value(tmp_path, capsys, monkeypatch):
    root = tmp_path / "vault-x9"
    f = write(root / "development" / "packet_A.jsonl", ['{"text": "mail ann@example.com"}'])
    monkeypatch.setenv(ENV, str(root))
    assert main(["study", "scan", str(f)]) == 1
    out = capsys.readouterr()
    assert out.out == f"${ENV}/development/packet_A.jsonl:1:16: email\n"
    assert "vault-x9" not in out.out + out.err
    monkeypatch.chdir(root)
    assert main(["study", "scan", "development"]) == 1
    assert capsys.readouterr().out == f"${ENV}/development/packet_A.jsonl:1:16: email\n"


def test_scan_missing_path_exits_2(tmp_path, capsys, monkeypatch):
    root = tmp_path / "vault-x9"
    monkeypatch.setenv(ENV, str(root))
    assert main(["study", "scan", str(root / "nothing")]) == 2
    err = capsys.readouterr().err
    assert err == f"assay study: study scan: ${ENV}/nothing does not exist (fix: check the path)\n"


def test_check_complete_exits_0(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    p = packet(tmp_path)
    j = write(tmp_path / "judgments_A.jsonl", [judgment(D1), judgment(D2)])
    assert main(["study", "check", str(j), "--packet", str(p)]) == 0
    assert capsys.readouterr().out == f"{j}: complete, 2 judgment(s) cover every pair of {p}\n"


@pytest.mark.parametrize("rows,expected", [
    ([judgment(D1)], "packet_A.jsonl:2: pair ('q-1', 'doc-00000000b2') has no judgment in"),
    ([judgment(D1), judgment(D2), judgment(D1)], "judgments_A.jsonl:3: field 'document_id': pair ('q-1', "
                                                 "'doc-00000000a1') already judged on line 1"),
    ([judgment(D1), judgment(D2), judgment("doc-00000000c3")], "judgments_A.jsonl:3: field 'document_id': pair "
                                                               "('q-1', 'doc-00000000c3') is not in the packet"),
    ([judgment(D1), judgment(D2, relevance=3)], "judgments_A.jsonl:2: field 'relevance': 3 is not one of 2, 1, 0, -1"),
    ([judgment(D1), judgment(D2, temporal_classification="stale")],
     "judgments_A.jsonl:2: field 'temporal_classification': 'stale' is not one of current, historical, conflicted, unknown"),
], ids=["missing", "repeated", "unknown", "relevance", "temporal"])
def test_check_each_fault_exits_1_incomplete(tmp_path, capsys, monkeypatch, rows, expected):
    root = tmp_path / "vault-x9"
    monkeypatch.setenv(ENV, str(root))
    p = packet(root / "development")
    j = write(root / "development" / "judgments_A.jsonl", rows)
    assert main(["study", "check", str(j), "--packet", str(p)]) == 1
    err = capsys.readouterr().err
    assert f"${ENV}/development/{expected}" in err
    assert err.rstrip().endswith(f"${ENV}/development/judgments_A.jsonl: incomplete: return the file to the annotator "
                                 "without reconciliation")
    assert "vault-x9" not in err


def test_check_missing_file_names_it_without_the_root(tmp_path, capsys, monkeypatch):
    root = tmp_path / "vault-x9"
    monkeypatch.setenv(ENV, str(root))
    p = packet(root / "development")
    assert main(["study", "check", str(root / "development" / "judgments_B.jsonl"), "--packet", str(p)]) == 1
    err = capsys.readouterr().err
    assert err == f"assay study: ${ENV}/development/judgments_B.jsonl: file not found (fix: check the path)\n"


def test_check_of_sealed_judgments_needs_the_flag_and_logs_the_read(tmp_path, capsys, monkeypatch):
    root = tmp_path / "vault-x9"
    monkeypatch.setenv(ENV, str(root))
    p = packet(root / "sealed_holdout")
    j = write(root / "sealed_holdout" / "judgments_A.jsonl", [judgment(D1), judgment(D2)])
    assert main(["study", "check", str(j), "--packet", str(p)]) == 2
    err = capsys.readouterr().err
    assert "--allow-sealed" in err and "vault-x9" not in err and not (root / "access.log").exists()
    assert main(["study", "check", str(j), "--packet", str(p), "--allow-sealed"]) == 0  # before the opening: allowed
    log = [json.loads(line) for line in (root / "access.log").read_text().splitlines()]
    assert [(r["by"], r["file"]) for r in log] == [("study check", "sealed_holdout/judgments_A.jsonl"),
                                                   ("study check", "sealed_holdout/packet_A.jsonl")]
    assert "vault-x9" not in capsys.readouterr().out


def test_scan_names_list_reports_a_planted_name(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "names.txt", ["# the study's customers", "", "Rahim Uddin", "  Nasrin Akter  "])
    f = write(tmp_path / "p.jsonl", ['{"text": "fee 500 BDT"}', '{"text": "Customer rahim   UDDIN of Mirpur asked"}'])
    assert main(["study", "scan", str(f)]) == 0  # without the list the name passes (no honorific)
    capsys.readouterr()
    assert main(["study", "scan", "--names", "names.txt", str(f)]) == 1
    out = capsys.readouterr()
    assert out.out == f"{f}:2:20: possible personal name\n"
    assert "Rahim" not in out.out + out.err and "rahim" not in out.out + out.err


def test_scan_names_list_outside_the_repository_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    write(tmp_path / "names.txt", ["Rahim Uddin"])
    f = write(repo / "p.jsonl", ['{"text": "x"}'])
    assert main(["study", "scan", "--names", "../names.txt", str(f)]) == 1  # an InputError, as for any bad input
    err = capsys.readouterr().err
    assert "--names" in err and "leads outside the repository" in err
    assert main(["study", "scan", "--names", "missing.txt", str(f)]) == 1
    assert "names list does not exist" in capsys.readouterr().err


def test_study_scan_step_reads_the_study_files_names_list(tmp_path, monkeypatch):
    from assay.study.evidence import EvidenceRoot
    from assay.study.protocol import load_study
    from assay.study.scan import ScanHits, scan_step

    monkeypatch.chdir(tmp_path)
    study_text = (Path(__file__).resolve().parents[1] / "data/relevance/study.yaml").read_text(encoding="utf-8")
    write(tmp_path / "names.txt", ["Rahim Uddin"])
    root = tmp_path / "ev"
    for split in ("development", "sealed_holdout"):
        for name in ("queries.jsonl", "packet_A.jsonl", "packet_B.jsonl"):
            write(root / split / name, ['{"text": "fee 500 BDT"}'])
    write(root / "development" / "packet_B.jsonl", ['{"text": "Rahim Uddin asked"}'])
    evidence = EvidenceRoot.from_env({ENV: str(root)})
    (tmp_path / "study.yaml").write_text(study_text, encoding="utf-8")
    assert scan_step(load_study(tmp_path / "study.yaml"), evidence, [])["hits"]["development/packet_B.jsonl"] == 0
    (tmp_path / "study.yaml").write_text(study_text + "names: names.txt\n", encoding="utf-8")
    with pytest.raises(ScanHits, match=r"development/packet_B.jsonl:1:11: possible personal name"):
        scan_step(load_study(tmp_path / "study.yaml"), evidence, [])
    (tmp_path / "study.yaml").write_text(study_text + "names: ../names.txt\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"names.*leads outside the repository"):
        load_study(tmp_path / "study.yaml")
