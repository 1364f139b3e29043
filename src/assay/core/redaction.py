"""Removing a secret (an API key) from text in every form a server or a person might echo it.

:class:`Redactor` replaces with ``***`` every occurrence, in any letter case, of:

- the secret itself, its reverse, its ROT13 and the reverse of that (:func:`text_forms`), and any
  fragment of these of at least ``min_text_fragment`` (6) characters, so a key cut into 7-character
  pieces spread over several JSON fields is still found piece by piece;
- the secret with separators between its characters (spaces, tabs, zero-width characters,
  ``-``, ``_``, ``.``, ``:``, ``,``, ``/``, ``|``, ``\\``, quotes; up to 3 between two characters);
- its base64 (standard and URL-safe, at each of the three byte alignments, so the key inside a
  longer encoded text such as ``Bearer <key>`` is found too), its hex, and its URL encodings
  (``quote``, ``quote_plus`` and every byte as ``%XX``), each of the secret and of its reverse,
  and fragments of these of at least ``min_fragment`` (8) characters.

What it cannot catch: an encoding not listed (gzip, encryption, a hash, base64 of the ROT13), a
fragment shorter than the limits above, a secret spelled out in words, or one split by more than 3
separators. A form no longer than its limit is redacted whole only.
"""

from __future__ import annotations

import base64
import re
import urllib.parse

MIN_FRAGMENT = 8
MIN_TEXT_FRAGMENT = 6
_ROT13 = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                       "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm")
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


def text_forms(secret: str) -> list[str]:
    """The secret as text a server might play back: itself, reversed, ROT13 and ROT13 reversed.

    >>> text_forms("sk-Abc")
    ['cbA-ks', 'poN-xf', 'sk-Abc', 'fx-Nop']
    """
    rot = secret.translate(_ROT13)
    return list(dict.fromkeys([secret[::-1], rot[::-1], secret, rot]))


def secret_forms(secret: str) -> list[str]:
    """Every encoding of ``secret`` and of its reverse that :class:`Redactor` looks for (see the module), longest first.

    >>> "736b2d616263" in secret_forms("sk-abc")
    True
    """
    forms: set[str] = set()
    for text in (secret, secret[::-1]):
        raw = text.encode("utf-8")
        forms.update({text, raw.hex(), urllib.parse.quote(text, safe=""), urllib.parse.quote_plus(text),
                      "".join(f"%{b:02X}" for b in raw)})
        forms.update(core for core in _base64_cores(raw) if core)
    return sorted(forms, key=lambda f: (-len(f), f))


def _pieces(form: str, size: int) -> set[str]:
    return {form} if len(form) <= size else {form[i:i + size] for i in range(len(form) - size + 1)}


def _spaced(text: str) -> str:
    return _SEPARATORS.join(re.escape(c) for c in text)


class Redactor:
    """Callable that replaces ``secret`` in all its forms with ``***`` (see the module docstring).

    ``Redactor(None)`` and ``Redactor("")`` change nothing.

    >>> r = Redactor("sk-Abcdef0123456789")
    >>> r("key SK-ABCDEF0123456789, spaced s k - A b c d e f 0 1 2 3, tail 23456789.")
    'key ***, spaced ***, tail ***.'
    """

    def __init__(self, secret: str | None, min_fragment: int = MIN_FRAGMENT, min_text_fragment: int = MIN_TEXT_FRAGMENT):
        self._pattern: re.Pattern[str] | None = None
        if not secret:
            return
        pieces: set[str] = set()
        for form in secret_forms(secret):
            pieces |= _pieces(form, min_fragment)
        for form in text_forms(secret):
            pieces |= _pieces(form, min_text_fragment)
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

    def holds(self, text: str) -> bool:
        """Whether ``text`` holds the secret in any form :class:`Redactor` knows (a fragment is enough).

        >>> Redactor("sk-Abcdef0123456789").holds("id-987654"), Redactor("sk-Abcdef0123456789").holds("id-4321")
        (True, False)
        """
        return bool(self.spans(text))

    def __call__(self, text: str) -> str:
        out, last = [], 0
        for start, end in self.spans(text):
            out += [text[last:start], "***"]
            last = end
        return "".join(out) + text[last:] if out else text
