"""`assay corpus build` (assay.relevance.builder), `assay corpus queries` (assay.relevance.case_queries) and the
project's Markdown corpus read as the retrieval corpus (assay.relevance.corpus)."""

from __future__ import annotations

import hashlib
import json
import unicodedata

import pytest

from assay.cli import main
from assay.core.errors import InputError
from assay.relevance.builder import Defaults, build_documents, text_id, write_corpus
from assay.relevance.case_queries import case_queries, write_case_queries
from assay.relevance.corpus import corpus_sha256, load_documents, load_queries, project_documents
from assay.relevance.trec import read_qrels
from conftest import case, write_jsonl


def _sources(root):
    (root / "a").mkdir(parents=True)
    (root / "a/reembolsos-v1.md").write_text("---\ntitle: Reembolsos\nlang: es\nupdated: 2024-01-01\n"
                                             "superseded_by: reembolsos-v2\n---\nLos reembolsos tardan 14 días.\n",
                                             encoding="utf-8")
    (root / "a/reembolsos-v2.md").write_text("---\nlang: es\nupdated: 2025-01-01\n---\n# Reembolsos 2025\n\n"
                                             "Los reembolsos tardan 10 días.\n", encoding="utf-8")
    (root / "rueckgabe.txt").write_text("Die Rückgabe dauert 30 Tage.\n", encoding="utf-8")
    write_jsonl(root / "more.jsonl", [{"text": "Le retour prend 30 jours.", "lang": "fr", "title": "Retour",
                                       "valid_from": "2023-06-01"},
                                      {"id": "faq-1", "text": "返品は30日以内です。", "lang": "ja", "kind": "note"}])
    return root


def test_ids_come_from_the_text_so_names_and_order_do_not_move_them(tmp_path):
    docs = build_documents([_sources(tmp_path / "src")], Defaults(lang="de", valid_from=_d("2024-05-01")))
    by_title = {d.title: d for d in docs}
    # by hand: "d-" + the first 12 hex digits of sha256 of the NFC text without its final newline
    expected = "d-" + hashlib.sha256(unicodedata.normalize("NFC", "Die Rückgabe dauert 30 Tage.").encode()).hexdigest()[:12]
    assert by_title["rueckgabe"].doc_id == expected == text_id("Die Rückgabe dauert 30 Tage.\n")
    assert by_title["rueckgabe"].lang == "de" and str(by_title["rueckgabe"].valid_from) == "2024-05-01"  # the defaults
    assert by_title["Retour"].lang == "fr" and str(by_title["Retour"].valid_from) == "2023-06-01"      # its own
    assert by_title["Reembolsos 2025"].lang == "es"  # the title from the first heading, no title in the header
    assert [d.doc_id for d in docs] == sorted(d.doc_id for d in docs) and "faq-1" in {d.doc_id for d in docs}
    old, new = by_title["Reembolsos"], by_title["Reembolsos 2025"]
    assert old.superseded_by == new.doc_id and old.family == new.family == new.doc_id and old.superseded
    # renamed files, another order of sources: the same corpus
    (tmp_path / "src/rueckgabe.txt").rename(tmp_path / "src/zz.txt")
    again = build_documents([tmp_path / "src/more.jsonl", tmp_path / "src/a", tmp_path / "src/zz.txt"],
                            Defaults(lang="de", valid_from=_d("2024-05-01")))
    assert [(d.doc_id, d.text) for d in again] == [(d.doc_id, d.text) for d in docs]


def _d(text):
    import datetime as dt

    return dt.date.fromisoformat(text)


def test_every_problem_is_named_by_file_line_and_field_at_once(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "x.md").write_text("---\ntitle: X\nupdated: 2024-01-01\nlang: english\n---\nBody.\n", encoding="utf-8")
    (src / "y.txt").write_text("Same text.\n", encoding="utf-8")
    (src / "z.txt").write_text("Same text.\n", encoding="utf-8")
    write_jsonl(src / "rows.jsonl", [{"text": "ok", "lang": "es", "valid_from": "2024-01-01", "superseded_by": "nope"},
                                     {"txt": "typo", "lang": "es"}])
    with pytest.raises(InputError) as info:
        build_documents([src], Defaults(valid_from=_d("2024-01-01")))
    said = str(info.value)
    assert f"{src / 'x.md'}:4: field 'lang': 'english' is not a BCP 47 language tag" in said  # the header's line
    assert f"{src / 'z.txt'}:1: field 'text': " in said and f"the same text as {src / 'y.txt'}:1" in said
    assert f"{src / 'rows.jsonl'}:2: field 'txt': unknown field; did you mean 'text'?" in said
    assert f"{src / 'rows.jsonl'}:1: field 'superseded_by': 'nope' names no document" in said
    assert f"{src / 'y.txt'}:1: field 'lang': the document gives no lang" in said and "--lang TAG" in said


