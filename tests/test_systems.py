"""The reference system's guards and latency, and both plug-ins with good and bad inputs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from assay.data.corpus import load_corpus
from assay.data.cases import CaseRecord, load_cases
from assay.core.errors import InputError
from assay.rag.retrieval import Hit
from assay.core.plugins import PluginError, load_callable
from assay.rag.called import CallableSystem
from assay.rag.systems import AnswersFileSystem, CopyTopChunkModel, ReferenceSystem, SystemRequest

TINY = Path(__file__).parent / "fixtures" / "tiny_corpus"


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(TINY / "corpus")


@pytest.fixture(scope="module")
def cases():
    return load_cases(TINY / "cases.jsonl")


def _hits(*scores):
    return [Hit(f"d{i}", 0, f"text {i}", s) for i, s in enumerate(scores)]


def test_model_copies_the_top_chunk_and_never_abstains():
    reply = json.loads(CopyTopChunkModel().reply("q?", _hits(0.1, 0.05)))
    assert reply == {"answer": "text 0", "citations": ["d0"], "abstained": False}


@pytest.mark.parametrize("scores, guard", [
    ((), "no_hits"),
    ((0.19,), "min_score"),           # top below min_score 0.2
    ((0.5, 0.46), "min_margin"),      # margin 0.04 < 0.05
    ((0.5, 0.45), None),              # margin 0.05 is not below 0.05: answers
    ((0.3,), None),                   # one hit: margin is the score itself (second counts as 0)
])
def test_guards_in_order(corpus, scores, guard):
    system = ReferenceSystem(corpus, "paragraph", min_score=0.2, min_margin=0.05)
    assert system.guard(_hits(*scores))[2] == guard


def test_reference_latency_is_synthetic_and_deterministic(corpus, cases):
    out = {o.case_id: o for o in ReferenceSystem(corpus, "paragraph", 0.2, 0.0).run(cases, k=3)}
    # t5 shares no word with any chunk: 20 ms base + 0 chunks; t3 (Bangla) matches 1 paragraph: 20 + 0.05
    assert out["t5"].latency_ms == 20.0 and out["t5"].guard == "no_hits"
    assert out["t3"].latency_ms == 20.05
    assert json.loads(out["t5"].reply) == {"answer": "", "citations": [], "abstained": True}


# --- answers file -------------------------------------------------------------------------------

def _write(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def _row(case_id, **extra):
    row = {"case_id": case_id, "answer": "x", "citations": ["kb-returns"], "abstained": False,
           "retrieved": ["kb-returns"], "latency_ms": 120}
    row.update(extra)
    return row


def test_answers_file_good(tmp_path, cases):
    rows = [_row(c.id) for c in cases]
    rows[0] = {"case_id": "t1", "raw": "not json", "retrieved": [], "latency_ms": None}
    outputs = AnswersFileSystem(_write(tmp_path / "a.jsonl", rows)).run(cases, k=3)
    assert [o.case_id for o in outputs] == [c.id for c in cases]
    assert outputs[0].reply == "not json" and outputs[0].latency_ms is None
    assert json.loads(outputs[1].reply) == {"abstained": False, "answer": "x", "citations": ["kb-returns"]}
    assert outputs[1].retrieved == ("kb-returns",) and outputs[1].latency_ms == 120.0


def test_answers_file_bad_rows_name_file_line_field(tmp_path, cases):
    rows = [_row("t1", abstained="false"), _row("t2", citations="kb-returns"), _row("t3"), _row("t3"), "{oops"]
    path = _write(tmp_path / "a.jsonl", rows)
    with pytest.raises(InputError) as error:  # the unparseable line fails first, alone
        AnswersFileSystem(path)
    assert str(error.value) == f"{path}:5: not valid JSON (Expecting property name enclosed in double quotes at column 2) (fix: write one JSON object per line)"
    path = _write(tmp_path / "a.jsonl", rows[:4])
    with pytest.raises(InputError) as error:
        AnswersFileSystem(path)
    assert str(error.value) == "\n".join([
        f"{path}:1: field 'abstained': 'false' is not valid: input should be a valid boolean (fix: give a value of the right type)",
        f"{path}:2: field 'citations': 'kb-returns' is not valid: input should be a valid list (fix: give a value of the right type)",
        f"{path}:4: field 'case_id': duplicate case_id 't3' (first on line 3) (fix: give every row a unique case_id)",
    ])


def test_answers_file_missing_and_unknown_case_ids(tmp_path, cases):
    path = _write(tmp_path / "a.jsonl", [_row("t1"), _row("t2"), _row("zz9")])
    with pytest.raises(InputError) as error:
        AnswersFileSystem(path).run(cases, k=3)
    assert str(error.value) == "\n".join([
        f"{path}:3: field 'case_id': 'zz9' is not a case in the evaluated set (fix: remove the row or fix the id)",
        f"{path}: field 'case_id': no row for 4 case(s): t3, t4, t5, t6 (fix: add one row per case of data/cases.jsonl)",
    ])


def test_answers_file_needs_a_reply(tmp_path):
    path = _write(tmp_path / "a.jsonl", [{"case_id": "t1", "retrieved": []}])
    with pytest.raises(InputError, match=r"a.jsonl:1: give answer, citations and abstained \(or raw, the reply text\)"):
        AnswersFileSystem(path)


# --- callable -----------------------------------------------------------------------------------

@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    (tmp_path / "myrag_plugin.py").write_text(
        "def answer(request):\n"
        "    doc = sorted(request.corpus)[0]\n"
        "    return {'answer': request.question.upper(), 'citations': [doc], 'abstained': False,\n"
        "            'retrieved': [doc], 'latency_ms': 3}\n"
        "def text(request):\n"
        "    return 'plain text'\n"
        "def broken(request):\n"
        "    raise KeyError(request.case_id)\n"
        "def number(request):\n"
        "    return 42\n"
        "NOT_A_FUNCTION = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("myrag_plugin", None)


def test_callable_good(plugin_dir, corpus, cases):
    out = CallableSystem("myrag_plugin:answer", corpus).run(cases[:2], k=3)
    seen = [json.loads(o.reply) for o in out]
    assert seen[0] == {"abstained": False, "answer": cases[0].question.upper(), "citations": ["kb-fees-bn"]}
    assert out[0].retrieved == ("kb-fees-bn",) and out[0].latency_ms == 3.0
    text = CallableSystem("myrag_plugin:text", corpus).run(cases[:1], k=3)[0]
    assert text.reply == "plain text" and text.retrieved is None and text.latency_ms is None


def test_callable_request_object(corpus):
    request = SystemRequest("t1", "q?", "en", 3, corpus)
    assert "corpus" not in repr(request)  # the corpus is not dumped into logs


@pytest.mark.parametrize("spec, message", [
    ("no_colon", "rag.versions.mine.callable: 'no_colon' is not of the form 'module:function' (fix: set it to "
                 "'package.module:function' for a module importable from the repository root or PYTHONPATH)"),
    ("nosuch_module_xyz:answer", "rag.versions.mine.callable: module 'nosuch_module_xyz' could not be imported "
                                 "(ModuleNotFoundError: No module named 'nosuch_module_xyz') (fix: set it to "
                                 "'package.module:function' for a module importable from the repository root or PYTHONPATH)"),
    ("myrag_plugin:missing", "rag.versions.mine.callable: module 'myrag_plugin' has no attribute 'missing' (fix: set it "
                             "to 'package.module:function' for a module importable from the repository root or PYTHONPATH)"),
    ("myrag_plugin:NOT_A_FUNCTION", "rag.versions.mine.callable: 'myrag_plugin:NOT_A_FUNCTION' is a int, not a function "
                                    "(fix: set it to 'package.module:function' for a module importable from the "
                                    "repository root or PYTHONPATH)"),
])
def test_callable_load_errors(plugin_dir, spec, message):
    with pytest.raises(PluginError) as error:
        load_callable(spec, "rag.versions.mine.callable")
    assert str(error.value) == message


def test_callable_runtime_errors(plugin_dir, corpus, cases):
    with pytest.raises(PluginError) as error:
        CallableSystem("myrag_plugin:broken", corpus, param="p").run(cases[:1], k=3)
    message = str(error.value)
    assert message.startswith("p: myrag_plugin:broken failed on 1 of 1 case(s) ('t1'); max_failed_share 0 allows 0. "
                              "First, case 't1': raised KeyError: 't1'\nTraceback (most recent call last):\n")
    # the team's own frame is shown, assay's are not
    assert 'myrag_plugin.py", line 8, in broken\n    raise KeyError(request.case_id)\nKeyError: \'t1\'' in message
    assert "assay/rag" not in message and message.endswith(
        "(fix: handle the question in your system or return an abstaining reply; to score failures as failed "
        "replies instead, raise p.max_failed_share)")
    with pytest.raises(PluginError) as error:
        CallableSystem("myrag_plugin:number", corpus, param="p").run(cases[:1], k=3)
    assert str(error.value) == ("p: myrag_plugin:number on case 't1' returned int (fix: return a dict with answer, "
                                "citations, abstained, or the reply text as a str)")


def test_margin_is_between_documents_not_sentences_of_one_page():
    from assay.data.corpus import Document

    def doc(i, text):
        return Document(id=i, title=i, lang="en", updated="2026-01-01", text=text)

    # two pages give different refund windows for the same words: an ambiguity about the source
    rival = {"kb-a": doc("kb-a", "Refunds take 30 days."), "kb-b": doc("kb-b", "Refunds take 60 days.")}
    out = ReferenceSystem(rival, "sentence", min_score=0.1, min_margin=0.05).run(
        [CaseRecord(id="c", question="How many days do refunds take?", task="lookup", set="golden", lang="en",
                    expect="answer", doc_ids=["kb-a"], facts=["30 days"], why="two rival pages")], k=3)[0]
    assert out.guard == "min_margin" and out.margin == 0.0 and out.retrieved == ("kb-a", "kb-b")
    # the same two sentences on one page are one source: the margin is against the next page (none here)
    one = {"kb-a": doc("kb-a", "Refunds take 30 days. Refunds take 60 days.")}
    out = ReferenceSystem(one, "sentence", min_score=0.1, min_margin=0.05).run(
        [CaseRecord(id="c", question="How many days do refunds take?", task="lookup", set="golden", lang="en",
                    expect="answer", doc_ids=["kb-a"], facts=["30 days"], why="one page, two sentences")], k=3)[0]
    assert out.guard is None and out.margin == out.top_score
