"""Working through many rows in bounded memory: batches of a set size, without paying the cyclic
garbage collector for the small objects each batch builds.

The batch size (:func:`batch_rows`) is a setting, not a param: outputs do not depend on it (tests
check that batches of 1 to 7 rows give the same bytes as the default), only peak memory does. It
comes from the environment variable :data:`BATCH_ENV` (default :data:`DEFAULT_BATCH`).

The collector:

CPython's collector runs every few hundred allocations and, as the heap grows, traverses every
tracked object it holds; building 400,000 items, verdicts and judgements in one go (a calibration
of 100,000 pairs in both orders) triggered collections that found nothing and cost a third of the
run (benchmarks/bench_calibration.py). The objects built there hold no reference cycles, so
reference counting frees them; the collector is only postponed, never needed.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
from collections.abc import Iterable, Iterator
from typing import TypeVar

from assay.core.errors import InputError, Problem

T = TypeVar("T")

#: The environment variable that sets :func:`batch_rows`.
BATCH_ENV = "ASSAY_BATCH_ROWS"
#: Rows per batch when :data:`BATCH_ENV` is not set: 20,000 pairs hold a few tens of MB of objects.
DEFAULT_BATCH = 20_000


def batch_rows() -> int:
    """Rows per batch: the positive integer in ``$ASSAY_BATCH_ROWS``, else :data:`DEFAULT_BATCH`.

    >>> batch_rows() == DEFAULT_BATCH or BATCH_ENV in os.environ
    True

    Raises:
        InputError: the variable is set but is not a positive integer (names the value and the fix).
    """
    raw = os.environ.get(BATCH_ENV, "").strip()
    if not raw:
        return DEFAULT_BATCH
    if not raw.isdigit() or int(raw) < 1:
        raise InputError([Problem(f"${BATCH_ENV}", None, None, f"{raw!r} is not a positive whole number of rows",
                                  f"set {BATCH_ENV} to a number such as {DEFAULT_BATCH}, or unset it")])
    return int(raw)


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last one shorter); nothing for no items.

    >>> list(batched(range(5), 2))
    [[0, 1], [2, 3], [4]]

    Raises:
        ValueError: ``size`` is below 1.
    """
    if size < 1:
        raise ValueError(f"batched: size {size} is below 1 (fix: pass a positive batch size)")
    it = iter(items)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


@contextlib.contextmanager
def bulk() -> Iterator[None]:
    """Pause the cyclic garbage collector inside the block; restore its previous state on exit.

    Objects already alive are moved to the permanent generation first (``gc.freeze``), so the
    first collection after the block does not traverse them either; they are moved back on exit.
    Nested blocks are fine: only the outermost one re-enables the collector. Memory is still freed
    by reference counting; only objects in reference cycles wait until the collector runs again.

    >>> import gc
    >>> with bulk():
    ...     gc.isenabled()
    False
    """
    was_enabled = gc.isenabled()
    gc.disable()
    if was_enabled:
        gc.freeze()
    try:
        yield
    finally:
        if was_enabled:
            gc.unfreeze()
            gc.enable()
