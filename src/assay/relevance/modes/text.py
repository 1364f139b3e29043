"""Word tokens shared by the modes and the answer rule: lower-cased ``\\w\\w+`` words without stop words."""

from __future__ import annotations

import re

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

_WORD = re.compile(r"(?u)\b\w\w+\b")
QUESTION_WORDS = frozenset({"what", "which", "how", "now", "today", "current", "big", "does", "did"})
STOP = frozenset(ENGLISH_STOP_WORDS) | QUESTION_WORDS


def content_words(text: str) -> list[str]:
    """The content words of ``text`` in order (repeats kept).

    >>> content_words("What is the fee for eSIM activation now?")
    ['fee', 'esim', 'activation']
    """
    return [w for w in _WORD.findall(text.lower()) if w not in STOP]
