"""A scan that reads what a person reads (issue 22): identifiers hidden by JSON escapes, Unicode
tricks, defanging, spelling out or base64/hex are found; the catch rate on our own planted set."""

from __future__ import annotations

import base64
import json

import pytest

from assay.study.reading import plain
from assay.study.scan import scan_text

# (kind, text a person would read as an identifier, hidden from a byte-level reading)
HIDDEN = [
    ("phone", "call 01712-345678 today"),
    ("phone", "call ০১৭১২-৩৪৫৬৭৮ today"),  # Bangla digits
    ("phone", "call +880-1712-345678"),
    ("url", "see hxxps://evil.example/x"),
    ("hostname", "host example[.]com is down"),
    ("email", "mail rahim at nodinet dot com"),
    ("email", "mail rahim [at] nodinet [dot] com"),
    ("email", "mail ｒａｈｉｍ＠ｎｏｄｉｎｅｔ．ｃｏｍ"),  # full-width
    ("email", "mail rahim\u200b@nodi\u200bnet.com"),  # zero-width spaces
    ("mode", "found by the lеxical retriever"),  # a Cyrillic е
    ("mode", "found by the hy\u200bbrid retriever"),
    ("mode", "found by the se\u0301mantic retriever"),  # a combining accent
    ("mode", "found by the ＢＭ２５ ranking"),
    ("email", "blob " + base64.b64encode(b"rahim@nodinet.com").decode()),
    ("path", "blob " + base64.b64encode(b"/srv/vault/packet.jsonl").decode()),
    ("phone", "hex " + b"call 01712345678".hex()),
    ("personal_name", "Customer Rahim Uddin of Mirpur"),
    ("hostname", "served from files.nodinet.xyz now"),  # a TLD outside the list, three labels
    ("hostname", "served from nodinet.xyz now"),  # a TLD outside the list, two labels
    ("hostname", "mirror at NodiNet.xyz, ask"),
    ("hostname", "v6 at fe80::1ff:fe23:4567:890a here"),
]
JSON_ESCAPED = [
    ("path", {"text": "copied from /srv/vault/a.jsonl"}),
    ("email", {"text": "mail rahim@nodinet.com"}),
    ("mode", {"text": "the lexical list"}),
    ("url", {"text": "https://evil.example/x"}),
]


@pytest.mark.parametrize("kind,text", HIDDEN, ids=[f"{k}-{i}" for i, (k, _) in enumerate(HIDDEN)])
def test_hidden_identifiers_are_found(kind, text):
    assert kind in [h.kind for h in scan_text(text, "f")], text


def escaped(value: dict) -> str:
    """The JSON line with every '/' written as '\\/' and every non-ASCII letter and '@' or ':' as a \\u escape."""
    text = json.dumps(value, ensure_ascii=True).replace("/", "\\/")
    return text.replace("@", "\\u0040").replace(":\\/", "\\u003a\\/").replace("lexical", "le\\u0078ical")


@pytest.mark.parametrize("kind,value", JSON_ESCAPED, ids=[k for k, _ in JSON_ESCAPED])
def test_json_escaped_values_are_read_decoded(kind, value):
    line = escaped(value)
    assert json.loads(line) == value and kind in [h.kind for h in scan_text(line, "packet.jsonl")], line


def test_catch_rate_on_our_set_and_no_new_false_positive():
    caught = sum(kind in [h.kind for h in scan_text(text, "f")] for kind, text in HIDDEN)
    caught += sum(kind in [h.kind for h in scan_text(escaped(v), "f")] for kind, v in JSON_ESCAPED)
    assert caught == len(HIDDEN) + len(JSON_ESCAPED) == 25  # measured: 25 of 25
    for clean in ("Our Customer Care team answers in the App; look at page 3.", "Open 10:30:00 to 18:00, ratio 1:2:3.",
                  "See report.v2.pdf and notes.final.docx.", "Call json.dumps() or json.dumps(x), e.g. here.",
                  "The fee rose.Next year it falls.", "Save as report.pdf or data.csv; i.e. a file."):
        assert scan_text(clean, "f") == [], clean


def test_names_from_the_coordinators_list_are_possible_personal_names():
    [hit] = scan_text('{"text": "Rahim  Uddin asked again"}', "p.jsonl", names=["Rahim Uddin"])
    assert hit.kind == "personal_name" and str(hit) == "p.jsonl:1:11: possible personal name"


def test_plain_keeps_ordinary_text():
    text = "The fee is 500 BDT from 2024-03-01; ask at the shop."
    assert plain(text) == text
