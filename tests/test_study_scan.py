"""The de-identification scan: every kind found when planted, and near-miss clean text counted for false positives."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from assay.study.scan import KINDS, entropy, scan_line, scan_path, scan_text

ROOT = Path(__file__).resolve().parents[1]

# (kind, planted line): each line holds exactly one thing the packet must not contain
PLANTED = [
    ("url", "see https://wiki.nodinet.example/fees for details"),
    ("url", "mirror at ftp://files/archive"),
    ("url", "open www.nodinet-help.info today"),
    ("url", "stored in s3://evidence-bucket/raw"),
    ("email", "write to rina.akter@nodinet.com.bd about it"),
    ("email", "cc ANN-A01@mail.internal please"),
    ("hostname", "the vault host is evidence01.corp"),
    ("hostname", "served from files.nodinet.com"),
    ("hostname", "connect to 10.20.30.40 first"),
    ("hostname", "then try localhost instead"),
    ("phone", "call +880 1712 345678 for help"),
    ("phone", "or (555) 123-4567 after five"),
    ("phone", "hotline 01712345678 all day"),
    ("phone", "fax 020.7946.0958 in London"),
    ("api_key", "key AKIAIOSFODNN7EXAMPLE in the config"),
    ("api_key", "token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB here"),
    ("api_key", "OPENAI sk-proj-abcdefghijklmnopqrstuvwxyz0123 set"),
    ("api_key", "slack xoxb-123456789012-abcdefghij set"),
    ("api_key", "api_key = s3cr3t-v4lue-here"),
    ("api_key", 'password: "hunter2hunter2"'),
    ("api_key", "bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N"),
    ("private_key", "-----BEGIN RSA PRIVATE KEY-----"),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----"),
    ("high_entropy", "nonce Zx9Qm2Lr7Tb4Wk8Pv3Hs6Nd1Fg5Jc0Y in the log"),
    ("high_entropy", "blob aGVsbG8gd29ybGQgZnJvbSBhc3NheSB0ZXN0cw== at end"),
    ("path", "copied from /srv/vault/packets/a.jsonl yesterday"),
    ("path", "kept in ~/evidence/raw.jsonl"),
    ("path", "relative ../judgments/A.jsonl too"),
    ("path", r"on C:\Users\coord\packet.jsonl as well"),
    ("path", r"share \\fileserver\study\A.jsonl"),
    ("mode", "found by the lexical retriever"),
    ("mode", "ranked by BM25"),
    ("mode", "this came from Semantic search"),
    ("mode", "hybrid fusion put it first"),
    ("mode", "the reranked list"),
    ("mode", "graph-assisted candidates"),
    ("personal_name", "Customer Rahim Uddin of Mirpur called"),
    ("personal_name", "signed by Dr. Nasrin Akter"),
    ("personal_name", "গ্রাহক জনাব রহিম ফোন করেছেন"),
]

# clean text that looks close to a hit: none of these lines names a URL, host, address, phone,
# secret, path or mode. Hits here are false positives.
NEAR_MISS = [
    "The fee for home fibre installation is 500 BDT from 2024-03-01.",
    "Open 24/7, speeds in km/h, and/or at the shop; 1/2 price for students.",
    "See section 3.2.1 of notice TN-001, e.g. version v1.2 or report.pdf.",
    "Ask at any NodiNet shop or in the NodiNet app.",
    "The number of lines went from 2 to 3 to 5 (2023, 2024, 2025).",
    "Processing time: 10 working days, then 7, then 3.",
    "Ratio 3.5 and score 0.75; the cap is 100 GB per month.",
    "Call the support desk through the app; no number is published here.",
    "Refer to the document doc-0123456789 and query q-001.",
    "A semantics question, a graphic design, a paragraph, a photograph.",
    "The hybridisation of plants and lexicography are unrelated words.",
    "internationalisation-and-localisation-guidelines",
    "sha256 4f9a1c0b8e7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f",
    "Bring your ID; the office is at Road 12, House 5, Dhanmondi.",
    "Prices: 1,500 BDT or 2,000 BDT, valid 01.01.2024 to 31.12.2024.",
    "Password rules: use a long passphrase you can remember.",
    "The token of thanks was a small gift.",
    "Use the mobile roaming day pass abroad.",
    "Temporary outages get an outage credit of 5%.",
    "Keep your phone number when switching: number porting takes 3 days.",
]


@pytest.mark.parametrize("kind,line", PLANTED, ids=[f"{k}-{i}" for i, (k, _) in enumerate(PLANTED)])
def test_each_planted_hit_is_found_with_its_kind(kind, line):
    found = scan_line(line)
    assert [k for _, k in found] == [kind], found


def test_every_kind_has_planted_cases():
    assert {k for k, _ in PLANTED} == set(KINDS)


def test_near_miss_clean_text_false_positives():
    hits = [(line, scan_line(line)) for line in NEAR_MISS]
    false_positives = [(line, h) for line, h in hits if h]
    # measured: 0 false positives on these 20 near-miss lines (reported in docs/relevance-study.md and the helper's reply)
    assert false_positives == []


def test_the_demo_corpus_and_queries_are_clean():
    hits, files = scan_path(ROOT / "data/relevance/corpus.jsonl")
    assert files == 1 and hits == []
    hits, _ = scan_path(ROOT / "data/relevance/queries.jsonl")
    assert hits == []


def test_hits_name_file_line_column_and_kind_but_never_the_text(tmp_path):
    f = tmp_path / "packet.jsonl"
    f.write_text('{"text": "clean"}\n{"text": "mail ann@example.com now"}\n', encoding="utf-8")
    hits, _ = scan_path(f, show=lambda p: "SHOWN")
    assert [str(h) for h in hits] == ["SHOWN:2:16: email"]
    assert "ann@" not in str(hits[0])


def test_a_folder_is_scanned_file_by_file_and_binary_bytes_do_not_stop_it(tmp_path):
    (tmp_path / "a.txt").write_text("nothing here\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.bin").write_bytes(b"\xff\xfe key AKIAIOSFODNN7EXAMPLE\n")
    (tmp_path / ".hidden").write_text("https://x.example\n", encoding="utf-8")
    hits, files = scan_path(tmp_path)
    assert files == 2 and [(Path(h.path).name, h.kind) for h in hits] == [("b.bin", "api_key")]


def test_a_missing_path_is_an_error():
    with pytest.raises(FileNotFoundError):
        scan_path("/no/such/file")


def test_extra_mode_names_are_refused_as_words():
    assert scan_text("picked by colbert", "f", modes=["colbert"])[0].kind == "mode"
    assert scan_text("picked by colberts", "f", modes=["colbert"]) == []


def test_entropy_against_a_hand_computation():
    # "abcd": four symbols once each: log2(4) = 2 bits; "aab": -(2/3 log2 2/3 + 1/3 log2 1/3)
    assert entropy("abcd") == 2.0
    assert math.isclose(entropy("aab"), -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3)))
    assert entropy("") == 0.0
