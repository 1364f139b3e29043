"""Numbers for people: one formatter for every report, table and CLI line.

``None`` and nan print as ``n/a``; floats are rounded for display only (stored values never are).
"""

from __future__ import annotations

import math


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
