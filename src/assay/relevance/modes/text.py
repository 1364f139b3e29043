"""Word tokens shared by the modes and the answer rule: lower-cased words without stop words.

Words come from :func:`assay.data.tokens.words` (the one tokeniser), so a Bangla word such as
``বিক্রি`` stays whole (the earlier ``\\w\\w+`` pattern cut it at each vowel sign) and Chinese,
Japanese and Thai text gives character bigrams. The stop words are English
(:data:`assay.data.stopwords.ENGLISH_STOP_WORDS` and a few question words): queries and passages
carry no language here, and the list holds no word of another language's content.
"""

from __future__ import annotations

from assay.data.stopwords import ENGLISH_STOP_WORDS
from assay.data.tokens import words

QUESTION_WORDS = frozenset({"what", "which", "how", "now", "today", "current", "big", "does", "did"})
STOP = ENGLISH_STOP_WORDS | QUESTION_WORDS


def content_words(text: str) -> list[str]:
    """The content words of ``text`` in order (repeats kept).

    A word is a :func:`~assay.data.tokens.words` token (two or more characters, or one character of
    an unspaced script: ``a`` or ``5`` is dropped, as the earlier ``\\w\\w+`` pattern dropped it,
    so English text yields the same words as before); stop words are dropped.

    >>> content_words("What is the fee for eSIM activation now?")
    ['fee', 'esim', 'activation']
    >>> content_words("মোবাইল বিক্রি")
    ['মোবাইল', 'বিক্রি']
    >>> content_words("路由器")
    ['路由', '由器']
    """
    return [w for w in words(text) if w not in STOP]
