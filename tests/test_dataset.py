import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.data.corpus import load_corpus
from assay.data.cases import CaseRecord, coverage, dataset_hash, load_cases, parse_cases
from assay.core.errors import InputError

from conftest import ROOT, case, write_jsonl


def test_load_valid_cases(tmp_path, tiny_corpus):
    path = write_jsonl(tmp_path / "cases.jsonl", [case("g01"), case("g02", question="Is there a fee?")])
    cases = load_cases(path, load_corpus(tiny_corpus))
    assert [c.id for c in cases] == ["g01", "g02"]


def test_every_bad_row_is_reported_with_file_line_field_and_fix_in_one_run(tmp_path, tiny_corpus):
    path = tmp_path / "cases.jsonl"
    lines = [json.dumps(case("g01")), "{not json", json.dumps(case("g03", task="lookups")),
             json.dumps(case("g04", colour="red")), json.dumps(case("g01")), json.dumps(case("g06", doc_ids=["nope"])),
             json.dumps(case("g07", task="lookups", doc_ids=["gone"])), json.dumps(case("g07", question="  "))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_cases(path, load_corpus(tiny_corpus))
    # a line that is not JSON is one problem; every other row is still checked: schema, duplicate ids
    # and doc_ids (the last two also on rows with a schema error), all in line order
    assert str(err.value).splitlines() == [
        f"{path}:2: not valid JSON (Expecting property name enclosed in double quotes at column 2) "
        "(fix: write one JSON object per line)",
        f"{path}:3: field 'task': 'lookups' is not one of lookup, exact_term, paraphrase, multi_fact, unanswerable "
        "(fix: use one of lookup, exact_term, paraphrase, multi_fact, unanswerable)",
        f"{path}:4: field 'colour': unknown field (fix: remove it or use one of id, question, task, set, lang, expect, "
        "doc_ids, facts, why, group, expected_tools, forbidden_tools, permissions)",
        f"{path}:5: field 'id': duplicate id 'g01' (first on line 1) (fix: give every row a unique id)",
        f"{path}:6: field 'doc_ids': 'nope' is not a document in the corpus (fix: name a file in data/corpus/ without .md)",
        f"{path}:7: field 'task': 'lookups' is not one of lookup, exact_term, paraphrase, multi_fact, unanswerable "
        "(fix: use one of lookup, exact_term, paraphrase, multi_fact, unanswerable)",
        f"{path}:7: field 'doc_ids': 'gone' is not a document in the corpus (fix: name a file in data/corpus/ without .md)",
        f"{path}:8: field 'id': duplicate id 'g07' (first on line 7) (fix: give every row a unique id)",
        f"{path}:8: field 'question': is empty or only whitespace (fix: write the text, or remove the row)",
    ]


@pytest.mark.parametrize("field, value", [("question", "   "), ("question", "\t\n"), ("facts", ["14 days", " "]),
                                          ("id", " "), ("doc_ids", [""])])
def test_blank_text_is_refused(field, value):
    with pytest.raises(InputError) as err:
        parse_cases("x.jsonl", [(1, {**case("g01"), field: value})])
    assert "is empty or only whitespace" in str(err.value) and f"field '{field}" in str(err.value)


@pytest.mark.parametrize("text", ["", "\n", "\n  \n"])
def test_a_file_without_cases_is_refused(tmp_path, tiny_corpus, text):
    path = tmp_path / "cases.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_cases(path, load_corpus(tiny_corpus))
    assert str(err.value) == f"{path}: holds no cases (fix: add at least one case, one JSON object per line)"


def test_bad_bytes_deep_nesting_and_nan_are_one_problem_each(tmp_path, tiny_corpus):
    path = tmp_path / "cases.jsonl"
    good = json.dumps(case("g01")).encode()
    bad_utf8 = json.dumps(case("g02")).encode().replace(b"trial", b"tri\xffal", 1)
    deep = b"[" * 100_000 + b"]" * 100_000
    nan = json.dumps(case("g04")).encode()[:-1] + b', "score": NaN}'
    path.write_bytes(b"\n".join([good, bad_utf8, deep, nan, json.dumps(case("g05", lang="french")).encode()]) + b"\n")
    with pytest.raises(InputError) as err:
        load_cases(path, load_corpus(tiny_corpus))
    column = bad_utf8.index(b"\xff") + 1  # 1-based byte column of the bad byte within its line
    assert str(err.value).splitlines() == [
        f"{path}:2: not valid UTF-8: byte(s) ff at byte {column} of the line (invalid start byte) "
        "(fix: save the file as UTF-8 (for example `iconv -f latin1 -t utf-8`), or remove the byte)",
        f"{path}:3: not valid JSON here: nested too deeply to read (fix: write one JSON object per line)",
        f"{path}:4: NaN is not valid JSON (fix: write one JSON object per line)",
        f"{path}:5: field 'lang': 'french' is not a BCP 47 language tag (fix: write a language tag such as en, es, "
        "de, pt-BR, zh-Hans, ja, th, ar, hi (language, then optional script and region, joined by '-'))",
    ]


def test_consistency_rules():
    with pytest.raises(InputError, match="an answer case needs doc_ids and facts; an abstain case has neither"):
        parse_cases("x.jsonl", [(1, case("g01", facts=[]))])
    with pytest.raises(InputError, match="task unanswerable and expect abstain go together"):
        parse_cases("x.jsonl", [(1, case("g01", task="unanswerable"))])
    ok = parse_cases("x.jsonl", [(1, case("a01", task="unanswerable", expect="abstain", doc_ids=[], facts=[]))])
    assert ok[0].expect == "abstain"


def test_error_list_is_capped(tmp_path):
    rows = [(i, case(f"c{i}", set="gold")) for i in range(1, 31)]
    with pytest.raises(InputError) as err:
        parse_cases("x.jsonl", rows)
    text = str(err.value).splitlines()
    assert len(err.value.problems) == 30
    assert len(text) == 21 and text[-1] == "... and 10 more problem(s) not shown"


def test_coverage_counts_gaps_and_empty_cells():
    cases = parse_cases("x.jsonl", [(1, case("g01")), (2, case("g02")), (3, case("g03", set="adversarial"))])
    cov = coverage(cases)
    assert cov["matrix"]["lookup"] == {"golden": 2, "adversarial": 1, "production_like": 0}
    # 15 cells; only lookup x golden holds two, so 14 gaps, 13 of them empty
    assert len(cov["gaps"]) == 14 and len(cov["empty"]) == 13
    assert ("lookup", "adversarial", 1) in cov["gaps"]


ids = st.lists(st.from_regex(r"[a-z]{1,3}[0-9]{1,3}", fullmatch=True), min_size=1, max_size=25, unique=True)


def _cases(id_list):
    return [CaseRecord.model_validate(case(i)) for i in id_list]


@settings(max_examples=60, deadline=None)
@given(ids, st.randoms())
def test_hash_ignores_order(id_list, rnd):
    cases = _cases(id_list)
    shuffled = cases[:]
    rnd.shuffle(shuffled)
    assert dataset_hash(cases) == dataset_hash(shuffled)


@settings(max_examples=60, deadline=None)
@given(ids, st.data())
def test_hash_changes_on_any_edit(id_list, data):
    cases = _cases(id_list)
    before = dataset_hash(cases)
    k = data.draw(st.integers(0, len(cases) - 1))
    field = data.draw(st.sampled_from(["question", "why", "facts", "group", "lang"]))
    new = {"question": cases[k].question + "!", "why": cases[k].why + ".", "facts": cases[k].facts + ["x"],
           "group": "g", "lang": "bn"}[field]
    edited = cases[:k] + [cases[k].model_copy(update={field: new})] + cases[k + 1:]
    assert dataset_hash(edited) != before
    assert dataset_hash(cases[:k] + cases[k + 1:]) != before  # removing a case changes it too


# The demo's dataset hash (data/cases.jsonl, 194 cases), pinned so that a change of the canonical form,
# or an edit to the demo cases, is noticed. Derived twice, the same day: with the library,
#   python -c "from assay.data.cases import *; print(dataset_hash(load_cases('data/cases.jsonl')))"
# and with restated_dataset_hash below, which reads the raw JSON lines and never builds a CaseRecord.
# After an intended edit of the demo cases: recompute it both ways, update it here, and run `dvc repro`
# (reports/provenance/validate.json records the same value).
DEMO_DATASET_HASH = "f7b73613f42c0d1ce611212de82eb0ba2f27882e1da4f7416a2aacd4586958ab"
CASE_DEFAULTS = {"doc_ids": [], "facts": [], "group": None}  # the optional fields, as a record holds them (tool fields: only when written)


def restated_dataset_hash(path) -> str:
    """The documented algorithm, from the raw rows: SHA-256 of each case's JSON with every field (the
    optional ones at their defaults), keys sorted, no spaces, UTF-8 unescaped; the 32-byte digests
    sorted and hashed together."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    digests = sorted(hashlib.sha256(json.dumps({**CASE_DEFAULTS, **row}, sort_keys=True, ensure_ascii=False,
                                               separators=(",", ":")).encode("utf-8")).digest() for row in rows)
    return hashlib.sha256(b"".join(digests)).hexdigest()


def test_demo_dataset_hash_is_pinned():
    path = ROOT / "data" / "cases.jsonl"
    cases = load_cases(path)
    assert len(cases) == 194
    assert restated_dataset_hash(path) == DEMO_DATASET_HASH
    assert dataset_hash(cases) == DEMO_DATASET_HASH
    committed = json.loads((ROOT / "reports" / "provenance" / "validate.json").read_text(encoding="utf-8"))
    assert committed["details"]["dataset_hash"] == DEMO_DATASET_HASH


def test_empty_set_hash_is_the_hash_of_nothing():
    assert dataset_hash([]) == hashlib.sha256(b"").hexdigest()
