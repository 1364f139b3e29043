"""Removing a secret (an API key) from text in every form a server or a person might echo it.

:class:`Redactor` replaces with ``***`` every occurrence, in any letter case, of:

- the secret itself, and any fragment of it of at least ``min_fragment`` (8) characters;
- the secret with separators between its characters (spaces, tabs, zero-width characters,
  ``-``, ``_``, ``.``, ``:``, ``,``, ``/``, ``|``, ``\\``, quotes; up to 3 between two characters);
- its base64 (standard and URL-safe, at each of the three byte alignments, so the key inside a
  longer encoded text such as ``Bearer <key>`` is found too), its hex, and its URL encodings
  (``quote``, ``quote_plus`` and every byte as ``%XX``), and fragments of these of at least
  ``min_fragment`` characters.

What it cannot catch: an encoding not listed (rot13, gzip, encryption, a hash), a fragment shorter
than ``min_fragment``, a secret spelled out in words, or one split by more than 3 separators.
A secret shorter than ``min_fragment`` is redacted whole only.
"""

from __future__ import annotations

import base64
import re
import urllib.parse

MIN_FRAGMENT = 8
_SEPARATORS = r"[\s\u200b\u200c\u200d\u2060\ufeff._:,/|\\'\"+-]{0,3}"


def _base64_cores(data: bytes) -> list[str]:
    """The base64 characters of ``data`` that do not depend on its neighbours, at alignments 0, 1 and 2."""
    cores = []
    for shift in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(b"\0" * shift + data).decode("ascii").rstrip("=")
            first = -(-8 * shift // 6)  # the first character made of the data's bits only
            last = 8 * (shift + len(data)) // 6  # characters after this one also hold what follows
            core = text[first:last]
            cores.append(core)
    return cores


def secret_forms(secret: str) -> list[str]:
    """Every encoding of ``secret`` that :class:`Redactor` looks for (see the module), longest first.

    >>> "736b2d616263" in secret_forms("sk-abc")
    True
    """
    raw = secret.encode("utf-8")
    forms = {secret, raw.hex(), urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret),
             "".join(f"%{b:02X}" for b in raw)}
    forms.update(core for core in _base64_cores(raw) if core)
    return sorted(forms, key=lambda f: (-len(f), f))


def _spaced(text: str) -> str:
    return _SEPARATORS.join(re.escape(c) for c in text)


class Redactor:
    """Callable that replaces ``secret`` in all its forms with ``***`` (see the module docstring).

    ``Redactor(None)`` and ``Redactor("")`` change nothing.

    >>> r = Redactor("sk-Abcdef0123456789")
    >>> r("key SK-ABCDEF0123456789, spaced s k - A b c d e f 0 1 2 3, tail 23456789.")
    'key ***, spaced ***, tail ***.'
    """

    def __init__(self, secret: str | None, min_fragment: int = MIN_FRAGMENT):
        self._pattern: re.Pattern[str] | None = None
        if not secret:
            return
        pieces: set[str] = set()
        for form in secret_forms(secret):
            if len(form) <= min_fragment:
                pieces.add(form)
            else:
                pieces.update(form[i:i + min_fragment] for i in range(len(form) - min_fragment + 1))
        alternatives = "|".join(_spaced(p) for p in sorted(pieces, key=lambda p: (-len(p), p)))
        # a lookahead matches at every position, so overlapping fragments all count and their union is cut
        self._pattern = re.compile(f"(?=({alternatives}))", re.IGNORECASE)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The merged ``(start, end)`` spans of ``text`` that hold the secret in some form."""
        if self._pattern is None or not text:
            return []
        merged: list[list[int]] = []
        for m in self._pattern.finditer(text):
            start, end = m.start(1), m.end(1)
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        return [(s, e) for s, e in merged]

    def __call__(self, text: str) -> str:
        out, last = [], 0
        for start, end in self.spans(text):
            out += [text[last:start], "***"]
            last = end
        return "".join(out) + text[last:] if out else text
