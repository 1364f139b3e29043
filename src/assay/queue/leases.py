"""Item leases: taking the next item and saving a review, correct under many concurrent reviewers.

Each item has one slot per review wanted (``--reviewers-per-item``, default 1). Taking the next
item leases a free slot to one reviewer until ``now + lease_seconds``; a slot is free when nobody
holds it or its lease has expired, so an abandoned item returns to the queue by itself. Saving
requires a live lease held by the saving reviewer, marks the slot done and stores the review in one
transaction; a saved review is final (a second save is a :class:`~assay.queue.errors.ReviewConflict`).

Why this is correct under concurrency:

- SQLite: every claim and save runs in ``BEGIN IMMEDIATE``, so writers are serialised and each
  sees the previous one's commit; the select-then-update cannot interleave.
- PostgreSQL (READ COMMITTED): the claim selects a free slot ``FOR UPDATE SKIP LOCKED``, so two
  claims never lock the same row, and the row's condition is re-checked on the newest version once
  locked. With ``LIMIT`` such a re-check can come back empty while other slots are free; the claim
  then looks again (bounded) before answering "nothing left".
- On both, ``reviews`` is unique per slot and per (item, reviewer), and the slot update requires
  ``done = 0``: even a logic slip could not store a double review.

A reviewer never holds two slots of one item, and a reviewer who asks again while holding a live
lease gets the same item back (a page reload does not leak leases).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from functools import lru_cache

from sqlalchemy import and_, bindparam, exists, or_, select
from sqlalchemy.exc import IntegrityError

from assay.queue import schema as s
from assay.queue.errors import ReviewConflict, UnknownQueue
from assay.queue.review import reveal, shown_item, validate_review
from assay.queue.rubric import Rubric, parse_rubric
from assay.queue.store import QueueStore

DEFAULT_LEASE_SECONDS = 600.0
_CLAIM_TRIES = 8


@lru_cache(maxsize=64)
def _rubric(text: str) -> Rubric:
    return parse_rubric(text, "queue rubric")


def iso(ts: float) -> str:
    """Epoch seconds as an ISO 8601 UTC time with milliseconds.

    >>> iso(0.0)
    '1970-01-01T00:00:00.000Z'
    """
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ts * 1000) % 1000:03d}Z"


# Statements are built once with bound parameters: building SQLAlchemy expressions per request
# costs more CPU than running them on SQLite.
_OTHER = s.slots.alias("other")
_MINE_ELSEWHERE = exists().where(and_(_OTHER.c.item_id == s.slots.c.item_id, _OTHER.c.id != s.slots.c.id,
                                      _OTHER.c.reviewer == bindparam("reviewer"),
                                      or_(_OTHER.c.done == 1, _OTHER.c.lease_until > bindparam("now"))))
_FREE = (select(s.slots.c.id, s.slots.c.item_id)
         .where(s.slots.c.queue == bindparam("queue"), s.slots.c.done == 0,
                or_(s.slots.c.lease_until.is_(None), s.slots.c.lease_until <= bindparam("now")), ~_MINE_ELSEWHERE)
         .order_by(s.slots.c.position, s.slots.c.slot).limit(1))
_FREE_LOCKED = _FREE.with_for_update(skip_locked=True, of=s.slots)
_HELD = (select(s.slots.c.id, s.slots.c.item_id, s.slots.c.lease_until)
         .where(s.slots.c.queue == bindparam("queue"), s.slots.c.reviewer == bindparam("reviewer"),
                s.slots.c.done == 0, s.slots.c.lease_until > bindparam("now"))
         .order_by(s.slots.c.position).limit(1))
# (update statements may not reuse a column's name as a bind name)
_LEASE = (s.slots.update().where(s.slots.c.id == bindparam("b_slot"))
          .values(reviewer=bindparam("b_reviewer"), lease_until=bindparam("b_until")))
_RUBRIC = select(s.queues.c.rubric_text).where(s.queues.c.name == bindparam("queue"))
_RUBRIC_SHARED = _RUBRIC.with_for_update(read=True)
_ITEM = (select(s.items.c.kind, s.items.c.swap, s.items.c.payload, s.items.c.queue)
         .where(s.items.c.id == bindparam("item_id")))
_REVIEWED = select(s.reviews.c.id).where(s.reviews.c.item_id == bindparam("item_id"),
                                         s.reviews.c.reviewer == bindparam("reviewer"))
_MY_SLOT = (select(s.slots.c.id).where(s.slots.c.item_id == bindparam("item_id"),
                                       s.slots.c.reviewer == bindparam("reviewer"), s.slots.c.done == 0,
                                       s.slots.c.lease_until > bindparam("now")).with_for_update())
_DONE = (s.slots.update().where(s.slots.c.id == bindparam("b_slot"), s.slots.c.done == 0,
                                s.slots.c.reviewer == bindparam("b_reviewer")).values(done=1))


def claim(store: QueueStore, queue: str, reviewer: str, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> dict | None:
    """Lease the next item of ``queue`` to ``reviewer``; ``None`` when nothing is left for them.

    Returns:
        The blind item (see :func:`assay.queue.review.shown_item`) plus ``rubric`` and
        ``lease_expires`` (ISO 8601 UTC). Holding a live lease already returns that item again.

    Raises:
        UnknownQueue: no such queue.
    """
    now = store.clock()
    pg = store.dialect == "postgresql"
    with store.write() as conn, conn.begin():
        qrow = conn.execute(_RUBRIC, {"queue": queue}).first()
        if qrow is None:
            raise UnknownQueue(f"no queue {queue!r}")
        args = {"queue": queue, "reviewer": reviewer, "now": now}
        held = conn.execute(_HELD, args).first()
        if held is not None:
            item_id, until = held.item_id, held.lease_until
        else:
            row = None
            for _ in range(_CLAIM_TRIES):
                row = conn.execute(_FREE_LOCKED if pg else _FREE, args).first()
                if row is not None or not pg or conn.execute(_FREE, args).first() is None:
                    break
            if row is None:
                return None
            until = now + lease_seconds
            conn.execute(_LEASE, {"b_slot": row.id, "b_reviewer": reviewer, "b_until": until})
            item_id = row.item_id
        item = conn.execute(_ITEM, {"item_id": item_id}).one()
    shown = shown_item(item_id, item.kind, bool(item.swap), json.loads(item.payload))
    return {**shown, "rubric": _rubric(qrow.rubric_text).public(), "lease_expires": iso(until)}


def save_review(store: QueueStore, queue: str, item_id: str, reviewer: str, body: object) -> dict:
    """Validate and store ``reviewer``'s review of ``item_id``; returns the reveal.

    Raises:
        UnknownQueue: no such item in ``queue`` (another queue's item looks the same as none).
        ReviewInvalid: the body does not fit the item or rubric (names the field).
        ReviewConflict: already reviewed by this reviewer, or the lease is not (or no longer) theirs.
    """
    now = store.clock()
    with store.write() as conn, conn.begin():
        item = conn.execute(_ITEM, {"item_id": item_id}).first()
        if item is None or item.queue != queue:
            raise UnknownQueue(f"no item {item_id!r} in queue {queue!r}")
        rubric_text = conn.execute(_RUBRIC_SHARED, {"queue": queue}).scalar_one()
        review = validate_review(body, item.kind, _rubric(rubric_text))
        args = {"item_id": item_id, "reviewer": reviewer, "now": now}
        if conn.execute(_REVIEWED, args).first():
            raise ReviewConflict(f"item {item_id} is already reviewed by {reviewer}; a saved review is final")
        slot = conn.execute(_MY_SLOT, args).first()
        if slot is None:
            raise ReviewConflict(f"you do not hold the lease on item {item_id} (it expired or is someone else's); "
                                 f"take the next item")
        done = conn.execute(_DONE, {"b_slot": slot.id, "b_reviewer": reviewer})
        if done.rowcount != 1:
            raise ReviewConflict(f"item {item_id} was saved by a concurrent request")
        try:
            conn.execute(s.reviews.insert().values(
                slot_id=slot.id, item_id=item_id, queue=queue, reviewer=reviewer, choice=review.choice,
                scores=json.dumps(review.scores, sort_keys=True), correction=review.correction,
                note=review.note, saved_at=now))
        except IntegrityError:
            raise ReviewConflict(f"item {item_id} is already reviewed") from None
    return reveal(item.kind, bool(item.swap), json.loads(item.payload), review.choice)
