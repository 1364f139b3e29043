"""Errors of the review queue; the web app maps them to HTTP status codes."""

from __future__ import annotations

from assay.core.errors import AssayError


class QueueError(AssayError):
    """Base of every queue error. ``status`` is the HTTP status the web app answers with."""

    status = 400


class BodyTooLarge(QueueError):
    """A request body over the web app's limit (HTTP 413); refused before it is read whole."""

    status = 413


class UnknownQueue(QueueError):
    """No queue (or item) of that name in the database."""

    status = 404


class QueueExists(QueueError):
    """``assay queue create`` with a name already taken."""

    status = 409


class ReviewConflict(QueueError):
    """The item is already reviewed by this reviewer, or the lease is not (or no longer) theirs."""

    status = 409


class NotAllowed(QueueError):
    """The token's role or queue does not allow this call."""

    status = 403


class SchemaTooNew(QueueError):
    """The database was written by a newer assay (its schema version is above this one's)."""
