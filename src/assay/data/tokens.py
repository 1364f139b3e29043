"""Words in case, corpus and source text, in any script: the one tokeniser every word-level comparison uses.

A *run* is a stretch of word characters (``\\w``: letters and digits of every script), characters of
the Bengali block (U+0980 to U+09FF) and combining marks (:data:`assay.data.unicode_classes.MARKS`).
Marks are listed because Indic vowel signs and viramas, Arabic harakat and decomposed Latin accents
are not ``\\w``: without them ``বিক্রি``, ``किताब`` or ``مَكْتَبَة`` would be cut into pieces. The Bengali
block is listed as before (its few symbols that are neither letters nor marks stay inside words, so
English and Bangla tokens are exactly what they were). Punctuation, blanks, the danda ``।`` and
zero-width joiners end a run.

Scripts written with spaces (Latin with or without diacritics, Cyrillic, Greek, Arabic, Hebrew,
Devanagari, Bangla, Hangul, ...): a run is one token.

Scripts written without spaces (:data:`assay.data.unicode_classes.NO_SPACE`: Han, Hiragana,
Katakana, Thai, Lao, Khmer, Myanmar) have no word boundary a regular expression can see, so their
part of a run gives **overlapping character bigrams**, as Lucene's CJK analyser does: ``東京都``
gives ``東京``, ``京都``; a single character standing alone is its own token (``猫``). A *character*
here is a base character with the combining marks after it (Thai ``กั`` is one character, so a tone
or vowel mark is never separated from its consonant). Within one run the spaced and unspaced parts
are split apart: ``iPhone15を買う`` gives ``iPhone15``, ``を買``, ``買う``. No dictionary segmenter is
used: bigrams need no word list, are deterministic, and two texts that share a word share its
bigrams, which is what the leakage Jaccard and the lexical retrievers compare.

:func:`tokens` keeps case and Unicode form as given. :func:`normal_form` (NFKC, then case folding)
is the form word sets (leakage) and retrievers compare tokens in, and :func:`fold` (the same, blanks
as one space) the form facts are matched in everywhere (:func:`fact_in`). On the demo's English and
Bangla text NFKC and case folding change no character, so their tokens are what ``lower()`` gave.

>>> tokens("ফেরতের নিয়ম কী? 30 days।")
['ফেরতের', 'নিয়ম', 'কী', '30', 'days']
>>> tokens("退货期限是多少天？")
['退货', '货期', '期限', '限是', '是多', '多少', '少天']
"""

from __future__ import annotations

import re
import unicodedata

from assay.data.unicode_classes import MARKS, NO_SPACE

#: One run (see the module docstring) as a pattern string. It matches the whole unspaced run too,
#: so use :func:`tokens` (which splits those runs into bigrams) rather than ``findall`` with it.
TOKEN_PATTERN = rf"[\w\u0980-\u09ff{MARKS}]+"
TOKEN = re.compile(TOKEN_PATTERN)

#: Runs of two or more characters: the form of scikit-learn's default ``(?u)\b\w\w+\b`` with marks
#: and the Bengali block kept inside words (on text of neither, both find the same words).
WORD_PATTERN = rf"[\w\u0980-\u09ff{MARKS}]{{2,}}"
WORD = re.compile(WORD_PATTERN)

#: Any character of a script written without spaces: a run holding one is split by :func:`split_run`.
UNSPACED = re.compile(f"[{NO_SPACE}]")
# a run cut into its unspaced stretches (group 1) and the rest (group 2); marks after a base stay with it
_PARTS = re.compile(f"((?:[{NO_SPACE}][{MARKS}]*)+)|((?:(?![{NO_SPACE}]).)+)", re.DOTALL)
_CHARACTER = re.compile(f"[{NO_SPACE}][{MARKS}]*")


def split_run(run: str) -> list[str]:
    """The tokens of one run (a :data:`TOKEN` match): itself when it holds no unspaced character,
    else its spaced parts whole and its unspaced parts as character bigrams (a lone character as itself).

    >>> split_run("東京都")
    ['東京', '京都']
    >>> split_run("ภาษาไทย")  # hand-checked: ภา าษ ษา าไ ไท ทย
    ['ภา', 'าษ', 'ษา', 'าไ', 'ไท', 'ทย']
    >>> split_run("Wi猫")
    ['Wi', '猫']
    """
    if UNSPACED.search(run) is None:
        return [run]
    out: list[str] = []
    for unspaced, spaced in _PARTS.findall(run):
        if spaced:
            out.append(spaced)
            continue
        chars = _CHARACTER.findall(unspaced)
        out.extend(chars if len(chars) == 1 else [a + b for a, b in zip(chars, chars[1:], strict=False)])
    return out


def tokens(text: str) -> list[str]:
    """Every token of ``text`` in order, repeats kept, case as given (see the module docstring).

    Empty text, or text of punctuation and blanks only, gives ``[]``.

    >>> tokens("¿Cuánto cuesta el envío?")
    ['Cuánto', 'cuesta', 'el', 'envío']
    >>> tokens("किताब की क़ीमत")  # vowel signs and the nukta stay inside the words
    ['किताब', 'की', 'क़ीमत']
    """
    runs = TOKEN.findall(text)
    if UNSPACED.search(text) is None:
        return runs
    return [t for run in runs for t in split_run(run)]


def words(text: str) -> list[str]:
    """The tokens a relevance mode scores, in :func:`normal_form`: :func:`tokens` of two or more characters, and every token of
    an unspaced script (a lone ``猫`` is a word; a lone ``a`` or ``5`` is not, as under scikit-learn's
    default pattern, so English text gives the words it always gave).

    >>> words("a 5G plan 猫")
    ['5g', 'plan', '猫']
    """
    return [t for t in tokens(normal_form(text)) if len(t) >= 2 or UNSPACED.match(t)]


def normal_form(text: str) -> str:
    """NFKC, then case folding: the form word sets and retrieval compare tokens in (blanks kept as they are).

    >>> normal_form("ＭＩＮＴ Straße")
    'mint strasse'
    """
    return unicodedata.normalize("NFKC", text).casefold()


def fold(text: str) -> str:
    """NFKC, case folding, and every run of blanks as one space, stripped: the form facts are matched in.

    NFKC makes a full-width ``３０`` the digits ``30``, a ligature ``ﬁ`` the letters ``fi`` and a
    decomposed ``é`` (``e`` + U+0301) the composed one; case folding makes ``Straße`` and ``STRASSE``
    equal. Empty text gives ``""``.

    >>> fold("Thirty\\u00a0 DAYS\\n")
    'thirty days'
    >>> fold("３０ Tage") == fold("30 tage")
    True
    """
    return " ".join(normal_form(text).split())


def fact_in(fact: str, text: str) -> bool:
    """Whether ``fact`` appears in ``text``, both in :func:`fold` form (a plain substring test).

    Callers that test many facts against one text fold the text once and test ``fold(fact) in
    folded``; this is the same rule. An empty fact is in every text.

    >>> fact_in("30 Días", "El plazo es de 30 días.")
    True
    """
    return fold(fact) in fold(text)
