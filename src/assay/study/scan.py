"""The de-identification scan: what must not be in a packet (or any file given to a person or committed).

Kinds (:data:`KINDS`), each a small rule read line by line:

* ``url``: a scheme and ``://`` (http, https, ftp, file, s3, gs, ssh, git, smb), or ``www.``.
* ``email``: ``local@domain.tld``.
* ``hostname``: a dotted name ending in a public or internal suffix (:data:`SUFFIXES`, e.g.
  ``vault.internal``, ``files.nodinet.com``), ``localhost``, or an IPv4 address with octets <= 255.
  A dotted word with another ending (``v1.2``, ``report.pdf``, ``e.g.``) is not a hostname.
* ``phone``: 9 to 15 digits written as a phone number: a leading ``+``, or digit groups joined by
  spaces, hyphens, dots or parentheses, or a bare run of 10 to 15 digits. ISO dates
  (``2024-03-01``) and ranges of small numbers are not phones.
* ``api_key``: known key shapes (AWS ``AKIA...``, GitHub ``ghp_...``/``github_pat_...``, OpenAI and
  Stripe ``sk-``/``sk_live_...``, Slack ``xox?-...``, Google ``AIza...``, JSON web tokens) and an
  assignment such as ``api_key = ...``, ``password: ...`` with a value of 8 or more characters.
* ``private_key``: a PEM ``-----BEGIN ... PRIVATE KEY-----`` line.
* ``high_entropy``: a token of 24 or more characters from ``[A-Za-z0-9+/=_-]`` that mixes at least
  two of lower case, upper case and digits and has a Shannon entropy of at least 4.0 bits per
  character. Hex-only strings are left alone (checksums are allowed); a hex key is therefore not
  seen unless it matches an ``api_key`` rule.
* ``path``: an absolute POSIX path with two or more parts (``/srv/vault/a.txt``), ``~/...``,
  ``./`` or ``../`` paths, a Windows drive path (``C:\\...``) or a UNC share (``\\\\host\\share``).
  ``and/or``, ``24/7`` and ``km/h`` are not paths.
* ``mode``: the name of a retrieval mode as a word, case-insensitive (:data:`MODE_WORDS`, plus the
  names the caller passes): an annotator must not learn which mode found a document.

A hit is reported as ``file:line:column kind`` and never repeats the matched text, so a secret
found by the scan is not copied into a log.

:func:`scan_step` is stage ``study_scan``'s work: it scans every split's queries and both packets
and returns the record its stage commits (:mod:`assay.study.records`): hit counts and the SHA-256
of the files it read, named relative to the evidence root; any hit fails it (:class:`ScanHits`).
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from assay.core.errors import AssayError
from assay.study.evidence import ANNOTATORS, QUERIES, SPLITS, EvidenceRoot, file_hashes, packet_name
from assay.study.protocol import Study
from assay.study.records import stage_record

KINDS = ("url", "email", "hostname", "phone", "api_key", "private_key", "high_entropy", "path", "mode", "personal_name")

SUFFIXES = ("com", "net", "org", "edu", "gov", "mil", "int", "io", "co", "ai", "app", "dev", "cloud", "info", "biz",
            "me", "us", "uk", "de", "fr", "bd", "in", "ua", "br", "pt", "eu", "ru", "cn", "jp", "local", "localdomain",
            "internal", "intranet", "corp", "lan", "home", "example", "test", "onion", "aws", "azure")
MODE_WORDS = ("lexical", "semantic", "hybrid", "reranked", "reranker", "rerank", "graph", "graph-assisted", "bm25",
              "dense", "sparse", "lsa", "rrf", "pagerank", "cross-encoder")

_URL = re.compile(r"\b(?:https?|ftp|file|s3|gs|ssh|git|smb)://[^\s\"'<>]+|\bwww\.[a-z0-9-]+\.[a-z0-9.-]+", re.I)
_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_HOST = re.compile(r"\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:" + "|".join(SUFFIXES) + r")\b(?![.-]?[a-z0-9])"
                   r"|\blocalhost\b", re.I)
# a name of three or more dotted labels under any alphabetic top-level label (files.nodinet.xyz), not a file name
_EXTENSIONS = (r"pdf|txt|md|json|jsonl|csv|tsv|png|jpe?g|gif|py|html?|ya?ml|xml|docx?|xlsx?|zip|gz|tar|log|exe|js|ts|css|sh|"
               r"trec|parquet")
_ANY_HOST = re.compile(r"\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){2,}(?!(?:" + _EXTENSIONS + r")\b)[a-z]{2,24}\b"
                       r"(?![.-]?[a-z0-9])", re.I)
# a name of two labels under any lower-case alphabetic top-level label (nodinet.xyz, NodiNet.xyz): the first label of
# two or more characters and not after '.', '@', '/', '\\' or '-', the last not a file extension, not followed by '('
# nor by a word character after '.' or '-' (notes.final.docx and json.dumps() are not hosts). A lower-case top-level label
# keeps a missing space after a full stop (end.Next) out; a lower-case one (fee.then) is still a hit.
_TWO_LABEL_HOST = re.compile(r"(?<![\w.@/\\-])[A-Za-z][A-Za-z0-9-]{0,61}[A-Za-z0-9]\.(?!(?:" + _EXTENSIONS + r")\b)"
                             r"[a-z]{2,24}\b(?![.-]?\w|\()")
_IPV6 = re.compile(r"(?<![\w:.])[0-9a-f:]*:[0-9a-f:]*:[0-9a-f:]*(?![\w:.])", re.I)  # then checked by ipaddress
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
_PHONE = re.compile(r"(?<![\w+/-])(?:\+\d[\d\s().-]{7,}\d|\(?\d{2,5}\)?(?:[\s.-]\(?\d{2,5}\)?){2,5}|\d{10,15})(?![\w-])")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Bangladesh mobile numbers as written locally: 01712-345678, 01712 345678, +880-1712-345678
_BD_PHONE = re.compile(r"(?<![\w+/-])(?:\+?880[\s-]?)?0?1[3-9]\d{2}[\s-]?\d{6}(?![\w-])")
# an honorific or a role word before a capitalised name (English), or a Bangla honorific before a word
_NOT_NAMES = r"(?!(?:Care|Service|Services|Support|Centre|Center|Team|Portal|App|Desk|Relations|ID|Number|Account)\b)"
_HONORIFIC = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Madam|Mister|Engr|Customer|Subscriber|Caller)\.?\s+"
                        + _NOT_NAMES + r"[A-Z][a-z]+(?:\s+" + _NOT_NAMES + r"[A-Z][a-z]+)*"
                        r"|(?:জনাব|জনাবা|মিসেস|মিস্টার|বেগম|শ্রীমতী|শ্রী|ডাঃ)\s*[\u0980-\u09FF]+")
_API_KEYS = re.compile(
    r"\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{30,}\b"
    r"|\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b|\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b|\bxox[abposr]-[A-Za-z0-9-]{10,}\b"
    r"|\bAIza[0-9A-Za-z_-]{35}\b|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"|\b(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|access[_-]?key|client[_-]?secret)\b[\"']?\s*[:=]\s*"
    r"[\"']?[^\s\"',;]{8,}", re.I)
_PRIVATE_KEY = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_TOKEN = re.compile(r"[A-Za-z0-9+/=_-]{24,}")
_HEX = re.compile(r"^[0-9a-fA-F-]+$")
_PATH = re.compile(r"(?:(?<=^)|(?<=[\s\"'(=:,\[]))(?:/[A-Za-z0-9._-]+){2,}/?|~/[^\s\"']+|\.\.?/[A-Za-z0-9._-][^\s\"']*"
                   r"|\b[A-Za-z]:\\[^\s\"']+|\\\\[A-Za-z0-9._-]+\\[^\s\"']+")


@dataclass(frozen=True, order=True)
class Hit:
    """One finding: where (file as shown, 1-based line and column) and which kind; never the text itself."""

    path: str
    line: int
    column: int
    kind: str

    def __str__(self) -> str:
        kind = "possible personal name" if self.kind == "personal_name" else self.kind
        return f"{self.path}:{self.line}:{self.column}: {kind}"


def entropy(token: str) -> float:
    """Shannon entropy of ``token`` in bits per character (0.0 for an empty string).

    >>> round(entropy("aabb"), 3)
    1.0
    """
    if not token:
        return 0.0
    n = len(token)
    return -sum(c / n * math.log2(c / n) for c in Counter(token).values())


def _high_entropy(token: str) -> bool:
    if _HEX.match(token):
        return False
    classes = sum(bool(re.search(p, token)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
    return classes >= 2 and entropy(token) >= 4.0


def _phone(match: str) -> bool:
    digits = sum(ch.isdigit() for ch in match)
    return 9 <= digits <= 15 and not _DATE.match(match.strip())


def _ipv4(match: str) -> bool:
    return all(int(part) <= 255 for part in match.split("."))


def _ipv6(match: str) -> bool:
    import ipaddress

    try:
        ipaddress.IPv6Address(match)
    except ValueError:
        return False
    return True


def _always(_: str) -> bool:
    return True


#: (pattern, kind, test of the matched text), in priority order: an earlier rule's match hides later overlapping ones
RULES = ((_PRIVATE_KEY, "private_key", _always), (_API_KEYS, "api_key", _always), (_URL, "url", _always),
         (_EMAIL, "email", _always), (_PATH, "path", _always), (_HOST, "hostname", _always),
         (_ANY_HOST, "hostname", _always), (_TWO_LABEL_HOST, "hostname", _always), (_IPV4, "hostname", _ipv4), (_IPV6, "hostname", _ipv6),
         (_BD_PHONE, "phone", _always), (_PHONE, "phone", _phone),
         (_TOKEN, "high_entropy", _high_entropy), (_HONORIFIC, "personal_name", _always))


def _mode_pattern(extra: Iterable[str]) -> re.Pattern:
    words = sorted({w.lower() for w in (*MODE_WORDS, *extra) if w}, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in words) + r")(?![\w-])", re.I)


def _names_pattern(names: Iterable[str]) -> re.Pattern | None:
    words = sorted({" ".join(n.split()) for n in names if n and n.strip()}, key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(r"\s+".join(map(re.escape, w.split())) for w in words) + r")(?!\w)", re.I)


def scan_line(text: str, modes: re.Pattern | None = None, names: re.Pattern | None = None) -> list[tuple[int, str]]:
    """``(column, kind)`` of every hit in one line of text, in column order (1-based columns).

    >>> scan_line("mail ann@example.com")
    [(6, 'email')]
    >>> scan_line("open 24/7, fee 500 BDT from 2024-03-01")
    []
    """
    modes = modes or _mode_pattern(())
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []

    def add(m: re.Match, kind: str) -> None:
        if not any(a < m.end() and m.start() < b for a, b in taken):
            found.append((m.start() + 1, kind))
            taken.append((m.start(), m.end()))

    for pattern, kind, keep in RULES:
        for m in pattern.finditer(text):
            if keep(m.group()):
                add(m, kind)
    for m in modes.finditer(text):
        add(m, "mode")
    for m in (names.finditer(text) if names is not None else ()):
        add(m, "personal_name")
    return sorted(found)


def scan_text(text: str, shown: str, modes: Iterable[str] = (), names: Iterable[str] = ()) -> list[Hit]:
    """Every hit in ``text``, reported against the file name ``shown``.

    Each line is scanned as written and as a person reads it (:func:`assay.study.reading.readings`:
    JSON values decoded, Unicode normalised, look-alikes mapped, defanging undone, base64 and hex
    blobs decoded). A kind found more often in a reading than in the raw line adds the extra hits
    (their columns are the reading's). ``names`` (the study's participants and customers, from the
    coordinator) are reported as ``personal_name``, like a name after an honorific.
    """
    from assay.study.reading import readings

    pattern, people = _mode_pattern(modes), _names_pattern(names)
    hits: list[Hit] = []
    for number, line in enumerate(text.split("\n"), start=1):
        found = scan_line(line, pattern, people)
        counts = Counter(kind for _, kind in found)
        for reading in readings(line):
            extra = scan_line(reading, pattern, people)
            for kind, n in Counter(k for _, k in extra).items():
                if n > counts[kind]:
                    found += [(c, k) for c, k in extra if k == kind][counts[kind]:n]
                    counts[kind] = n
        hits += [Hit(shown, number, column, kind) for column, kind in sorted(found)]
    return hits


def read_names(path: str | os.PathLike, field: str = "names") -> list[str]:
    """The coordinator's names list: one name per line; blank lines and lines starting with ``#`` skipped.

    The path must resolve (symlinks followed) inside the repository (:mod:`assay.core.confinement`),
    like every other path a study names. An existing but empty list is ``[]`` (nothing extra to find).

    Raises:
        InputError: ``path`` leads outside the repository, does not exist, or is not UTF-8; each
            names ``field`` and the fix.
    """
    from assay.core.confinement import require_inside
    from assay.core.errors import InputError, Problem

    require_inside(str(path), str(path), field)
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError([Problem(str(p), None, field, "the names list does not exist",
                                  "write one name per line in that file, or drop the field")]) from None
    except UnicodeDecodeError as error:
        raise InputError([Problem(str(p), None, field, f"is not UTF-8 ({error.reason} at byte {error.start})",
                                  "save the names list as UTF-8")]) from None
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def files_under(path: str | os.PathLike) -> list[Path]:
    """``path`` itself when it is a file, else every file below it (hidden names skipped), sorted."""
    p = Path(path)
    if p.is_file():
        return [p]
    return sorted(f for f in p.rglob("*") if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts))


def scan_path(path: str | os.PathLike, show: Callable[[str | os.PathLike], str] = str, modes: Iterable[str] = (),
              names: Iterable[str] = ()) -> tuple[list[Hit], int]:
    """Scan a file or every file under a folder: ``(hits, files scanned)``.

    ``show`` turns a path into the text printed for it (pass :meth:`EvidenceRoot.show` so the
    evidence root never appears). A file that is not UTF-8 is read with replacement characters,
    so a secret in a binary file is still found.

    Raises:
        FileNotFoundError: ``path`` does not exist.
    """
    if not Path(path).exists():
        raise FileNotFoundError(show(path))
    hits: list[Hit] = []
    files = files_under(path)
    for f in files:
        hits.extend(scan_text(f.read_bytes().decode("utf-8", errors="replace"), show(f), modes, names))
    return hits, len(files)


class ScanHits(AssayError):
    """The de-identification scan found something in a file meant for an annotator (exit 1)."""


def scan_step(study: Study, root: EvidenceRoot, modes: list[str]) -> dict:
    """Scan both packets and the queries of every split, with the study's names list when it names one.

    Raises:
        ScanHits: any hit, each as ``$ASSAY_EVIDENCE_ROOT/...:line:column kind``.
    """
    people = read_names(study.names) if study.names is not None else []
    hits: list[Hit] = []
    counts, names = {}, []
    for side in SPLITS:
        for name in (QUERIES, *(packet_name(a) for a in ANNOTATORS)):
            found, _ = scan_path(root.file(side, name), root.show, modes, people)
            hits += found
            counts[f"{side}/{name}"] = len(found)
            names.append(f"{side}/{name}")
    if hits:
        raise ScanHits("\n".join(str(h) for h in hits) + f"\n{len(hits)} hit(s): de-identify the corpus or queries, "
                       "then rebuild the packets (`dvc repro study_pool`)")
    return stage_record(study, hits=counts, evidence=file_hashes(root, names))

