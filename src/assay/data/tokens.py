"""Words in case, corpus and source text: the one token pattern every word-level comparison uses.

A word is a run of word characters (``\\w``) or characters of the Bengali block (U+0980 to U+09FF).
The block is listed because Bangla vowel signs and the virama are not ``\\w``: the bare ``\\w+``
pattern would cut ``বিক্রি`` into pieces. The danda ``।`` (U+0964) is in the Devanagari block, so
it ends a word like a full stop. Lower-casing is the caller's choice.

The leakage detector's word sets (:mod:`assay.data.leakage.tokens`) and the RAG retriever's TF-IDF
(:mod:`assay.rag.retrieval`) both use it, so both see the same words.

>>> TOKEN.findall("ফেরতের নিয়ম কী? 30 days।")
['ফেরতের', 'নিয়ম', 'কী', '30', 'days']
"""

from __future__ import annotations

import re

#: The pattern as a string, for libraries that compile their own (scikit-learn's ``token_pattern``).
TOKEN_PATTERN = r"[\w\u0980-\u09ff]+"
TOKEN = re.compile(TOKEN_PATTERN)

#: Tokens of two or more characters: the Bangla-aware form of scikit-learn's default
#: ``(?u)\b\w\w+\b`` (on text without Bengali characters both find the same words). The relevance
#: modes use it, so their English results did not move when they changed to this module.
WORD_PATTERN = r"[\w\u0980-\u09ff]{2,}"
WORD = re.compile(WORD_PATTERN)
