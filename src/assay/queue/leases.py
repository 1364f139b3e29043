"""Item leases: taking the next item and saving a review, correct under many concurrent reviewers.

Each item has one slot per review wanted (``--reviewers-per-item``, default 1). Taking the next
item leases a free slot to one reviewer until ``now + lease_seconds``; a slot is free when nobody
holds it or its lease has expired, so an abandoned item returns to the queue by itself. Saving
requires a live lease held by the saving reviewer, marks the slot done and stores the review in one
transaction; a saved review is final (a second save is a :class:`~assay.queue.errors.ReviewConflict`).

Why this is correct under concurrency:

- SQLite: every claim and save runs in ``BEGIN IMMEDIATE``, so writers are serialised and each
  sees the previous one's commit; nothing can interleave.
- PostgreSQL (READ COMMITTED): the claim is one ``UPDATE ... WHERE id = (SELECT ... FOR UPDATE
  SKIP LOCKED) RETURNING``, so two claims never lock the same row, and the row's condition is
  re-checked on the newest version once locked (and again by the outer ``WHERE``). With ``LIMIT``
  such a re-check can come back empty while other slots are free; the claim then looks again
  (bounded) before answering "nothing left".
- Saving marks the slot done with one ``UPDATE ... RETURNING`` whose ``WHERE`` requires the
  saver's live lease and ``done = 0``; PostgreSQL re-checks it after waiting for a concurrent save
  of the same slot, so only one of two racing saves gets the row.
- On both, ``reviews`` is unique per slot and per (item, reviewer): even a logic slip could not
  store a double review.

Both run as plain SQL in one transaction (:meth:`~assay.queue.store.QueueStore.transaction`);
:func:`take_next` and :func:`save` also check the bearer token in that same transaction, so a
request is one lock, one ``BEGIN`` and one ``COMMIT``.

A reviewer never holds two slots of one item, and a reviewer who asks again while holding a live
lease gets the same item back (a page reload does not leak leases).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, UTC
from functools import lru_cache

from assay.queue.errors import NotAllowed, ReviewConflict, UnknownQueue
from assay.queue.review import ReviewInvalid, reveal, shown_item, validate_review
from assay.queue.views import Lease, Reveal, RubricCriterion
from assay.queue.rubric import Rubric, parse_rubric
from assay.queue.store import Principal, QueueStore, Transaction

DEFAULT_LEASE_SECONDS = 600.0
_CLAIM_TRIES = 8


class Unauthenticated(Exception):
    """No valid bearer token (the web app answers 401)."""


@dataclass(frozen=True)
class BadBody:
    """A request body the web app could not read as a review: :func:`save` refuses it (422 naming
    ``field``) once the token is checked, so a bad token is still a 401."""

    field: str
    message: str


#: A request body that is not JSON.
NOT_JSON = BadBody("body", "The review could not be read: it is not valid JSON.")


@lru_cache(maxsize=64)
def _rubric(text: str) -> Rubric:
    return parse_rubric(text, "queue rubric")


@lru_cache(maxsize=64)
def _public_rubric(text: str) -> list[RubricCriterion]:
    return _rubric(text).public()


def iso(ts: float) -> str:
    """Epoch seconds as an ISO 8601 UTC time with milliseconds.

    >>> iso(0.0)
    '1970-01-01T00:00:00.000Z'
    """
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ts * 1000) % 1000:03d}Z"


# Plain SQL with :name parameters (PostgreSQL gets %(name)s); ``{lock}`` parts are PostgreSQL-only.
_FREE_WHERE = """s.queue = :queue AND s.done = 0 AND (s.lease_until IS NULL OR s.lease_until <= :now)
  AND NOT EXISTS (SELECT 1 FROM slots o WHERE o.item_id = s.item_id AND o.id <> s.id AND o.reviewer = :reviewer
                  AND (o.done = 1 OR o.lease_until > :now))"""
_FREE = f"SELECT s.id FROM slots s WHERE {_FREE_WHERE} ORDER BY s.position, s.slot LIMIT 1"
_LEASE = f"""UPDATE slots SET reviewer = :reviewer, lease_until = :until
WHERE id = (SELECT s.id FROM slots s WHERE {_FREE_WHERE} ORDER BY s.position, s.slot LIMIT 1{{lock}})
  AND done = 0 AND (lease_until IS NULL OR lease_until <= :now)
