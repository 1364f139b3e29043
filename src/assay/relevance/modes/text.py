"""Word tokens shared by the modes and the answer rule: lower-cased words without stop words.

Words come from :data:`assay.data.tokens.WORD` (the one Bangla-aware pattern), so a Bangla word
such as ``বিক্রি`` stays whole; the earlier ``\\w\\w+`` pattern cut it at each vowel sign.
"""

from __future__ import annotations

from assay.data.stopwords import ENGLISH_STOP_WORDS
from assay.data.tokens import WORD

QUESTION_WORDS = frozenset({"what", "which", "how", "now", "today", "current", "big", "does", "did"})
STOP = ENGLISH_STOP_WORDS | QUESTION_WORDS


def content_words(text: str) -> list[str]:
    """The content words of ``text`` in order (repeats kept).

    A word is a :data:`~assay.data.tokens.WORD` match (two or more characters: ``a`` or ``5`` is
    dropped, as the earlier ``\\w\\w+`` pattern dropped it, so English text yields the same words
    as before); stop words are dropped.

    >>> content_words("What is the fee for eSIM activation now?")
    ['fee', 'esim', 'activation']
    >>> content_words("মোবাইল বিক্রি")
    ['মোবাইল', 'বিক্রি']
    """
    return [w for w in WORD.findall(text.lower()) if w not in STOP]
