"""What a person reads in a line: the texts the de-identification scan checks besides the raw bytes.

A packet line can hide what the scan looks for from a byte-level reading while a person (or a
model) reads it plainly. :func:`readings` gives, for one line, every text a reader would see:

- the JSON-decoded string values (and keys) when the line is JSON, so ``\\/``-escaped paths and
  ``\\u``-escaped text are read as text;
- each of those after :func:`plain`: Unicode NFKC (full-width letters become ASCII), zero-width
  characters and soft hyphens removed, combining accents dropped, common Cyrillic and Greek
  look-alikes mapped to Latin letters, digits of any script (Bangla ``০১৭``) made ASCII, and
  defanging undone (``hxxps://``, ``example[.]com``, ``name [at] host``, ``name at host dot com``);
- the text inside base64 and hex blobs of 16 or more characters that decode to printable UTF-8.

What it cannot catch: text split across lines or JSON values, other encodings (rot13, gzip, URL
encoding of whole words), images, look-alikes outside the table, and words spelled out in other
ways (``name (at) host (dot) com`` is caught; ``name, at host, in com`` is not).
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterator

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\ufeff\u00ad\u180e"), None)
# Cyrillic and Greek letters that look like Latin ones (the common part of Unicode's confusables)
_CONFUSABLE = str.maketrans("аеорсухіјѕԁԛԝАВЕКМНОРСТХІЈЅοκνρτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
                            "aeopcyxijsdqwABEKMHOPCTXIJSoKvptuxABEZHIKMNOPTYX")
_DEFANG = [
    (re.compile(r"\bhxxp(s?)(?=[:\[])", re.I), r"http\1"),
    (re.compile(r"\[:\]//|\[://\]"), "://"),
    (re.compile(r"\s*[\[({]\s*(?:\.|dot)\s*[\])}]\s*", re.I), "."),
    (re.compile(r"\s*[\[({]\s*(?:@|at)\s*[\])}]\s*", re.I), "@"),
]
_SPELLED_EMAIL = re.compile(r"\b([A-Za-z0-9._%+-]+)\s+at\s+([A-Za-z0-9-]+(?:\s+dot\s+[A-Za-z0-9-]+)+)\b", re.I)
_BLOB = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEXBLOB = re.compile(r"\b(?:[0-9a-fA-F]{2}){8,}\b")


def plain(text: str) -> str:
    """``text`` as a person reads it (see the module): normalised, look-alikes mapped, defanging undone.

    >>> plain("ｍａｉｌ rahim\\u200b@nodinet.com, hxxps://evil[.]example, bob at host dot com, ০১৭")
    'mail rahim@nodinet.com, https://evil.example, bob@host.com, 017'
    """
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    text = unicodedata.normalize("NFC", text).translate(_CONFUSABLE)
    text = "".join(str(unicodedata.digit(c)) if not c.isascii() and c.isdigit() else c for c in text)
    for pattern, repl in _DEFANG:
        text = pattern.sub(repl, text)
    return _SPELLED_EMAIL.sub(lambda m: m[1] + "@" + re.sub(r"\s+dot\s+", ".", m[2], flags=re.I), text)


def _printable(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    shown = sum(c.isprintable() or c in "\n\t" for c in text)
    return text if text and shown / len(text) >= 0.95 else None


def decoded_blobs(text: str) -> list[str]:
    """The printable UTF-8 texts hidden in base64 or hex blobs of ``text`` (16 or more characters).

    >>> decoded_blobs("x cmFoaW1Abm9kaW5ldC5jb20= y")
    ['rahim@nodinet.com']
    """
    out = []
    for m in _HEXBLOB.finditer(text):
        if (found := _printable(binascii.unhexlify(m.group()))) is not None:
            out.append(found)
    for m in _BLOB.finditer(text):
        blob = m.group()
        if _HEXBLOB.fullmatch(blob):
            continue
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                raw = decode(blob + "=" * (-len(blob) % 4))
            except (binascii.Error, ValueError):
                continue
            if (found := _printable(raw)) is not None:
                out.append(found)
                break
    return out


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def readings(line: str) -> list[str]:
    """The texts of one line a person would read, besides the line itself (see the module); may be empty."""
    from assay.core.io import parse_json_line

    texts = []
    stripped = line.strip()
    if stripped[:1] in ("{", "[", '"'):
        value, why = parse_json_line(stripped)
        if why is None:
            texts.append(" | ".join(_strings(value)))
    base = texts or [line]
    blobs = [blob for t in base for blob in decoded_blobs(t)]
    found = texts + blobs + [plain(t) for t in base + blobs]
    return [t for t in dict.fromkeys(found) if t and t != line]
