"""Queue storage, leases and reviews on both SQLite and a real PostgreSQL server."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import inspect

from assay.queue import schema
from assay.queue.errors import QueueExists, ReviewConflict, SchemaTooNew, UnknownQueue
from assay.queue.leases import claim, save_review
from assay.queue.review import ReviewInvalid
from assay.queue.rubric import RubricLocked, parse_rubric
from assay.queue.store import QueueStore, make_engine, open_store
from queue_fixtures import db_url, postgres  # noqa: F401
from queue_helpers import MODEL_A, MODEL_B, body, make_queue, rubric


class Clock:
    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def store(db_url):
    clock = Clock()
    s = open_store(db_url, clock=clock)
    yield s
    s.engine.dispose()


def test_migrations_bring_an_old_database_to_the_latest_version(db_url):
    engine = make_engine(db_url)
    assert schema.migrate(engine, upto=1) == 1
    assert "ix_slots_claim" not in {i["name"] for i in inspect(engine).get_indexes("slots")}
    engine.dispose()
    store = open_store(db_url)  # a newer assay opens the older database
    with store.read() as conn:
        assert schema.current_version(conn) == schema.LATEST == 3
    assert {"ix_slots_claim", "ix_slots_holder"} <= {i["name"] for i in inspect(store.engine).get_indexes("slots")}
    assert open_store(db_url) is not None  # opening again applies nothing and does not fail


def test_a_database_from_a_newer_assay_is_refused(db_url):
    store = open_store(db_url)
    with store.write() as conn, conn.begin():
        conn.execute(schema.schema_version.update().values(version=schema.LATEST + 1))
    with pytest.raises(SchemaTooNew, match="newer than this assay"):
        open_store(db_url)


def test_tokens_roles_and_replacement(store):
    make_queue(store)
    token = store.issue_token("reviewer", "q", "ana")
    coord = store.issue_token("coordinator")
    assert store.principal(token).pseudonym == "ana" and store.principal(token).queue == "q"
    assert store.principal(coord).role == "coordinator"
    assert store.principal("not-a-token") is None and store.principal(None) is None
    again = store.issue_token("reviewer", "q", "ana")
    assert store.principal(token) is None and store.principal(again).pseudonym == "ana"
    with pytest.raises(UnknownQueue, match="known queues: q"):
        store.issue_token("reviewer", "nope", "bob")


def test_queue_names_are_unique(store):
    make_queue(store)
    with pytest.raises(QueueExists):
        make_queue(store)


def test_a_leased_item_is_never_given_to_a_second_reviewer_and_returns_after_expiry(store):
    make_queue(store, n=2)
    a1 = claim(store, "q", "ana", lease_seconds=60)
    b1 = claim(store, "q", "bob", lease_seconds=60)
    assert a1.item_id != b1.item_id
    assert claim(store, "q", "cy", lease_seconds=60) is None  # both leased
    assert claim(store, "q", "ana", lease_seconds=60).item_id == a1.item_id  # same item back
    store.clock.t += 61  # ana's and bob's leases expire
    c1 = claim(store, "q", "cy", lease_seconds=60)
    assert c1.item_id in {a1.item_id, b1.item_id}
    with pytest.raises(ReviewConflict, match="do not hold the lease"):
        save_review(store, "q", c1.item_id, "ana" if c1.item_id == a1.item_id else "bob", body())
    save_review(store, "q", c1.item_id, "cy", body())
    assert store.counts("q")["reviewed"] == 1


def test_a_saved_review_is_final_and_reveals_models_and_verdict(store):
    make_queue(store, n=1)
    item = claim(store, "q", "ana")
    shown = str(item)
    assert MODEL_A not in shown and MODEL_B not in shown and "JUDGE-REASON" not in shown
    reveal = save_review(store, "q", item.item_id, "ana", body("A"))
    assert set(reveal.models.values()) == {MODEL_A, MODEL_B}
    assert reveal.judge.reason == "JUDGE-REASON-0"
    # the judge picked source a; it is shown as A or B depending on the item's blind order
    assert reveal.judge.verdict == ("A" if reveal.models["A"] == MODEL_A else "B")
    with pytest.raises(ReviewConflict, match="already reviewed"):
        save_review(store, "q", item.item_id, "ana", body("B"))
    assert claim(store, "q", "bob") is None


def test_bad_reviews_name_the_field_and_store_nothing(store):
    make_queue(store, n=1)
    item = claim(store, "q", "ana")
    cases = [({"choice": "C", "scores": {}}, "choice"),
             ({**body(), "scores": {"A": {"correctness": 6}, "B": {}}}, "scores.A.correctness"),
             ({**body(), "scores": {"A": body()["scores"]["A"]}}, "scores.B"),
             ({**body(), "extra": 1}, "extra"),
             ({**body(), "correction": 5}, "correction")]
    for bad, field in cases:
        with pytest.raises(ReviewInvalid) as info:
            save_review(store, "q", item.item_id, "ana", bad)
        assert info.value.field == field
    assert store.counts("q")["reviewed"] == 0


def test_another_queues_item_is_not_found(store):
    make_queue(store, name="q1", n=1)
    make_queue(store, name="q2", n=1)
    item = claim(store, "q1", "ana")
    with pytest.raises(UnknownQueue):
        save_review(store, "q2", item.item_id, "ana", body())


def test_several_reviewers_per_item_each_review_once(store):
    make_queue(store, n=2, reviewers_per_item=2)
    seen = {}
    for reviewer in ("ana", "bob"):
        for _ in range(2):
            item = claim(store, "q", reviewer)
            save_review(store, "q", item.item_id, reviewer, body())
            seen.setdefault(reviewer, []).append(item.item_id)
        assert claim(store, "q", reviewer) is None  # never the same item twice
    assert sorted(seen["ana"]) == sorted(seen["bob"])
    assert store.counts("q")["reviewed"] == 4


def test_rubric_is_locked_once_anything_is_reviewed(store):
    make_queue(store, n=2)
    changed = parse_rubric(rubric().text.replace("Is it polite", "Is it friendly"))
    store.set_rubric("q", changed)  # nothing reviewed yet: allowed
    assert store.queue("q").rubric.sha256 == changed.sha256
    item = claim(store, "q", "ana")
    save_review(store, "q", item.item_id, "ana", body())
    with pytest.raises(RubricLocked, match="Start a new queue"):
        store.set_rubric("q", rubric())
    assert store.queue("q").rubric.sha256 == changed.sha256


def test_concurrent_claims_in_process_never_share_an_item(store):
    make_queue(store, n=60)
    got: list[str] = []
    lock = threading.Lock()

    def worker(name: str) -> None:
        while (item := claim(store, "q", name)) is not None:
            save_review(store, "q", item.item_id, name, body())
            with lock:
                got.append(item.item_id)

    threads = [threading.Thread(target=worker, args=(f"r{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == len(set(got)) == 60
    assert store.counts("q") == {"items": 60, "slots": 60, "reviewed": 60, "leased": 0}


def test_store_is_a_queue_store(store):
    assert isinstance(store, QueueStore) and store.dialect in ("sqlite", "postgresql")


def test_the_sqlite_hot_path_connection_is_never_lent_to_another_caller(tmp_path):
    # next and review share one SQLite connection under the write lock; were it back in the pool, a
    # reader could be handed it mid-transaction. The pool is first-in first-out and held one idle
    # connection before the hot path took its own, so a leaked one would be the next reader's.
    import gc

    store = open_store(str(tmp_path / "q.sqlite"))
    make_queue(store, n=2)
    item = claim(store, "q", "ana")
    gc.collect()
    hot = store._sqlite.driver_connection
    for _ in range(3):
        with store.read() as conn:
            assert conn.connection.driver_connection is not hot
    save_review(store, "q", item.item_id, "ana", body())
    assert store.counts("q")["reviewed"] == 1
    store.engine.dispose()


def test_take_next_and_save_check_the_token_in_their_transaction(store):
    from assay.queue.errors import NotAllowed
    from assay.queue.leases import NOT_JSON, Unauthenticated, save, take_next

    make_queue(store, n=2)
    make_queue(store, name="other", n=1)
    ana, coord = store.issue_token("reviewer", "q", "ana"), store.issue_token("coordinator")
    for token in (None, "", "not-a-token"):
        with pytest.raises(Unauthenticated):
            take_next(store, token, "q")
        with pytest.raises(Unauthenticated):
            save(store, token, "x", body())
    with pytest.raises(NotAllowed, match="only a reviewer"):
        take_next(store, coord, "q")
    with pytest.raises(NotAllowed, match="your token is for queue 'q', not 'other'"):
        take_next(store, ana, "other")
    item = take_next(store, ana, "q")
    with pytest.raises(ReviewInvalid, match="field 'body': The review could not be read: it is not valid JSON"):
        save(store, ana, item.item_id, NOT_JSON)
    assert take_next(store, ana, "q").item_id == item.item_id  # still held, nothing saved
    assert set(save(store, ana, item.item_id, body()).models.values()) == {MODEL_A, MODEL_B}
    with pytest.raises(ReviewConflict, match="already reviewed by ana"):
        save(store, ana, item.item_id, body())


def test_background_checkpoints_replace_the_ones_in_commits(tmp_path):
    # the hot-path connection stops checkpointing; the thread's passive checkpoints copy every saved
    # review into the database file itself (read here without the WAL); stopping gives SQLite's back
    import shutil
    import sqlite3
    import time

    store = open_store(str(tmp_path / "q.sqlite"))
    make_queue(store, n=40)
    stop = store.checkpoint_in_background(interval=0.01)
    for k in range(40):
        item = claim(store, "q", f"r{k}")
        save_review(store, "q", item.item_id, f"r{k}", body())
    hot = store._sqlite.driver_connection
    assert hot.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    after_writes = store.checkpoints
    deadline = time.monotonic() + 30  # a liveness bound, not a timing claim
    while store.checkpoints < after_writes + 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert store.checkpoints >= after_writes + 2  # one whole checkpoint began after the last commit
    shutil.copy(tmp_path / "q.sqlite", tmp_path / "main-file-only.sqlite")
    with sqlite3.connect(tmp_path / "main-file-only.sqlite") as copy:
        assert copy.execute("SELECT count(*) FROM reviews").fetchone() == (40,)
    stop.set()
    while not store._autocheckpoint and time.monotonic() < deadline:
        time.sleep(0.01)
    with store._write_lock:
        assert hot.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)
    store.engine.dispose()


def test_background_checkpoints_are_sqlite_only(store):
    stop = store.checkpoint_in_background(interval=0.01)
    assert (stop is None) == (store.dialect == "postgresql")
    if stop is not None:
        stop.set()
