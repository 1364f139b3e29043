"""Pooling and packets: the union of every mode's top k plus unretrieved random documents, opaque ids, identical blind packets."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
from pathlib import Path

import pytest

from assay.relevance.corpus import StudyDocument, StudyQuery
from assay.relevance.trec import run_from_rankings
from assay.study import pooling
from assay.study.packets import PacketMismatch, packet_rows, require_identical, write_packets
from assay.study.pooling import PoolError, build_pool, load_salt, opaque_id
from assay.study.scan import scan_path

DOCS = [StudyDocument(doc_id=f"d{i:02d}", family=f"f{i}", kind="policy", title=f"Title {i}", text=f"text {i}",
                      valid_from=dt.date(2024, 1, 1)) for i in range(20)]
QUERIES = [StudyQuery(query_id="q1", task="abstain", text="first?"),
           StudyQuery(query_id="q2", task="abstain", text="second?")]
# lexical ranks d00..d05, semantic d03..d08 (scores descending); q2 only in lexical
RUNS = {"lexical": run_from_rankings({"q1": [(f"d{i:02d}", 10.0 - i) for i in range(6)],
                                      "q2": [("d10", 1.0)]}, "lexical"),
        "semantic": run_from_rankings({"q1": [(f"d{i:02d}", 1.0 - i / 100) for i in range(3, 9)]}, "semantic")}


def test_opaque_id_is_an_hmac_restated():
    expected = "doc-" + hmac.new(b"salt-1234567890ab", b"d01", hashlib.sha256).hexdigest()[:10]
    assert opaque_id("salt-1234567890ab", "d01") == expected


def test_the_pool_is_the_union_of_top_k_plus_unretrieved_random_documents():
    pool = build_pool("development", DOCS, QUERIES, RUNS, k=3, n_random=4, seed=1, salt="s" * 16)
    real = {}
    for r in pool.rows:
        real.setdefault(r.query_id, []).append(r.doc_id)
    q1 = set(real["q1"])
    # top 3 of lexical: d00 d01 d02; of semantic: d03 d04 d05
    assert {"d00", "d01", "d02", "d03", "d04", "d05"} <= q1 and len(q1) == 10
    assert not (q1 - {f"d{i:02d}" for i in range(6)}) & {"d06", "d07", "d08"}  # random never a retrieved document
    assert len(real["q2"]) == 5 and "d10" in real["q2"]
    assert pool.summary() == {"queries": 2, "candidates": 15, "from_modes": 7, "from_random": 8, "random_shortfall": 0}
    assert [r.position for r in pool.rows if r.query_id == "q1"] == list(range(1, 11))


def test_the_pool_is_seeded_and_a_query_does_not_depend_on_the_others():
    a = build_pool("development", DOCS, QUERIES, RUNS, 3, 4, 1, "s" * 16)
    b = build_pool("development", DOCS, QUERIES[:1], RUNS, 3, 4, 1, "s" * 16)
    assert [r for r in a.rows if r.query_id == "q1"] == b.rows
    c = build_pool("development", DOCS, QUERIES, RUNS, 3, 4, 2, "s" * 16)
    assert [r.doc_id for r in c.rows] != [r.doc_id for r in a.rows]  # another seed shuffles otherwise


def test_the_shortfall_is_drawn_below_k_and_counted():
    docs = DOCS[:8]  # every document d00..d08 is retrieved for q1, none is left unretrieved
    pool = build_pool("development", docs, QUERIES[:1], RUNS, 3, 4, 1, "s" * 16)
    q1 = [r.doc_id for r in pool.rows]
    assert len(q1) == 8 and pool.random_shortfall == 2  # 6 pooled + the only 2 outside the top-k union (d06, d07)


def test_opaque_ids_are_the_same_document_across_queries_and_a_collision_is_refused(monkeypatch):
    pool = build_pool("development", DOCS, QUERIES, RUNS, 3, 4, 1, "s" * 16)
    ids = {}
    for r in pool.rows:
        assert ids.setdefault(r.doc_id, r.document_id) == r.document_id
    monkeypatch.setattr(pooling, "opaque_id", lambda salt, doc: "doc-0000000000")
    with pytest.raises(PoolError, match="share an opaque id"):
        build_pool("development", DOCS, QUERIES, RUNS, 3, 4, 1, "s" * 16)


def test_the_salt_is_made_once_and_a_bad_salt_is_refused(tmp_path):
    salt = load_salt(tmp_path / "salt.json")
    assert len(salt) == 64 and load_salt(tmp_path / "salt.json") == salt
    (tmp_path / "bad.json").write_text('{"salt": "short"}', encoding="utf-8")
    with pytest.raises(PoolError, match="no salt"):
        load_salt(tmp_path / "bad.json")
    with pytest.raises(PoolError, match="missing"):
        load_salt(tmp_path / "none.json", create=False)


def test_packets_are_identical_blind_and_clean(tmp_path):
    pool = build_pool("development", DOCS, QUERIES, RUNS, 3, 4, 1, "s" * 16)
    a, b = write_packets(tmp_path, packet_rows(pool.rows, DOCS, QUERIES))
    assert a.read_bytes() == b.read_bytes()
    require_identical(tmp_path)
    rows = [json.loads(line) for line in a.read_text(encoding="utf-8").splitlines()]
    assert [(r["query_id"], r["document_id"]) for r in rows] == [(r.query_id, r.document_id) for r in pool.rows]
    assert set(rows[0]) == {"query_id", "query", "document_id", "title", "text"}
    text = a.read_text(encoding="utf-8")
    assert all(f'"{d.doc_id}"' not in text for d in DOCS)  # no corpus id
    assert scan_path(a)[0] == []  # no mode name, nothing else either
    b.write_text(b.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(PacketMismatch):
        require_identical(tmp_path)



def test_pooling_from_one_mode_alone_is_refused(tmp_path):
    from assay.core.errors import InputError
    from assay.relevance.params import RelevanceParams
    from assay.study.evidence import EvidenceRoot
    from assay.study.pooling import pool_step
    from assay.study.protocol import STUDY_FILE, load_study

    root = Path(__file__).resolve().parents[1]
    with pytest.raises(InputError, match="relevance.modes"):
        pool_step(load_study(root / STUDY_FILE), EvidenceRoot(tmp_path), RelevanceParams(modes=["lexical"]))
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_real_study_measures_every_modes_latency_and_the_demo_models_it(tmp_path, monkeypatch):
    """pool_step on the demo's split with ``synthetic: false``: each run's side file holds measured wall times,
    every query timed as often as p95's upper bound needs; the demo's committed runs (synthetic) hold modelled ones."""
    import shutil

    from assay.relevance.latency import from_side, repetitions_for
    from assay.relevance.params import RelevanceParams
    from assay.study.evidence import QUERIES, SPLIT_FILE, SPLITS, EvidenceRoot, run_names
    from assay.study.pooling import pool_step
    from assay.study.protocol import STUDY_FILE, load_study

    repo = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(repo)
    demo = load_study(repo / STUDY_FILE)
    assert demo.synthetic and demo.demo_evidence is not None
    params = RelevanceParams(modes=["lexical", "semantic"])
    for split in SPLITS:
        (tmp_path / split).mkdir()
        shutil.copy(repo / demo.demo_evidence / split / QUERIES, tmp_path / split / QUERIES)
    shutil.copy(repo / demo.demo_evidence / SPLIT_FILE, tmp_path / SPLIT_FILE)
    pool_step(demo.model_copy(update={"synthetic": False}), EvidenceRoot(tmp_path), params)
    for split in SPLITS:
        queries = len((tmp_path / split / QUERIES).read_text(encoding="utf-8").splitlines())
        for mode in params.modes:
            measured = from_side(json.loads((tmp_path / split / run_names(mode)[1]).read_text(encoding="utf-8")))
            reps = repetitions_for(queries)
            assert (measured.kind, measured.queries, measured.repetitions) == ("measured", queries, reps)
            assert len(measured.values) == queries * reps >= 72
            side = json.loads((repo / demo.demo_evidence / split / run_names(mode)[1]).read_text(encoding="utf-8"))
            modelled = from_side(side)
            assert (modelled.kind, modelled.repetitions, len(modelled.values)) == ("modelled", 1, queries)
            assert "latency_samples_ms" not in side