def test_the_built_file_reads_back_as_the_study_corpus_and_the_command_refuses_paths_outside(tmp_path, monkeypatch, capsys):
    _sources(tmp_path / "docs")
    monkeypatch.chdir(tmp_path)
    assert main(["corpus", "build", "docs", "--out", "data/relevance/corpus.jsonl", "--lang", "de",
                 "--valid-from", "2024-05-01"]) == 0
    assert capsys.readouterr().out == "wrote data/relevance/corpus.jsonl: 5 document(s), 4 families, languages de, es, fr, ja\n"
    written = (tmp_path / "data/relevance/corpus.jsonl").read_text(encoding="utf-8")
    docs = load_documents("data/relevance/corpus.jsonl")
    assert len(docs) == 5 and {d.lang for d in docs} == {"de", "es", "fr", "ja"}
    write_corpus(docs, tmp_path / "again.jsonl")  # byte-stable: what it reads it writes the same
    assert (tmp_path / "again.jsonl").read_text(encoding="utf-8") == written
    assert main(["corpus", "build", "docs", "--out", "../out.jsonl", "--lang", "de", "--valid-from", "2024-05-01"]) == 1
    assert "'../out.jsonl' leads outside the repository" in capsys.readouterr().err
    assert not (tmp_path.parent / "out.jsonl").exists()
    assert main(["corpus", "build", "docs", "--out", "data/relevance/corpus.jsonl"]) == 1  # no --lang: nothing written
    assert (tmp_path / "data/relevance/corpus.jsonl").read_text(encoding="utf-8") == written


def test_the_projects_markdown_corpus_is_a_retrieval_corpus_with_families_by_superseded_by(tiny_corpus):
    docs = {d.doc_id: d for d in load_documents(str(tiny_corpus))}
    # tiny_corpus: doc-b is superseded by doc-a, so both are in doc-a's family, doc-b stale
    assert docs["doc-b"].family == docs["doc-a"].family == "doc-a" and docs["doc-b"].superseded
    assert not docs["doc-a"].superseded and str(docs["doc-b"].valid_from) == "2025-01-01" and docs["doc-a"].lang == "en"
    assert project_documents(str(tiny_corpus)) == list(docs.values())
    before = corpus_sha256(str(tiny_corpus))
    (tiny_corpus / "doc-a.md").write_text((tiny_corpus / "doc-a.md").read_text(encoding="utf-8") + "More.\n", encoding="utf-8")
    assert corpus_sha256(str(tiny_corpus)) != before  # an edit to a document moves the corpus hash (the modes re-run)


def test_queries_and_qrels_from_the_cases(tmp_path, tiny_corpus):
    cases = write_jsonl(tmp_path / "cases.jsonl", [
        case("c1"), case("c2", doc_ids=["doc-a", "doc-b"], facts=["14 days"]),
        case("c3", task="unanswerable", expect="abstain", doc_ids=[], facts=[], question="What is the CEO's salary?")])
    queries, qrels = case_queries(cases, tiny_corpus)
    assert [(q.query_id, q.task, q.acceptable_citation_ids) for q in queries] == [
        ("c1", "current", ("doc-a",)), ("c2", "current", ("doc-a", "doc-b")), ("c3", "abstain", ())]
    assert qrels == [("c1", "doc-a", 2), ("c2", "doc-a", 2), ("c2", "doc-b", 2)]
    assert write_case_queries(cases, tiny_corpus, tmp_path / "q.jsonl", tmp_path / "q.trec") == 3
    assert [q.query_id for q in load_queries(str(tmp_path / "q.jsonl"))] == ["c1", "c2", "c3"]
    table = read_qrels(tmp_path / "q.trec").table
    assert list(zip(table["qid"], table["docno"], table["grade"], strict=True)) == qrels
    lines = (tmp_path / "q.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[2]) == {"acceptable_citation_ids": [], "query_id": "c3", "task": "abstain",
                                    "text": "What is the CEO's salary?"}
    write_jsonl(cases, [case("c1", doc_ids=["doc-z"])])
    with pytest.raises(InputError, match="doc-z"):
        case_queries(cases, tiny_corpus)
