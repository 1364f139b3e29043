"""The queue database's tables and its ordered migrations.

Tables (SQLAlchemy Core, the same on SQLite and PostgreSQL):

- ``schema_version``: one row, the number of migrations applied.
- ``tokens``: SHA-256 of each bearer token (never the token), its role (``coordinator`` or
  ``reviewer``), and for a reviewer the queue and pseudonym.
- ``queues``: name, source, fill (``random``/``hard``), seed, the rubric's exact text and SHA-256.
- ``items``: copies of what is reviewed (question, answers, model names, the judge's verdict),
  stored as JSON text, with the blind display order (``swap``: answer *b* is shown as "A").
- ``slots``: one row per (item, review wanted); the lease (reviewer, ``lease_until``) lives here,
  and ``done`` turns 1 when the review is saved.
- ``reviews``: one saved review per slot; unique per slot and per (item, reviewer), so the
  database itself refuses a double review.

Migrations are an ordered list of functions; opening a database applies the ones it has not had,
in order, inside one transaction each, so a newer assay opens an older database. Never edit or
reorder a released migration: append a new one.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import (Column, Float, ForeignKey, Integer, MetaData, String, Table, Text,
                        UniqueConstraint, select, text)
from sqlalchemy.engine import Connection, Engine

from assay.queue.errors import SchemaTooNew

metadata = MetaData()

schema_version = Table("schema_version", metadata, Column("version", Integer, nullable=False))

tokens = Table(
    "tokens", metadata,
    Column("token_sha256", String(64), primary_key=True),
    Column("role", String(16), nullable=False),
    Column("queue", String(200), nullable=True),
    Column("pseudonym", String(200), nullable=True),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("role", "queue", "pseudonym", name="uq_tokens_holder"),
)

queues = Table(
    "queues", metadata,
    Column("name", String(200), primary_key=True),
    Column("source", Text, nullable=False),
    Column("fill", String(16), nullable=False),
    Column("seed", Integer, nullable=False),
    Column("n_requested", Integer, nullable=False),
    Column("reviewers_per_item", Integer, nullable=False),
    Column("rubric_text", Text, nullable=False),
    Column("rubric_sha256", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
)

items = Table(
    "items", metadata,
    Column("id", String(64), primary_key=True),
    Column("queue", String(200), ForeignKey("queues.name"), nullable=False),
    Column("source_id", Text, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("position", Integer, nullable=False),
    Column("swap", Integer, nullable=False),
    Column("payload", Text, nullable=False),
    UniqueConstraint("queue", "source_id", name="uq_items_source"),
)

slots = Table(
    "slots", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item_id", String(64), ForeignKey("items.id"), nullable=False),
    Column("queue", String(200), nullable=False),
    Column("position", Integer, nullable=False),
    Column("slot", Integer, nullable=False),
    Column("reviewer", String(200), nullable=True),
    Column("lease_until", Float, nullable=True),
    Column("done", Integer, nullable=False, default=0),
    UniqueConstraint("item_id", "slot", name="uq_slots_item_slot"),
)

reviews = Table(
    "reviews", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("slot_id", Integer, ForeignKey("slots.id"), nullable=False, unique=True),
    Column("item_id", String(64), ForeignKey("items.id"), nullable=False),
    Column("queue", String(200), nullable=False),
    Column("reviewer", String(200), nullable=False),
    Column("choice", String(8), nullable=True),
    Column("scores", Text, nullable=False),
    Column("correction", Text, nullable=True),
    Column("note", Text, nullable=True),
    Column("saved_at", Float, nullable=False),
    UniqueConstraint("item_id", "reviewer", name="uq_reviews_item_reviewer"),
)

_V1_TABLES = [tokens, queues, items, slots, reviews]


def _v1_tables(conn: Connection) -> None:
    for table in _V1_TABLES:
        table.create(conn)


def _v2_claim_index(conn: Connection) -> None:
    # the claim query filters on queue and done and orders by position. Plain DDL: an Index object
    # would attach itself to the Table and be created again by _v1_tables on the next database.
    conn.execute(text("CREATE INDEX ix_slots_claim ON slots (queue, done, position)"))
    conn.execute(text("CREATE INDEX ix_reviews_queue ON reviews (queue)"))


def _v3_held_index(conn: Connection) -> None:
    # "does this reviewer already hold a live lease?" runs on every next; without this index it read
    # every open slot of the queue (0.7 ms per call at 2,000 open items on SQLite).
    conn.execute(text("CREATE INDEX ix_slots_holder ON slots (queue, reviewer, done)"))


MIGRATIONS: list[Callable[[Connection], None]] = [_v1_tables, _v2_claim_index, _v3_held_index]
LATEST = len(MIGRATIONS)


def current_version(conn: Connection) -> int:
    """The number of migrations applied (0 for an empty database)."""
    if not conn.dialect.has_table(conn, "schema_version"):
        return 0
    return int(conn.execute(select(schema_version.c.version)).scalar_one_or_none() or 0)


def migrate(engine: Engine, upto: int = LATEST) -> int:
    """Apply the migrations the database has not had, up to ``upto``; returns the version reached.

    Each migration runs in its own transaction together with the version bump. Concurrent openers
    are safe on PostgreSQL (an advisory lock) and on SQLite (the write lock of BEGIN IMMEDIATE).

    Raises:
        SchemaTooNew: the database is newer than this assay (a downgrade is not supported).
    """
    with engine.connect().execution_options(write=True) as conn, conn.begin():
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(4242011)"))
        if not conn.dialect.has_table(conn, "schema_version"):
            schema_version.create(conn)
            conn.execute(schema_version.insert().values(version=0))
        version = current_version(conn)
        if version > LATEST:
            raise SchemaTooNew(f"queue database has schema version {version}, newer than this assay's {LATEST}; upgrade assay")
        for number in range(version, upto):
            MIGRATIONS[number](conn)
            conn.execute(schema_version.update().values(version=number + 1))
        return current_version(conn)
