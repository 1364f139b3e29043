"""`lang` is any BCP 47 tag in cases, corpus and pairs; pair kinds are the project's own; stop words by language."""

from __future__ import annotations

import json

import pytest

from assay.core.errors import InputError
from assay.data.cases import coverage, load_cases
from assay.data.corpus import load_corpus
from assay.data.langtag import standard_tag
from assay.data.pairs import DEFAULT_KINDS, load_pairs, pair_kinds
from assay.data.stopwords import ENGLISH_STOP_WORDS, stop_words

from conftest import case, write_jsonl

FIX = ("(fix: write a language tag such as en, es, de, pt-BR, zh-Hans, ja, th, ar, hi (language, then optional script "
       "and region, joined by '-'))")


@pytest.mark.parametrize("tag", ["en", "bn", "es", "de", "pt-BR", "zh-Hans", "ja", "th", "ar", "hi", "sr-Latn-RS",
                                 "es-419", "de-CH-1996", "x-private", "en-US-x-help"])
def test_standard_tags_are_kept_as_written(tag):
    assert standard_tag(tag) == tag


@pytest.mark.parametrize(("written", "standard"), [
    ("pt-br", "pt-BR"), ("ZH-hans", "zh-Hans"), ("en_US", "en-US"),  # case and separator as RFC 5646 writes them
    ("iw", "he"), ("eng", "en"),  # a deprecated or three-letter code becomes the registered one
])
def test_other_spellings_become_the_standard_tag(written, standard):
    assert standard_tag(written) == standard


@pytest.mark.parametrize("bad", ["english", "spanish", "xx", "en--US", "e", "123", "", "  ", "en-", "zh-Hanx"])
def test_invalid_tags_are_refused(bad):
    assert standard_tag(bad) is None


def test_cases_take_any_language_and_name_a_bad_tag_by_line(tmp_path, tiny_corpus):
    path = write_jsonl(tmp_path / "cases.jsonl", [case("g01", lang="es"), case("g02", lang="pt-br"),
                                                  case("g03", lang="spanish"), case("g04", lang="zh-Hans")])
    with pytest.raises(InputError) as err:
        load_cases(path, load_corpus(tiny_corpus))
    assert str(err.value).splitlines() == [f"{path}:3: field 'lang': 'spanish' is not a BCP 47 language tag {FIX}"]
    path = write_jsonl(tmp_path / "cases.jsonl", [case("g01", lang="es"), case("g02", lang="pt-br"),
                                                  case("g03", lang="es"), case("g04", lang="zh-Hans")])
    cases = load_cases(path, load_corpus(tiny_corpus))
    assert [c.lang for c in cases] == ["es", "pt-BR", "es", "zh-Hans"]
    # the language slices are the data's: most cases first, ties by tag; no en or bn row at zero
    assert coverage(cases)["by_lang"] == {"es": 2, "pt-BR": 1, "zh-Hans": 1}


def test_a_corpus_document_with_a_bad_lang_names_file_and_field(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "doc-de.md").write_text("---\ntitle: Rückgabe\nlang: de\nupdated: 2026-01-01\n---\nRückgabe in 30 Tagen.\n",
                                      encoding="utf-8")
    assert load_corpus(folder)["doc-de"].lang == "de"
    (folder / "doc-x.md").write_text("---\ntitle: X\nlang: deutsch\nupdated: 2026-01-01\n---\nText.\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"doc-x.md:3: field 'lang': 'deutsch' is not a BCP 47 language tag"):
        load_corpus(folder)


def _pair(id: str, **over) -> dict:
    row = {"id": id, "case_question": "¿Plazo?", "facts": ["30 días"], "a": "30 días.", "b": "No sé.",
           "kind": "clear", "lang": "es", "ann1": "a", "ann2": "a", "final": "a"}
    return row | over


def test_pair_kinds_default_to_the_seeds_six_and_a_project_declares_its_own(tmp_path):
    pairs = write_jsonl(tmp_path / "pairs.jsonl", [_pair("p1"), _pair("p2", kind="refusal", lang="th")])
    with pytest.raises(InputError) as err:
        load_pairs(pairs)
    declared = ", ".join(DEFAULT_KINDS)
    assert str(err.value) == (f"{pairs}:2: field 'kind': 'refusal' is not a declared pair kind ({declared}) "
                              f"(fix: use one of {declared}, or add 'refusal' to agreement.kinds in params.yaml)")
    params = tmp_path / "params.yaml"
    params.write_text("agreement:\n  kinds: [clear, refusal]\n", encoding="utf-8")
    assert pair_kinds(params) == ("clear", "refusal")
    assert [(p.kind, p.lang) for p in load_pairs(pairs, pair_kinds(params))] == [("clear", "es"), ("refusal", "th")]
    params.write_text("agreement:\n  weights: null\n", encoding="utf-8")
    assert pair_kinds(params) == DEFAULT_KINDS  # unset: the seed's six
    params.write_text("agreement:\n  kinds: [tie, tie]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"field 'agreement.kinds': lists tie more than once \(fix: name each kind once\)"):
        pair_kinds(params)
    params.write_text("agreement:\n  kinds: []\n", encoding="utf-8")
    with pytest.raises(InputError, match="agreement.kinds"):
        pair_kinds(params)


def test_a_pair_with_a_bad_lang_is_named(tmp_path):
    pairs = write_jsonl(tmp_path / "pairs.jsonl", [_pair("p1", lang="xx")])
    with pytest.raises(InputError, match=r"pairs.jsonl:1: field 'lang': 'xx' is not a BCP 47 language tag"):
        load_pairs(pairs)


def test_stop_words_by_language_and_none_for_the_rest():
    assert stop_words("en") is ENGLISH_STOP_WORDS and stop_words("EN-gb") is ENGLISH_STOP_WORDS
    assert stop_words("es") == stop_words("bn") == stop_words("zh-Hans") == stop_words("") == frozenset()


def test_a_language_tag_survives_the_json_round_trip(tmp_path, tiny_corpus):
    path = write_jsonl(tmp_path / "cases.jsonl", [case("g01", lang="sr-Latn-RS")])
    (c,) = load_cases(path, load_corpus(tiny_corpus))
    assert json.loads(c.model_dump_json())["lang"] == "sr-Latn-RS"
