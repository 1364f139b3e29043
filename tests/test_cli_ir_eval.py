"""`assay ir-eval`: exit codes and exact output."""

import json

from assay.cli import main

QRELS = "a 0 d1 2\na 0 d2 0\nb 0 d3 1\n"
RUN = "a Q0 d2 1 2.0 t\na Q0 d1 2 1.0 t\nx Q0 d1 1 1.0 t\n"


def files(tmp_path, run=RUN):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.trec").write_text(run)
    return str(tmp_path / "q.txt"), str(tmp_path / "r.trec")


def test_json_output(tmp_path, capsys):
    q, r = files(tmp_path)
    assert main(["ir-eval", q, r, "--measures", "RR@10,P@10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # query a: d2 (grade 0) then d1 (grade 2): RR = 1/2, P@10 = 1/10. b is missing, x unjudged.
    assert out["mean"] == {"RR@10": 0.5, "P@10": 0.1}
    assert out["per_query"] == {"a": {"RR@10": 0.5, "P@10": 0.1}}
    assert out["queries"] == {"scored": 1, "missing_from_run": ["b"], "not_in_qrels": ["x"],
                              "missing_scored_as_zero": False}
    assert "trec_eval -c" in out["note"]


def test_complete_scores_missing_queries_as_zero(tmp_path, capsys):
    q, r = files(tmp_path)
    assert main(["ir-eval", q, r, "--measures", "RR@10", "--complete"]) == 0
    assert capsys.readouterr().out == (f"{r}: 2 queries scored\nRR@10  0.2500\n"
                                       "1 qrels queries missing from the run, scored 0 (--complete): b\n"
                                       "1 run queries without judgments, ignored\n")


def test_duplicate_docno_is_one_clean_error(tmp_path, capsys):
    q, r = files(tmp_path, RUN + "a Q0 d1 3 0.5 t\n")
    assert main(["ir-eval", q, r]) == 1
    err = capsys.readouterr().err
    assert err == (f"assay ir-eval: {r}:4: field 'docno': 'd1' appears twice in query 'a' (first on line 2) "
                   "(fix: keep one line per document and query)\n")


def test_unknown_measure(tmp_path, capsys):
    q, r = files(tmp_path)
    assert main(["ir-eval", q, r, "--measures", "ndcg_cut_10"]) == 1
    assert "'ndcg_cut_10' is not a measure; use P@k" in capsys.readouterr().err
