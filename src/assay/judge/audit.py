"""Auditing stored judge replies: re-ask a seeded sample of the stored requests and count what differs.

Nothing in a stored reply proves the judge wrote it: a forger can rewrite every winner to match
the human label. :func:`rejudge` re-asks ``n`` of the stored requests, drawn with a seeded
``random.Random`` (the same seed draws the same requests), from the live judge and compares each
verdict (winner and status) with the stored one. The audit fails when the share that differs
exceeds the tolerance (params ``judge.rejudge_tolerance``).

What it proves and what it cannot: a low share of differences on a random sample says the stored
replies are what this judge says now, for the sample; a forgery of a few replies can escape a
small sample (with ``k`` forged of ``m``, a sample of ``n`` misses all of them with probability
about ``(1 - k/m)**n``). A judge at temperature above 0, or a model updated behind the same name,
differs from itself: measure that share first (re-run the audit on honest replies) and set the
tolerance above it.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assay.data.pairs import Pair
from assay.judge.base import Judge
from assay.judge.orders import items_for

if TYPE_CHECKING:
    from assay.judge.prompts import PromptVersion


@dataclass(frozen=True)
class Rejudged:
    """The outcome of :func:`rejudge`: how many were asked, which differed (described), the tolerance."""

    asked: int
    tolerance: float
    differed: list[str] = field(default_factory=list)

    @property
    def share(self) -> float:
        """The share of asked requests whose verdict differs; 0.0 when nothing was asked."""
        return len(self.differed) / self.asked if self.asked else 0.0

    @property
    def ok(self) -> bool:
        """True when the share that differs is at most the tolerance."""
        return self.share <= self.tolerance


def rejudge(pairs: Sequence[Pair], prompt: PromptVersion, stored: Judge, live: Judge, n: int, seed: int, swap: bool,
            tolerance: float, also: Collection[tuple[str, str]] = ()) -> Rejudged:
    """Re-ask ``n`` seeded requests of ``items_for(pairs, swap)`` from ``live`` and compare with ``stored``.

    ``stored`` is normally :class:`~assay.judge.replay.ReplayJudge` (it raises ``MissingReply`` for a
    request without a stored reply). ``n`` larger than the number of requests asks them all; ``n``
    of 0 asks nothing (share 0.0). ``also`` adds every request named as ``(pair id, order)`` on top
    of the sample (``assay ci``: every stored reply that changed against the base); a name that is
    not a request is ignored. Each difference is described as ``pair <id> order ab|ba: stored
    <winner> (<status>), now <winner> (<status>)``, in the sample's order.
    """
    items = items_for(pairs, swap)
    names = [(p.id, "ab") for p in pairs] + ([(p.id, "ba") for p in pairs] if swap else [])
    sampled = random.Random(seed).sample(range(len(items)), min(max(n, 0), len(items)))
    wanted = set(also)
    chosen = sorted(set(sampled) | {i for i, name in enumerate(names) if name in wanted})
    if not chosen:
        return Rejudged(0, tolerance)
    sample = [items[i] for i in chosen]
    before, now = stored.judge_many(sample, prompt), live.judge_many(sample, prompt)
    differed = [f"pair {names[i][0]} order {names[i][1]}: stored {b.winner} ({b.status}), now {a.winner} ({a.status})"
                for i, b, a in zip(chosen, before, now, strict=True) if (b.winner, b.status) != (a.winner, a.status)]
    return Rejudged(len(chosen), tolerance, differed)
