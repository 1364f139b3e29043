"""Building many small objects at once without paying the cyclic garbage collector for it.

CPython's collector runs every few hundred allocations and, as the heap grows, traverses every
tracked object it holds; building 400,000 items, verdicts and judgements in one go (a calibration
of 100,000 pairs in both orders) triggered collections that found nothing and cost a third of the
run (benchmarks/bench_calibration.py). The objects built there hold no reference cycles, so
reference counting frees them; the collector is only postponed, never needed.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


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
