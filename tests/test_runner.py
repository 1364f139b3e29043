"""Per-case rules, hand-checked verdicts on the tiny corpus, determinism, summaries and params."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.stats.mean import mean_ci

from assay.data.corpus import load_corpus
from assay.data.cases import CaseRecord, load_cases
from assay.core.errors import InputError
from assay.core.io import write_parquet
from assay.core.params import load_section
from assay.rag.runner import (
    RagParams,
    check_source,
    VersionParams,
    parse_reply,
    results_table,
    run_version,
    score_case,
)
from assay.rag.systems import SystemOutput, reply_text

TINY = Path(__file__).parent / "fixtures" / "tiny_corpus"
BASELINE = VersionParams(chunking="paragraph", min_score=0.2, min_margin=0.0)
CANDIDATE = VersionParams(chunking="sentence", min_score=0.3, min_margin=0.05)


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(TINY / "corpus")


@pytest.fixture(scope="module")
def cases(corpus):
    return load_cases(TINY / "cases.jsonl", corpus)


@pytest.mark.parametrize("text, ok", [
    ('{"answer": "30 days", "citations": ["kb"], "abstained": false}', True),
    ('{"answer": "", "citations": [], "abstained": true}', True),
    ('{"answer": "30 days", "citations": ["kb"], "abstained": "false"}', False),  # a string is not a bool
    ('{"answer": "30 days", "citations": ["kb"], "abstained": false, "note": 1}', False),  # extra key
    ('{"answer": "30 days", "citations": "kb", "abstained": false}', False),  # citations not a list
    ('{"answer": "", "citations": ["kb"], "abstained": true}', False),  # abstains yet cites
    ('{"answer": "  ", "citations": [], "abstained": false}', False),  # answers nothing
    ('Here you go: {"answer": "30 days"}', False),  # prose around JSON
    ('["30 days"]', False),  # JSON, but not an object
])
def test_parse_reply_is_strict(text, ok):
    assert (parse_reply(text) is not None) is ok


def test_facts_are_matched_in_the_one_folded_form():
    from assay.data.tokens import fold

    assert fold("Thirty\u00a0 DAYS\n") == "thirty days"
    assert fold("Straße") == fold("STRASSE")  # casefold, not lower


# Hand-checked verdicts on the tiny corpus (4 documents, 6 cases), with the scores seen in
# test_retrieval's independent TF-IDF check:
#
# baseline (paragraph, min_score 0.2, min_margin 0):
#   t1 pass  top returns/0 (0.293, shares 'days', 'a') holds "30 days"; cites kb-returns.
#   t2 pass  top warranty/1 (0.305) holds "2 years" and "500 charge cycles"; margin 0.009 >= 0.
#   t3 pass  the Bangla paragraph is the only hit (0.693) and holds "১২০ টাকা".
#   t4 FAIL  'parcel arrive' shares no word with the shipping page; only returns/0 matches via 'a'
#            (0.291 >= 0.2), so the model copies the returns text: no "3 to 5 days" (recall 0).
#   t5 pass  no word of "Do you sell helmets?" is in the corpus: no hits, the system abstains.
#   t6 FAIL  unanswerable, but warranty/0 scores 0.429 on 'the', 'warranty': the model answers.
# candidate (sentence, min_score 0.3, min_margin 0.05; documents ranked by their best sentence):
#   t1 FAIL  kb-shipping's "Standard shipping takes 3 to 5 days." wins (0.346) over kb-returns (0.296),
#            margin 0.051 >= 0.05: wrong answer (no "30 days"), though kb-returns is in the top 3 (recall 1).
#   t2 pass  the two warranty sentences are close to each other (0.3025 vs 0.3019) but they are one
#            source; the next document (kb-shipping, 0.122) is 0.18 behind, so it answers with the
#            battery sentence, which holds "2 years" and "500 charge cycles".
#   t3 pass  "ঢাকার বাইরে ফি ১২০ টাকা।" (0.669) is the only document hit: margin is its score.
#   t4 FAIL  top 0.290 < 0.3: abstains on an answer case.
#   t5 pass  no hits, abstains.
#   t6 FAIL  kb-warranty scores 0.433, kb-shipping 0.260 (margin 0.173): answers an unanswerable case.
EXPECTED = {
    "baseline": {"t1": True, "t2": True, "t3": True, "t4": False, "t5": True, "t6": False},
    "candidate": {"t1": False, "t2": True, "t3": True, "t4": False, "t5": True, "t6": False},
}


@pytest.mark.parametrize("name, version", [("baseline", BASELINE), ("candidate", CANDIDATE)])
def test_hand_checked_verdicts(name, version, cases, corpus):
    results = {r.id: r for r in run_version(name, version, cases, corpus, k=3)}
    assert {i: r.passed for i, r in results.items()} == EXPECTED[name]
    assert all(r.format_ok for r in results.values())  # the reference system always keeps the contract


def test_candidate_family_columns(cases, corpus):
    r = {x.id: x for x in run_version("candidate", CANDIDATE, cases, corpus, k=3)}
    # t1: right document retrieved (recall 1), cited text is real (support True), wrong answer
    assert (r["t1"].recall_at_k, r["t1"].citation_support, r["t1"].answer_correct) == (1.0, True, False)
    # t2: two close sentences of one page are not a margin problem: it answers, cited and right
    assert (r["t2"].citation_support, r["t2"].answer_correct, r["t2"].guard) == (True, True, None)
    # t4: the gold document was never retrieved
    assert r["t4"].recall_at_k == 0.0 and r["t4"].guard == "min_score"
    # abstain cases: recall and answer_correct undefined, abstain_correct defined
    assert (r["t5"].recall_at_k, r["t5"].answer_correct, r["t5"].abstain_correct, r["t5"].citation_support) == (
        None, None, True, None)
    assert (r["t6"].abstain_correct, r["t6"].citation_support) == (False, True)


def _case(expect="answer", facts=("30 days",), doc_ids=("kb-returns",)):
    if expect == "abstain":
        return CaseRecord(id="c1", question="q?", task="unanswerable", set="golden", lang="en", expect="abstain",
                          why="rule check case")
    return CaseRecord(id="c1", question="q?", task="lookup", set="golden", lang="en", expect="answer",
                      doc_ids=list(doc_ids), facts=list(facts), why="rule check case")


def _out(answer="within 30 days", citations=("kb-returns",), abstained=False, retrieved=("kb-returns",), raw=None):
    text = raw if raw is not None else reply_text({"answer": answer, "citations": list(citations), "abstained": abstained})
    return SystemOutput("c1", text, None if retrieved is None else tuple(retrieved), 5.0)


@pytest.mark.parametrize("case, output, expected", [
    # fact present, cited doc retrieved and holds it -> everything true
    (_case(), _out(), dict(citation_support=True, answer_correct=True, passed=True, recall_at_k=1.0)),
    # case-insensitive fact match in the answer
    (_case(), _out(answer="WITHIN 30 DAYS"), dict(answer_correct=True, passed=True)),
    # cited a document that was not retrieved -> unsupported, so not passed though correct
    (_case(), _out(citations=("kb-warranty",)), dict(citation_support=False, answer_correct=True, passed=False)),
    # cited doc was retrieved but does not hold the stated fact "30 days"
    (_case(), _out(citations=("kb-warranty",), retrieved=("kb-warranty", "kb-returns")),
     dict(citation_support=False, passed=False)),
    # answers without citing anything
    (_case(), _out(citations=()), dict(citation_support=False, passed=False)),
    # abstains on an answer case: support undefined, answer wrong
    (_case(), _out(answer="", citations=(), abstained=True), dict(citation_support=None, answer_correct=False)),
    # one of two facts missing
    (_case(facts=("30 days", "full refund")), _out(), dict(answer_correct=False, passed=False)),
    # unparseable reply: format fails, nothing correct, support undefined, recall still measured
    (_case(), _out(raw="30 days, see kb-returns"), dict(format_ok=False, answer_correct=False,
                                                       citation_support=None, recall_at_k=1.0, passed=False)),
    # recall: one of two gold documents in the top k; undefined when retrieval is not reported
    (_case(doc_ids=("kb-returns", "kb-shipping")), _out(), dict(recall_at_k=0.5)),
    (_case(), _out(retrieved=None), dict(recall_at_k=None, citation_support=True, passed=True)),
    # abstain case: abstaining is correct; answering is not (its citations are still checked)
    (_case("abstain"), _out(answer="", citations=(), abstained=True),
     dict(abstain_correct=True, answer_correct=None, recall_at_k=None, citation_support=None, passed=True)),
    (_case("abstain"), _out(), dict(abstain_correct=False, citation_support=True, passed=False)),
])
def test_score_case_rules(corpus, case, output, expected):
    result = score_case(case, output, corpus, k=3)
    assert {key: getattr(result, key) for key in expected} == expected


def test_recall_uses_the_first_k_distinct_documents(corpus):
    out = _out(retrieved=("kb-warranty", "kb-warranty", "kb-shipping", "kb-returns"))
    assert score_case(_case(), out, corpus, k=2).recall_at_k == 0.0  # kb-returns is the 3rd distinct id
    assert score_case(_case(), out, corpus, k=3).recall_at_k == 1.0


def test_run_table_bytes_are_stable(tmp_path, cases, corpus):
    paths = []
    for i in range(2):
        results = run_version("candidate", CANDIDATE, list(reversed(cases)) if i else cases, corpus, k=3)
        paths.append(tmp_path / f"run{i}.parquet")
        write_parquet(paths[-1], results_table(results))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    import pyarrow.parquet as pq

    table = pq.read_table(paths[0])
    assert table.column("id").to_pylist() == sorted(c.id for c in cases)
    assert table.schema.field("citation_support").type == "bool"


def test_side_metrics_against_hand_counts(cases, corpus):
    from assay.rag.metrics import side_metrics

    table = results_table(run_version("candidate", CANDIDATE, cases, corpus, k=3)).to_pylist()
    s = side_metrics(table, "wilson")
    # passes: t2, t3, t5 -> 3/6; answer cases t1..t4 correct t2, t3 -> 2/4; abstain t5 yes, t6 no -> 1/2
    assert (s.n, s.pass_rate.value, s.answer_correct.value, s.abstain_correct.value) == (6, 0.5, 0.5, 0.5)
    # recall over answer cases: t1 1, t2 1, t3 1, t4 0 -> 3/4; citation support defined on the answered
    # cases t1, t2, t3, t6 (all true: t1 and t6 state no fact, so nothing they cite can be unsupported)
    assert (s.recall_at_k.value, s.citation_support.value) == (0.75, 1.0)
    assert [getattr(s, f).n for f in ("recall_at_k", "citation_support", "answer_correct", "abstain_correct",
                                      "format_ok")] == [4, 4, 4, 2, 6]
    assert (s.by_task["lookup"].value, s.by_task["lookup"].n) == (0.5, 2)  # t1 fail, t3 pass
    assert (s.by_task["exact_term"].value, s.by_task["exact_term"].n) == (None, 0)
    assert (s.by_lang["bn"].value, s.by_lang["bn"].n) == (1.0, 1)
    # latency p95 with numpy's linear rule over [20.15, 20.2, 20.1, 20.05, 20.0, 20.15]: sorted
    # 20.0 20.05 20.1 20.15 20.15 20.2, position 0.95 * 5 = 4.75 -> 20.15 + 0.75 * 0.05 = 20.1875
    assert s.latency_p95_ms.value == pytest.approx(20.1875, abs=1e-9)
    # Order-statistic bounds, B ~ Binomial(6, 0.95) values below the true p95: P(B <= 3) = 0.0022 and
    # P(B <= 4) = 0.0328, so the lower bound is the 4th smallest (20.15) with P(B >= 4) >= 0.975; an upper
    # bound would need P(B <= u - 1) >= 0.975, i.e. u = 7 > 6 values: none exists.
    assert (s.latency_p95_ms.ci_low, s.latency_p95_ms.ci_high) == (20.15, None)
    # recall over [1, 1, 1, 0]: the betting interval in [0, 1] (assay.stats.mean, checked by hand in
    # tests/test_mean.py); the t interval, 0.75 -/+ 3.1824 * 0.25, would reach below 0
    assert (s.recall_at_k.ci_low, s.recall_at_k.ci_high) == mean_ci([1.0, 1.0, 1.0, 0.0], bounds=(0.0, 1.0))
    assert 0 < s.recall_at_k.ci_low < 0.75 and s.recall_at_k.ci_high == 1.0


def test_twenty_of_twenty_has_a_lower_bound_well_below_one():
    from assay.rag.metrics import rate

    e = rate([True] * 20, "wilson")
    # Wilson with z = 1.96: (1 + z^2/40 - z sqrt(z^2/1600)) / (1 + z^2/20) = 20 / (20 + z^2) = 0.8389
    assert e.ci_low == pytest.approx(20 / (20 + 1.959963984540054 ** 2)) and e.ci_high == pytest.approx(1.0)
    cp = rate([True] * 20, "clopper-pearson")
    assert cp.ci_low == pytest.approx(0.025 ** (1 / 20))  # exact: the lower bound solves p^20 = 0.025


def test_every_case_goes_to_its_side(cases, corpus):
    from assay.rag.version_figures import version_metrics

    table = results_table(run_version("baseline", BASELINE, cases, corpus, k=3)).to_pylist()
    sides = {r["id"]: ("holdout" if r["id"] in ("t1", "t2") else "dev") for r in table}
    m = version_metrics(table, sides, "wilson")
    assert (m.n, m.dev.n, m.holdout.n) == (6, 4, 2)
    with pytest.raises(KeyError):
        version_metrics(table, {"t1": "dev"}, "wilson")


def test_version_params_validation(tmp_path):
    (tmp_path / "params.yaml").write_text(
        "rag:\n  k: 3\n  versions:\n    v1: {system: answers_file}\n    v2: {chunking: token}\n    v3: {min_scor: 0.2}\n"
        "    v4: {system: callable, callable: 'm:f', min_score: 0.3}\n",
        encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_section("rag", RagParams, tmp_path / "params.yaml")
    p = tmp_path / "params.yaml"
    assert str(error.value) == "\n".join([
        f"{p}: field 'rag.versions.v1': 'answers' is required with system answers_file and only used there "
        "(fix: make the row consistent as described)",
        f"{p}: field 'rag.versions.v2.chunking': 'token' is not one of paragraph, sentence (fix: use one of paragraph, sentence)",
        f"{p}: field 'rag.versions.v3.min_scor': unknown field; did you mean 'min_score'? (fix: rename it to 'min_score' "
        "(known: system, chunking, min_score, min_margin, tool_permissions, answers, callable, url, shape, model, "
        "api_key_env, settings, concurrency, timeout_s, retries, retry_on, max_failed_share, repeats, source))",
        f"{p}: field 'rag.versions.v4': min_score: only used by system reference, not callable "
        "(fix: make the row consistent as described)",
    ])


def test_unknown_version_names_the_known_ones():
    params = RagParams(versions={"baseline": BASELINE.model_copy(update={"source": "s.py"}),
                                 "candidate": CANDIDATE.model_copy(update={"source": "s.py"})})
    with pytest.raises(InputError, match="'cand' is not a version; known: baseline, candidate"):
        params.version("cand")


def test_answers_file_version_end_to_end(tmp_path, cases, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the answers file is a params path: it must lie inside the repository (cwd)
    # precomputed replies: t1 right and supported; t2 right but cites a document it did not retrieve;
    # t3 a broken reply; t4 abstains; t5 abstains (correct); t6 answers (wrong for an abstain case)
    def row(case_id, answer, citations, abstained, retrieved):
        return {"case_id": case_id, "answer": answer, "citations": citations, "abstained": abstained,
                "retrieved": retrieved, "latency_ms": 900}
    rows = [row("t1", "Within 30 days.", ["kb-returns"], False, ["kb-returns"]),
            row("t2", "2 years or 500 charge cycles", ["kb-warranty"], False, ["kb-returns"]),
            {"case_id": "t3", "raw": "১২০ টাকা", "retrieved": ["kb-fees-bn"], "latency_ms": 900},
            row("t4", "", [], True, []), row("t5", "", [], True, []),
            row("t6", "Chargers: 2 years", ["kb-warranty"], False, ["kb-warranty"])]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    version = VersionParams(system="answers_file", answers=str(path))
    r = {x.id: x for x in run_version("mine", version, cases, corpus, k=3)}
    assert {i: x.passed for i, x in r.items()} == {"t1": True, "t2": False, "t3": False, "t4": False, "t5": True,
                                                   "t6": False}
    assert (r["t2"].answer_correct, r["t2"].citation_support, r["t2"].recall_at_k) == (True, False, 0.0)
    assert (r["t3"].format_ok, r["t3"].recall_at_k, r["t3"].citation_support) == (False, 1.0, None)
    assert r["t1"].latency_ms == 900.0 and version.identity() == {"system": "answers_file", "answers": str(path)}


def test_every_version_names_its_source_with_a_suggestion(tmp_path):
    (tmp_path / "params.yaml").write_text(
        "rag:\n  versions:\n    base: {system: reference}\n    mine: {system: answers_file, answers: out/a.jsonl}\n"
        "    fn: {system: callable, callable: 'pkg.mod:answer'}\n    ok: {system: reference, source: x.py}\n",
        encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_section("rag", RagParams, tmp_path / "params.yaml")
    assert str(error.value) == (
        f"{tmp_path / 'params.yaml'}: field 'rag': every version names its 'source', the file DVC re-runs "
        "evaluate@<version> on; missing for base (source: src/assay/rag/systems.py), mine (source: out/a.jsonl), "
        "fn (source: pkg/mod.py) (fix: make the row consistent as described)")


def test_check_source_needs_the_answers_file_or_a_folder_holding_it(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a.jsonl").write_text("{}\n", encoding="utf-8")
    (tmp_path / "other.jsonl").write_text("{}\n", encoding="utf-8")
    for source in ("out/a.jsonl", "out", "."):
        check_source("mine", VersionParams(system="answers_file", answers="out/a.jsonl", source=source), tmp_path)
    with pytest.raises(InputError) as error:
        check_source("mine", VersionParams(system="answers_file", answers="out/a.jsonl", source="other.jsonl"), tmp_path)
    assert str(error.value) == (
        "params.yaml: field 'rag.versions.mine.source': 'other.jsonl' does not hold out/a.jsonl, where this version's "
        "answers come from, so editing it would not re-run evaluate@mine (fix: set it to 'out/a.jsonl' (or a folder "
        "holding it))")
    with pytest.raises(InputError, match="'gone.jsonl' does not exist \\(fix: set it to 'out/a.jsonl'"):
        check_source("mine", VersionParams(system="answers_file", answers="out/a.jsonl", source="gone.jsonl"), tmp_path)


def test_check_source_needs_the_callable_module_when_it_lives_in_the_repository(tmp_path, monkeypatch):
    package = tmp_path / "srcpkg_issue10"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "mod.py").write_text("def answer(request):\n    return 'x'\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("n\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = "srcpkg_issue10.mod:answer"
    for source in ("srcpkg_issue10/mod.py", "srcpkg_issue10"):
        check_source("fn", VersionParams(system="callable", callable=spec, source=source), tmp_path)
    with pytest.raises(InputError, match="'notes.txt' does not hold srcpkg_issue10/mod.py"):
        check_source("fn", VersionParams(system="callable", callable=spec, source="notes.txt"), tmp_path)
    # a module installed outside the repository cannot be a DVC dependency: only the path's existence is checked
    check_source("fn", VersionParams(system="callable", callable="json:dumps", source="notes.txt"), tmp_path)


@pytest.mark.parametrize("name, version", [("baseline", BASELINE), ("candidate", CANDIDATE)])
def test_run_table_bytes_are_the_same_for_every_block_size(tmp_path, name, version):
    from conftest import ROOT

    corpus = load_corpus(ROOT / "data" / "corpus")
    cases = load_cases(ROOT / "data" / "cases.jsonl", corpus)
    paths = []
    for block_mb in (1e-9, 0.05, RagParams().block_mb):  # a question at a time, a few dozen, all at once
        paths.append(tmp_path / f"run_{block_mb}.parquet")
        write_parquet(paths[-1], results_table(run_version(name, version, cases, corpus, k=3, block_mb=block_mb)))
    assert paths[0].read_bytes() == paths[1].read_bytes() == paths[2].read_bytes()


def test_block_mb_must_be_a_positive_number():
    assert RagParams().block_mb == 64.0
    for bad in (0, -1, float("nan"), "lots"):
        with pytest.raises(ValueError, match="block_mb"):
            RagParams.model_validate({"block_mb": bad})
