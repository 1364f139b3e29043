"""Numbers for people: one formatter for every report, table and CLI line.

``None`` and nan print as ``n/a``; floats are rounded for display only (stored values never are).
"""

from __future__ import annotations

import math
import re


def num(x: float | int | None, digits: int = 3) -> str:
    """``x`` for display: ``n/a`` when undefined.

    Integers print as integers; floats with ``digits`` decimals, trailing zeros kept.

    >>> num(None), num(float("nan")), num(3), num(0.85), num(0.8499995, 4)
    ('n/a', 'n/a', '3', '0.850', '0.8500')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if isinstance(x, (bool, int)):
        return str(int(x))
    return f"{x:.{digits}f}"


def ci(value: float | None, low: float | None, high: float | None, digits: int = 3) -> str:
    """``value (95% interval low to high)``, each through :func:`num`.

    >>> ci(0.5, 0.3, 0.7)
    '0.500 (95% interval 0.300 to 0.700)'
    """
    return f"{num(value, digits)} (95% interval {num(low, digits)} to {num(high, digits)})"


def exact(x: float | int | None) -> str:
    """``x`` with ten significant digits, for comparisons a person must be able to check.

    >>> exact(85011 / 100013), exact(0.85), exact(None)
    ('0.8499995001', '0.85', 'n/a')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.10g}"


_INTRAWORD = re.compile(r"(?<=[^\W_])\\_(?=[^\W_])")
_BLOCK_START = re.compile(r"^(\d+(?=[.)])|)([#>+=.)-])")
_INERT_LT = re.compile(r"&lt;(?![A-Za-z/!?])")
_INERT_ENTITY = re.compile(r"&amp;(?![A-Za-z#])")
_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|"} | {"<": "&lt;", "&": "&amp;"})


def md_text(text: object) -> str:
    """User text (a note, an answer, a question, a name) made inert for a Markdown report, on one line.

    Whitespace runs (newlines included) become one space, so text cannot start a heading, list,
    quote or code block; ``<`` and ``&`` become entities, so no HTML tag (``<script>``) reaches the
    page; ``\\``, backticks, ``*``, ``_``, brackets and ``|`` are backslash-escaped, so text cannot
    make code, emphasis, a link or image (no ``[x](javascript:...)``) or a table cell. Other
    punctuation is left as written. ``None`` is ``""``.

    >>> md_text("<script>alert(1)</script> **bold** | [x](javascript:y)")
    '&lt;script>alert(1)&lt;/script> \\\\*\\\\*bold\\\\*\\\\* \\\\| \\\\[x\\\\](javascript:y)'
    """
    if text is None:
        return ""
    return " ".join(str(text).split()).translate(_MD_SPECIAL)


def md_words(text: object) -> str:
    """Like :func:`md_text`, but characters that are already inert where they stand are kept as written.

    Kept: an underscore inside a word (``answer_correct``: CommonMark never opens emphasis there),
    a ``<`` not followed by a letter, ``/``, ``!`` or ``?`` (``0.1 < 0.6`` cannot open a tag or
    autolink) and a ``&`` not followed by a letter or ``#`` (it cannot start an entity). So reports
    of generated text stay readable as plain text, while every rule of :func:`md_text` that makes
    user text inert holds (one line; ``<script>`` as ``&lt;script>``; ``|``, brackets, backticks,
    ``*``, ``\\`` and word-edge ``_`` escaped). ``None`` is ``""``.

    >>> md_words("answer_correct | <b> _x_ 1 < 2 & 3 &amp;")
    'answer_correct \\\\| &lt;b> \\\\_x\\\\_ 1 < 2 & 3 &amp;amp;'
    """
    return _INERT_ENTITY.sub("&", _INERT_LT.sub("<", _INTRAWORD.sub("_", md_text(text))))


def md_paragraphs(text: object) -> str:
    """User prose (a plan's task or release rule) made inert, keeping its paragraphs.

    Paragraphs (split at blank lines) are each passed through :func:`md_words` and joined by one
    blank line; surrounding whitespace is dropped. A paragraph that would open a block (a heading
    ``#``, quote ``>``, list item ``-``/``+``/``1.``/``1)``, rule or setext line ``=``) gets that
    mark backslash-escaped, so it stays a plain paragraph. ``None`` or blank text is ``""``.

    >>> md_paragraphs("one\\ntwo\\n\\n# three <i>\\n\\n1. four")
    'one two\\n\\n\\\\# three &lt;i>\\n\\n1\\\\. four'
    """
    if text is None:
        return ""
    return "\n\n".join(_BLOCK_START.sub(r"\1\\\2", md_words(p)) for p in re.split(r"\n\s*\n", str(text).strip())
                       if p.strip())


def md_code(text: object) -> str:
    """User text (a path, a name) as an inline code span that nothing inside can close or break.

    Inside a code span Markdown and HTML are not read, so ``<script>`` shows as text; the fence is
    one backtick longer than the longest backtick run in the text (padded with a space when the
    text has backticks), and whitespace runs become one space. Not for table cells (a ``|`` still
    splits a GFM table row there: use :func:`md_words`). ``None`` is an empty span.

    >>> md_code("data/cases.jsonl"), md_code("a`b")
    ('`data/cases.jsonl`', '`` a`b ``')
    """
    shown = "" if text is None else " ".join(str(text).split())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", shown)), default=0) + 1)
    pad = " " if "`" in shown else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def md_code_block(text: object) -> str:
    """A program's raw output (the gate's text) as a fenced code block for a Markdown page such as
    GitHub's job summary, which nothing inside can close or turn into Markdown or HTML.

    The fence is a run of backticks one longer than the longest run in the text (at least three),
    so a failure name holding a backtick run cannot end the block early and make a heading or an
    image of what follows. Control characters other than newline and tab (an escape sequence, a
    carriage return that would hide a line's start, NUL, bidirectional and zero-width characters)
    are shown escaped as ``\\xNN`` / ``\\uNNNN``. The text keeps its lines; a final newline is
    added when missing. ``None`` is an empty block.

    >>> print(md_code_block("ok ``` # not a heading\\nred\\x1b[31m"), end="")
    ````
    ok ``` # not a heading
    red\\x1b[31m
    ````
    """
    shown = "" if text is None else _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"),
                                                  str(text).replace("\r\n", "\n"))
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", shown)), default=0) + 1)
    body = shown if shown.endswith("\n") or not shown else shown + "\n"
    return f"{fence}\n{body}{fence}\n"
