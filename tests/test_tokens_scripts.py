"""assay.data.tokens on every kind of script: spaced (Latin with diacritics, Arabic, Devanagari, Bangla)
and unspaced (Chinese, Japanese, Thai); the one fact-matching form (NFKC + case folding); the mark table.

Every expected token list is hand-checked: the comment beside it says how it was derived.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from assay.data.leakage.tokens import build_vocabulary, jaccard, words
from assay.data.tokens import fact_in, fold, normal_form, split_run, tokens
from assay.data.tokens import words as relevance_words
from assay.data.unicode_classes import MARKS, mark_ranges
from assay.judge.fake import fact_share, n_words
from assay.relevance.modes.text import content_words


@pytest.mark.parametrize(("text", "expected"), [
    # Latin with diacritics: each blank- or punctuation-separated word whole, ¿ and ? dropped
    ("¿Cuánto cuesta el envío?", ["Cuánto", "cuesta", "el", "envío"]),
    # German: ß and umlauts are letters (\w); the hyphen splits the compound
    ("Größe der Über-Weisung", ["Größe", "der", "Über", "Weisung"]),
    # decomposed é (e + U+0301 COMBINING ACUTE) stays inside the word: the mark is a word character now
    ("cafe\u0301 ouvert", ["cafe\u0301", "ouvert"]),
    # Arabic with harakat (fatha U+064E, sukun U+0652): two words split at the blank; ؟ ends the second
    ("مَكْتَبَة الجامعة؟", ["مَكْتَبَة", "الجامعة"]),
    # Devanagari: vowel signs (ि U+093F, ा U+093E, ी U+0940), nukta (़ U+093C) and virama inside words; । ends one
    ("किताब की क़ीमत क्या है।", ["किताब", "की", "क़ीमत", "क्या", "है"]),
    # Bangla: as before this change (vowel signs and ্ inside; । ends a word)
    ("মোডেম ফেরত দিন। বিক্রি", ["মোডেম", "ফেরত", "দিন", "বিক্রি"]),
    # Chinese: 退货期限 -> 退货 货期 期限 (overlapping bigrams); ？ ends the run
    ("退货期限？", ["退货", "货期", "期限"]),
    # Japanese kana + kanji, one unspaced run of 6 characters -> 5 bigrams: 返品 品は は何 何日 日で
    ("返品は何日で", ["返品", "品は", "は何", "何日", "日で"]),
    # Thai: ค่า (ค + mai ek U+0E48) is one character with its tone mark; ค่าส่ง -> characters ค่ า ส่ ง
    # -> bigrams ค่า, าส่, ส่ง (a mark never starts or splits a bigram)
    ("ค่าส่ง", ["ค่า", "าส่", "ส่ง"]),
    # a lone unspaced character is its own token; Latin and digits beside it stay whole
    ("iPhone15を 猫 5G", ["iPhone15", "を", "猫", "5G"]),
])
def test_tokens_by_script(text, expected):
    assert tokens(text) == expected


def test_every_combining_mark_of_this_python_is_in_the_table():
    """MARKS equals unicodedata's Mn/Mc/Me: regenerate it with mark_ranges() after a Unicode upgrade."""
    table = {c for c in range(0x110000) if re.fullmatch(f"[{MARKS}]", chr(c))}
    computed = {c for c in range(0x110000) if unicodedata.category(chr(c)) in ("Mn", "Mc", "Me")}
    assert table == computed, f"Unicode {unicodedata.unidata_version}: paste mark_ranges() into MARKS"
    assert mark_ranges().startswith("\\u0300-\\u036f")  # combining diacritical marks, the first block


def test_split_run_leaves_spaced_runs_alone_and_bigrams_unspaced_parts():
    assert split_run("router") == ["router"]
    assert split_run("東京都庁") == ["東京", "京都", "都庁"]  # 4 characters -> 3 bigrams
    assert split_run("a東") == ["a", "東"]


@pytest.mark.parametrize(("fact", "text"), [
    ("30 días", "Tiene 30 DÍAS para devolverlo."),  # case folding of an accented capital
    ("Straße", "STRASSE 5"),  # ß folds to ss
    ("３０日", "返品は30日以内です"),  # full-width digits are the ASCII digits under NFKC
    ("café", "Cafe\u0301 ouvert"),  # composed vs decomposed é: NFKC composes
    ("ﬁbre", "Home FIBRE plan"),  # the ﬁ ligature is f + i under NFKC
    ("30   days", "within 30 days\n"),  # blank runs are one space
])
def test_facts_match_after_nfkc_and_case_folding(fact, text):
    assert fact_in(fact, text)
    assert fact_share(text, [fact]) == 1.0  # the fake judge uses the same rule
    assert fold(fact) in fold(text)


def test_fold_and_normal_form():
    assert fold("  ＡＢＣ\u00a0 Ç ") == "abc ç"
    assert normal_form("ＡＢ\nC") == "ab\nc"  # blanks kept: the leakage join relies on its newlines
    assert fact_in("", "anything") and not fact_in("31 días", "30 días")


def test_leakage_word_sets_and_their_encoding_agree_on_every_script():
    texts = ["¿Cuánto cuesta el envío a Canarias?", "退货期限是多少天？", "返品は何日以内ですか", "ค่าส่งเท่าไร",
             "किताब की क़ीमत क्या है", "ما هي مدة الإرجاع؟", "How do I return a router?", ""]
    vocab, enc = build_vocabulary(texts)
    inverse = {i: w for w, i in vocab.items()}
    for r, text in enumerate(texts):
        assert {inverse[i] for i in enc.ids[enc.indptr[r]:enc.indptr[r + 1]]} == words(text)
    # hand-checked: 退货期限是多少天 -> 退货 货期 期限 限是 是多 多少 少天 (7); 退货期限是几天 -> 退货 货期 期限 限是 是几
    # 几天 (6); shared 4, union 9
    assert jaccard("退货期限是多少天", "退货期限是几天") == pytest.approx(4 / 9)


def test_relevance_words_and_tfidf_see_the_same_tokens():
    text = "退货 Policy für Größe"
    analyzer = TfidfVectorizer(preprocessor=normal_form, tokenizer=tokens, token_pattern=None, lowercase=False).build_analyzer()
    assert analyzer(text) == ["退货", "policy", "für", "grösse"]  # casefold: ß -> ss
    assert relevance_words("a 猫 Größe") == ["猫", "grösse"]  # 'a' is one character of a spaced script: dropped
    assert content_words("what is 路由器") == ["路由", "由器"]  # English stop words go, the bigrams stay


def test_word_counts_of_unspaced_text():
    # 退货期限是多少天 is 8 characters -> 7 bigrams; "返品は 30 日以内": 返品は -> 2, 30 -> 1, 日以内 -> 2
    assert n_words("退货期限是多少天") == 7 and n_words("返品は 30 日以内") == 5
    assert n_words("one two  three\nfour") == 4  # spaced text: blank-separated, as before