RETURNING item_id"""
# (no ORDER BY: a reviewer holds at most one live lease, since next returns it before leasing another;
# with one, SQLite would walk the claim index over every open slot instead of ix_slots_holder)
_HELD = """SELECT item_id, lease_until FROM slots
WHERE queue = :queue AND reviewer = :reviewer AND done = 0 AND lease_until > :now LIMIT 1"""
_QUEUE = "SELECT 1 FROM queues WHERE name = :queue"
# the item with its queue's rubric; saving holds the queue row shared, so the rubric cannot change under it
_ITEM = """SELECT i.kind, i.swap, i.payload, i.queue, q.rubric_text FROM items i JOIN queues q ON q.name = i.queue
WHERE i.id = :item_id{lock}"""
_DONE = """UPDATE slots SET done = 1
WHERE item_id = :item_id AND reviewer = :reviewer AND done = 0 AND lease_until > :now RETURNING id"""
_REVIEWED = "SELECT 1 FROM reviews WHERE item_id = :item_id AND reviewer = :reviewer"
_INSERT = """INSERT INTO reviews (slot_id, item_id, queue, reviewer, choice, scores, correction, note, saved_at)
VALUES (:slot_id, :item_id, :queue, :reviewer, :choice, :scores, :correction, :note, :saved_at)"""

_SQL = {dialect: {"lease": _LEASE.format(lock=" FOR UPDATE OF s SKIP LOCKED" if pg else ""),
                  "item": _ITEM.format(lock=""), "item_shared": _ITEM.format(lock=" FOR SHARE OF q" if pg else "")}
        for dialect, pg in (("sqlite", False), ("postgresql", True))}


def claim(store: QueueStore, queue: str, reviewer: str, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> Lease | None:
    """Lease the next item of ``queue`` to ``reviewer``; ``None`` when nothing is left for them.

    Returns:
        The blind item (see :func:`assay.queue.review.shown_item`) plus ``rubric``,
        ``lease_expires`` (ISO 8601 UTC) and ``lease_seconds_left`` (whole seconds, by the server's
        clock, so a page can count down without trusting its own clock). Holding a live lease
        already returns that item again.

    Raises:
        UnknownQueue: no such queue.
    """
    with store.transaction() as tx:
        if tx.one(_QUEUE, {"queue": queue}) is None:
            raise UnknownQueue(f"no queue {queue!r}")
        return _claim(tx, queue, reviewer, store.clock(), lease_seconds)


def take_next(store: QueueStore, token: str | None, queue: str, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> Lease | None:
    """:func:`claim` for the holder of ``token``, checked in the same transaction.

    Raises:
        Unauthenticated: no valid token.
        NotAllowed: the token is not a reviewer's of ``queue``.
    """
    with store.transaction() as tx:
        who = _reviewer(tx.principal(token))
        if who.queue != queue:
            raise NotAllowed(f"your token is for queue {who.queue!r}, not {queue!r}")
        return _claim(tx, queue, who.pseudonym, store.clock(), lease_seconds)


def _claim(tx: Transaction, queue: str, reviewer: str, now: float, lease_seconds: float) -> Lease | None:
    """Lease in ``tx``; ``queue`` exists (checked by the caller, or named by the reviewer's token)."""
    args = {"queue": queue, "reviewer": reviewer, "now": now}
    held = tx.one(_HELD, args)
    if held is not None:
        item_id, until = held
    else:
        until = now + lease_seconds
        row = None
        for _ in range(_CLAIM_TRIES):
            row = tx.one(_SQL[tx.dialect]["lease"], {**args, "until": until})
            if row is not None or not tx.postgresql or tx.one(_FREE, args) is None:
                break
        if row is None:
            return None
        item_id = row[0]
    item = tx.one(_SQL[tx.dialect]["item"], {"item_id": item_id})
    if item is None:  # the lease just taken names an item of this queue
        raise UnknownQueue(f"no item {item_id!r} in queue {queue!r}")
    kind, swap, payload, _, rubric_text = item
    shown = shown_item(item_id, kind, bool(swap), json.loads(payload))
    return Lease(**dict(shown), rubric=_public_rubric(rubric_text), lease_expires=iso(until),
                 lease_seconds_left=max(0, int(until - now)))


def save_review(store: QueueStore, queue: str, item_id: str, reviewer: str, body: object) -> Reveal:
    """Validate and store ``reviewer``'s review of ``item_id``; returns the reveal.

    Raises:
        UnknownQueue: no such item in ``queue`` (another queue's item looks the same as none).
        ReviewInvalid: the body does not fit the item or rubric (names the field).
        ReviewConflict: already reviewed by this reviewer, or the lease is not (or no longer) theirs.
    """
    with store.transaction() as tx:
        return _save(tx, store, queue, item_id, reviewer, body)


def save(store: QueueStore, token: str | None, item_id: str, body: object) -> Reveal:
    """:func:`save_review` for the holder of ``token`` (on their queue), checked in the same transaction.

    Raises:
        Unauthenticated: no valid token.
        NotAllowed: the token is not a reviewer's.
        ReviewInvalid: ``body`` is a :class:`BadBody` (not JSON, nested too deeply), or as in :func:`save_review`.
    """
    with store.transaction() as tx:
        who = _reviewer(tx.principal(token), "saves reviews")
        if isinstance(body, BadBody):
            raise ReviewInvalid(body.field, body.message)
        return _save(tx, store, who.queue, item_id, who.pseudonym, body)


@dataclass(frozen=True)
class _Reviewer:
    """A reviewer's token resolved: the queue it is for and the reviewer's pseudonym."""

    queue: str
    pseudonym: str


def _reviewer(who: Principal | None, does: str = "takes and reviews items") -> _Reviewer:
    if who is None:
        raise Unauthenticated()
    if who.role != "reviewer" or who.queue is None or who.pseudonym is None:  # a reviewer's row has both
        raise NotAllowed(f"only a reviewer {does}; the coordinator creates queues and reads results")
    return _Reviewer(who.queue, who.pseudonym)


def _save(tx: Transaction, store: QueueStore, queue: str, item_id: str, reviewer: str, body: object) -> Reveal:
    now = store.clock()
    item = tx.one(_SQL[tx.dialect]["item_shared"], {"item_id": item_id})
    if item is None or item[3] != queue:
        raise UnknownQueue(f"no item {item_id!r} in queue {queue!r}")
    kind, swap, payload, _, rubric_text = item
    review = validate_review(body, kind, _rubric(rubric_text))
    args = {"item_id": item_id, "reviewer": reviewer, "now": now}
    slot = tx.one(_DONE, args)
    if slot is None:
        if tx.one(_REVIEWED, args):
            raise ReviewConflict(f"item {item_id} is already reviewed by {reviewer}; a saved review is final")
        raise ReviewConflict(f"you do not hold the lease on item {item_id} (it expired or is someone else's); "
                             f"take the next item")
    try:
        tx.run(_INSERT, {"slot_id": slot[0], "item_id": item_id, "queue": queue, "reviewer": reviewer,
                         "choice": review.choice, "scores": json.dumps(review.scores, sort_keys=True),
                         "correction": review.correction, "note": review.note, "saved_at": now})
    except store.integrity_error:
        raise ReviewConflict(f"item {item_id} is already reviewed") from None
    return reveal(kind, bool(swap), json.loads(payload), review.choice)
