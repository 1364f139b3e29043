"""Opening the queue database and the coordinator's writes: queues, items, tokens, the rubric.

The database is SQLite by default (``.assay/queue.sqlite``, WAL mode, outside git) or whatever
``--db URL`` or the ``ASSAY_QUEUE_DB`` environment variable names (``postgresql://...`` uses
psycopg 3). :func:`open_store` applies pending migrations (see :mod:`assay.queue.schema`).

On SQLite every writing transaction starts with ``BEGIN IMMEDIATE`` (connections opened with the
``write=True`` execution option), so two writers never both read and then fight over upgrading
to the write lock; readers use a plain ``BEGIN`` and see the last committed state (WAL).

The two requests every reviewer makes over and over (take the next item, save a review) run
through :meth:`QueueStore.transaction` instead: plain SQL on the driver's own connection, one
transaction per request. SQLAlchemy's per-statement work (compiling, events, result objects)
cost several times the database's own time on SQLite (``benchmarks/bench_queue.py``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, create_engine, event, func, select
from sqlalchemy.engine import Connection, Engine, Row
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.pool import PoolProxiedConnection

from assay.queue import schema as s
from assay.queue.errors import NotAllowed, QueueExists, UnknownQueue
from assay.queue.rubric import Rubric, RubricLocked, parse_rubric

DEFAULT_DB = ".assay/queue.sqlite"
ENV_DB = "ASSAY_QUEUE_DB"
ROLES = ("coordinator", "reviewer")
_AUTOCHECKPOINT = 1000  # SQLite's default wal_autocheckpoint, in pages


def database_url(db: str | None) -> str:
    """The URL to use: ``db`` if given, else ``$ASSAY_QUEUE_DB``, else the default SQLite file.

    A bare path (no ``://``) is taken as a SQLite file; ``postgresql://`` becomes
    ``postgresql+psycopg://`` (psycopg 3).

    >>> database_url("postgresql://u@127.0.0.1:5432/q")
    'postgresql+psycopg://u@127.0.0.1:5432/q'
    >>> database_url("x/q.sqlite")
    'sqlite:///x/q.sqlite'
    """
    url = db or os.environ.get(ENV_DB) or DEFAULT_DB
    if "://" not in url:
        return f"sqlite:///{url}"
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def _sqlite_engine(url: str) -> Engine:
    path = url.removeprefix("sqlite:///")
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 60, "check_same_thread": False},
                           pool_size=32, max_overflow=32)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:  # a sqlite3 connection, the pool's record
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("write") else "BEGIN")

    return engine


def make_engine(db: str | None = None) -> Engine:
    """An engine for ``db`` (see :func:`database_url`), with SQLite set up for many writers."""
    url = database_url(db)
    if url.startswith("sqlite"):
        return _sqlite_engine(url)
    return create_engine(url, pool_size=32, max_overflow=32, pool_pre_ping=True)


def token_hash(token: str) -> str:
    """SHA-256 of a bearer token; only this is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Principal:
    """Who a token belongs to: the role, and for a reviewer the queue and pseudonym."""

    role: str
    queue: str | None
    pseudonym: str | None


@dataclass(frozen=True)
class ItemRow:
    """A queue item as stored (built by :func:`assay.queue.fill.item_rows`): an opaque ``id``, the item's
    ``source_id`` and ``kind``, its ``position`` in the queue, the blind order (``swap`` 0/1) and a copy of
    the item (``payload``, stable JSON), so deleting the source later changes nothing."""

    id: str
    source_id: str
    kind: str
    position: int
    swap: int
    payload: str


@dataclass(frozen=True)
class SavedReview:
    """A saved review joined with its item (:meth:`QueueStore.review_rows`): ``choice`` and ``scores`` as the
    reviewer saw them (letters A/B in the shown order; ``swap`` says whether that order was b, a), the
    item's ``payload`` parsed."""

    source_id: str
    item_id: str
    kind: str
    swap: bool
    payload: dict[str, Any]
    reviewer: str
    choice: str | None
    scores: dict[str, dict[str, int]]
    correction: str | None
    note: str | None


@dataclass(frozen=True)
class QueueInfo:
    """A queue's settings as stored at creation."""

    name: str
    source: str
    fill: str
    seed: int
    n_requested: int
    reviewers_per_item: int
    rubric: Rubric

    @property
    def random_fill(self) -> bool:
        """True only for a uniform random sample: the only fill that estimates overall agreement."""
        return self.fill == "random"


class QueueStore:
    """The queue database. Thread-safe: every method uses its own connection from the pool.

    ``clock`` returns the current time in seconds (``time.time`` by default; tests pass their own).
    """

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time):
        self.engine = engine
        self.clock = clock
        self.dialect = engine.dialect.name
        # SQLite allows one writer at a time. Its busy handler waits by sleeping in steps of up to
        # 100 ms, which turns contention between this process's threads into long pauses; a Python
        # lock hands the turn over at once. The busy timeout still covers other processes.
        self._write_lock = threading.Lock() if self.dialect == "sqlite" else contextlib.nullcontext()
        self._sqlite: PoolProxiedConnection | None = None  # the SQLite connection of :meth:`transaction`, opened on first use
        self._autocheckpoint = True  # False once :meth:`checkpoint_in_background` runs the checkpoints
        #: WAL checkpoints the background thread has run (see :meth:`checkpoint_in_background`)
        self.checkpoints = 0
        #: the driver's unique-violation error (a second review of one slot or by one reviewer)
        self.integrity_error = _dbapi(engine).IntegrityError

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """A connection whose transactions take the write lock first (``BEGIN IMMEDIATE`` on SQLite)."""
        with self._write_lock, self.engine.connect().execution_options(write=True) as conn:
            yield conn

    def read(self) -> Connection:
        """A connection for reading only."""
        return self.engine.connect()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One writing transaction on the driver's connection: committed on success, rolled back on error.

        SQLite: one connection kept for these transactions, used under the write lock, each
        transaction ``BEGIN IMMEDIATE``. PostgreSQL: a connection from the pool (READ COMMITTED).
        """
        if self.dialect == "sqlite":
            with self._write_lock:
                if self._sqlite is None:
                    # checked out of the pool for the store's life: holding the pool's wrapper keeps any
                    # other caller from being handed this connection
                    self._sqlite = self.engine.raw_connection()
                    if not self._autocheckpoint:
                        _driver(self._sqlite).execute("PRAGMA wal_autocheckpoint=0")
                cursor = _driver(self._sqlite).cursor()
                cursor.execute("BEGIN IMMEDIATE")
                try:
                    yield Transaction(cursor, self.dialect)
                    cursor.execute("COMMIT")
                except BaseException:
                    if _driver(self._sqlite).in_transaction:
                        cursor.execute("ROLLBACK")
                    raise
            return
        raw = self.engine.raw_connection()
        try:
            yield Transaction(raw.cursor(), self.dialect)
            raw.commit()
        except BaseException:
            raw.rollback()
            raise
        finally:
            raw.close()

    def checkpoint_in_background(self, interval: float = 0.25) -> threading.Event | None:
        """SQLite: take WAL checkpoints off the request path; returns an event that stops the thread.

        By default SQLite checkpoints inside the commit that grows the WAL past 1000 pages, so one
        ``next`` or ``review`` in a few hundred copies the WAL into the database file and fsyncs it
        while holding the write lock: every request queued behind it waits (the slowest 1% of
        ``benchmarks/bench_queue.py``). Here :meth:`transaction`'s connection stops checkpointing
        (``wal_autocheckpoint=0``) and a daemon thread runs ``PRAGMA wal_checkpoint(PASSIVE)`` on
        its own connection every ``interval`` seconds. When the thread ends (the event is set, or
        a checkpoint raised), the connection checkpoints by itself again (SQLite's default). A passive checkpoint takes no write lock, so
        commits go on meanwhile; once it has copied every frame, the next commit starts the WAL
        over, so the WAL stays as small as one interval's writes. Durability is unchanged: with
        ``synchronous=NORMAL`` a commit is durable once the WAL is synced, which every checkpoint does.

        Other connections (the coordinator's writes, other processes) keep SQLite's own
        autocheckpoint. Call it before the first :meth:`transaction` or after: an open transaction
        connection is switched at once. On PostgreSQL it does nothing and returns ``None``.
        """
        if self.dialect != "sqlite":
            return None
        with self._write_lock:
            self._autocheckpoint = False
            if self._sqlite is not None:
                _driver(self._sqlite).execute("PRAGMA wal_autocheckpoint=0")
        stop = threading.Event()
        conn = self.engine.raw_connection()  # its own, out of the pool for the thread's life

        def run() -> None:
            try:
                while not stop.wait(interval):
                    _driver(conn).execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.checkpoints += 1
            finally:  # stopped, or a checkpoint failed: SQLite checkpoints in the commits again
                conn.close()
                with self._write_lock:
                    self._autocheckpoint = True
                    if self._sqlite is not None:
                        _driver(self._sqlite).execute(f"PRAGMA wal_autocheckpoint={_AUTOCHECKPOINT}")

        threading.Thread(target=run, name="assay-wal-checkpoint", daemon=True).start()
        return stop

    # --- tokens -------------------------------------------------------------------------------
    def issue_token(self, role: str, queue: str | None = None, pseudonym: str | None = None) -> str:
        """A new bearer token for the coordinator or for ``pseudonym`` on ``queue``.

        Issuing again for the same holder replaces the old token (a lost token is replaced, not
        recovered: only hashes are stored).

        Raises:
            UnknownQueue: a reviewer token for a queue that does not exist.
        """
        if role not in ROLES:
            raise NotAllowed(f"role {role!r} is not one of {', '.join(ROLES)}")
        token = secrets.token_urlsafe(32)
        with self.write() as conn, conn.begin():
            if role == "reviewer":
                self._queue_row(conn, queue)
            conn.execute(s.tokens.delete().where(s.tokens.c.role == role,
                                                 _eq(s.tokens.c.queue, queue), _eq(s.tokens.c.pseudonym, pseudonym)))
            conn.execute(s.tokens.insert().values(token_sha256=token_hash(token), role=role, queue=queue,
                                                  pseudonym=pseudonym, created_at=self.clock()))
        return token

    def principal(self, token: str | None) -> Principal | None:
        """Who holds ``token``, or ``None`` for a missing or unknown token."""
        if not token:
            return None
        with self.read() as conn:
            row = conn.execute(_PRINCIPAL, {"sha": token_hash(token)}).first()
        return Principal(row.role, row.queue, row.pseudonym) if row else None

    # --- queues -------------------------------------------------------------------------------
    def create_queue(self, name: str, source: str, fill: str, seed: int, n_requested: int, rubric: Rubric,
                     items: Sequence[ItemRow], reviewers_per_item: int = 1) -> QueueInfo:
        """Store a new queue and copies of its ``items`` (from :func:`assay.queue.fill.item_rows`).

        Raises:
            QueueExists: the name is taken (start a queue under a new name).
        """
        with self.write() as conn, conn.begin():
            if conn.execute(select(s.queues.c.name).where(s.queues.c.name == name)).first():
                raise QueueExists(f"queue {name!r} already exists; choose another name")
            conn.execute(s.queues.insert().values(
                name=name, source=source, fill=fill, seed=seed, n_requested=n_requested,
                reviewers_per_item=reviewers_per_item, rubric_text=rubric.text, rubric_sha256=rubric.sha256,
                created_at=self.clock()))
            if items:
                conn.execute(s.items.insert(), [{**asdict(row), "queue": name} for row in items])
                conn.execute(s.slots.insert(), [
                    {"item_id": row.id, "queue": name, "position": row.position, "slot": k,
                     "reviewer": None, "lease_until": None, "done": 0}
                    for row in items for k in range(reviewers_per_item)])
        return self.queue(name)

    def _queue_row(self, conn: Connection, name: str | None) -> Row[Any]:
        row = conn.execute(select(s.queues).where(s.queues.c.name == name)).first()
        if row is None:
            known = conn.execute(select(s.queues.c.name).order_by(s.queues.c.name)).scalars().all()
            raise UnknownQueue(f"no queue {name!r}; known queues: {', '.join(known) or '(none)'}")
        return row

    def queue(self, name: str) -> QueueInfo:
        """The stored settings of queue ``name``.

        Raises:
            UnknownQueue: no such queue (the message lists the known ones).
        """
        with self.read() as conn:
            row = self._queue_row(conn, name)
        return QueueInfo(row.name, row.source, row.fill, row.seed, row.n_requested, row.reviewers_per_item,
                         parse_rubric(row.rubric_text, f"queue {name} rubric"))

    def queue_names(self) -> list[str]:
        """Every queue's name, sorted."""
        with self.read() as conn:
            return list(conn.execute(select(s.queues.c.name).order_by(s.queues.c.name)).scalars())

    def counts(self, name: str) -> dict[str, int]:
        """``{"items", "slots", "reviewed", "leased"}`` for a queue right now."""
        now = self.clock()
        with self.read() as conn:
            self._queue_row(conn, name)
            n_items = conn.execute(select(func.count()).select_from(s.items).where(s.items.c.queue == name)).scalar_one()
            n_slots, done, leased = conn.execute(select(
                func.count(), func.coalesce(func.sum(s.slots.c.done), 0),
                func.count(s.slots.c.id).filter(s.slots.c.done == 0, s.slots.c.lease_until > now))
                .where(s.slots.c.queue == name)).one()
        return {"items": int(n_items), "slots": int(n_slots), "reviewed": int(done), "leased": int(leased)}

    def set_rubric(self, name: str, rubric: Rubric) -> None:
        """Replace a queue's rubric while nothing in it is reviewed.

        Raises:
            RubricLocked: something is reviewed; the message says to start a new queue.
        """
        with self.write() as conn, conn.begin():
            row = self._queue_row(conn, name)
            reviewed = conn.execute(select(func.count()).select_from(s.reviews).where(s.reviews.c.queue == name)).scalar_one()
            if reviewed and rubric.sha256 != row.rubric_sha256:
                raise RubricLocked(
                    f"the rubric of queue {name!r} is locked: {reviewed} review(s) were saved under rubric "
                    f"sha256 {row.rubric_sha256[:12]}; changing it would make earlier scores mean something else. "
                    f"Start a new queue with the new rubric (assay queue create NEW_NAME ... --rubric FILE)")
            conn.execute(s.queues.update().where(s.queues.c.name == name)
                         .values(rubric_text=rubric.text, rubric_sha256=rubric.sha256))

    # --- reading reviews ------------------------------------------------------------------------
    def review_rows(self, name: str) -> list[SavedReview]:
        """Every saved review of a queue joined with its item, sorted by (source id, reviewer)."""
        with self.read() as conn:
            self._queue_row(conn, name)
            rows = conn.execute(
                select(s.items.c.source_id, s.items.c.id, s.items.c.kind, s.items.c.swap, s.items.c.payload,
                       s.reviews.c.reviewer, s.reviews.c.choice, s.reviews.c.scores, s.reviews.c.correction,
                       s.reviews.c.note)
                .join(s.items, s.items.c.id == s.reviews.c.item_id)
                .where(s.reviews.c.queue == name)).all()
        out = [SavedReview(source_id=r.source_id, item_id=r.id, kind=r.kind, swap=bool(r.swap),
                           payload=json.loads(r.payload), reviewer=r.reviewer, choice=r.choice,
                           scores=json.loads(r.scores), correction=r.correction, note=r.note) for r in rows]
        return sorted(out, key=lambda r: (r.source_id, r.reviewer))


class Transaction:
    """A driver cursor inside :meth:`QueueStore.transaction`; SQL uses ``:name`` parameters on every database."""

    def __init__(self, cursor: Any, dialect: str):  # a DB-API cursor (sqlite3 or psycopg)
        self.cursor = cursor
        self.dialect = dialect
        self.postgresql = dialect == "postgresql"

    def one(self, sql: str, params: dict) -> tuple | None:
        """The first row of ``sql`` (or ``None``)."""
        self.run(sql, params)
        return self.cursor.fetchone()

    def run(self, sql: str, params: dict) -> None:
        """Execute ``sql`` (for a statement that returns no rows)."""
        self.cursor.execute(_pyformat(sql) if self.postgresql else sql, params)

    def principal(self, token: str | None) -> Principal | None:
        """Who holds ``token`` (``None`` for a missing or unknown token), read in this transaction."""
        row = self.one(_PRINCIPAL_SQL, {"sha": token_hash(token)}) if token else None
        return Principal(*row) if row else None


_PRINCIPAL_SQL = "SELECT role, queue, pseudonym FROM tokens WHERE token_sha256 = :sha"


@functools.lru_cache(maxsize=256)
def _pyformat(sql: str) -> str:
    """``:name`` parameters as psycopg's ``%(name)s``.

    >>> _pyformat("SELECT 1 FROM t WHERE a = :a AND b = :b_2")
    'SELECT 1 FROM t WHERE a = %(a)s AND b = %(b_2)s'
    """
    return re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", sql)


_PRINCIPAL = (select(s.tokens.c.role, s.tokens.c.queue, s.tokens.c.pseudonym)
              .where(s.tokens.c.token_sha256 == bindparam("sha")))  # built once: every request runs it


def _eq(column: ColumnElement[Any], value: object) -> ColumnElement[bool]:
    return column.is_(None) if value is None else column == value


def open_store(db: str | None = None, clock: Callable[[], float] = time.time) -> QueueStore:
    """Open (creating and migrating as needed) the queue database named by ``db``."""
    engine = make_engine(db)
    s.migrate(engine)
    return QueueStore(engine, clock)


def _driver(conn: PoolProxiedConnection) -> Any:
    """The driver's own connection (sqlite3, psycopg) under SQLAlchemy's pool wrapper.

    Raises:
        RuntimeError: the wrapper no longer holds a connection (closed or invalidated).
    """
    driver = conn.driver_connection
    if driver is None:
        raise RuntimeError("queue store: the pooled connection is closed")
    return driver


def _dbapi(engine: Engine) -> Any:
    """The engine's DB-API module (``sqlite3``, ``psycopg``); SQLAlchemy types it optional, a real engine has one."""
    dbapi = engine.dialect.dbapi
    if dbapi is None:
        raise RuntimeError(f"queue store: the {engine.dialect.name} dialect has no DB-API driver loaded")
    return dbapi
