"""Filling a queue: a seeded uniform random sample, or hard cases (biased on purpose).

Only a random sample measures how often the judge is right in general. ``hard`` takes
the cases most likely to expose problems: judge-human disagreements, order flips (the judge's
two presentation orders disagreed), small judge margins and cases that flipped between versions.
It is good for finding problems and writing corrections, and misleading as an estimate of overall
agreement, so a hard queue is flagged as biased wherever its results are shown.

Sampling is a prefix of a seeded permutation of the items sorted by id: the same source, seed and
``n`` give the same items in the same order. The per-item blind order (which answer is shown as
"A") comes from a hash of the seed, the queue name and the item id.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from assay.core.errors import InputError, Problem
from assay.queue.items import SourceItem
from assay.queue.store import ItemRow

FILLS = ("random", "hard")
SMALL_MARGIN = 0.1
HARD_REASONS = ("judge_human_disagreement", "order_flip", "small_margin", "version_flip")


def hard_reasons(item: SourceItem, small_margin: float = SMALL_MARGIN) -> list[str]:
    """Why an item is hard (empty when it is not); see :data:`HARD_REASONS`.

    A disagreement needs both a human label and a judge verdict.
    """
    out = []
    verdict = item.judge.verdict
    if item.human is not None and verdict is not None and item.human != verdict:
        out.append("judge_human_disagreement")
    if item.judge.order_flip:
        out.append("order_flip")
    if item.judge.margin is not None and item.judge.margin < small_margin:
        out.append("small_margin")
    if item.version_flip:
        out.append("version_flip")
    return out


def sample(items: Sequence[SourceItem], fill: str, n: int, seed: int, small_margin: float = SMALL_MARGIN) -> list[SourceItem]:
    """Pick up to ``n`` items: all of them when fewer are eligible.

    Raises:
        InputError: an unknown fill, ``n`` below 1, or no item eligible for the fill.
    """
    import numpy as np

    if fill not in FILLS:
        raise InputError([Problem("--fill", None, None, f"{fill!r} is not one of {', '.join(FILLS)}", "use random or hard")])
    if n < 1:
        raise InputError([Problem("--n", None, None, f"{n} is below 1", "ask for at least one item")])
    pool = sorted(items, key=lambda i: i.id)
    if fill == "hard":
        pool = [i for i in pool if hard_reasons(i, small_margin)]
    if not pool:
        raise InputError([Problem("--from", None, None, f"no item fits fill {fill!r}",
                                  "use --fill random, or a source with disagreements, order flips, small margins or version flips")])
    order = np.random.default_rng(seed).permutation(len(pool))[:n]
    return [pool[i] for i in order]


def _digest(*parts: object) -> str:
    return hashlib.sha256("\0".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def item_rows(queue: str, picked: Sequence[SourceItem], seed: int, small_margin: float = SMALL_MARGIN) -> list[ItemRow]:
    """Database rows for the picked items: opaque id, position, blind order and the copied payload.

    The id is a hash of the queue and source id, so it says nothing about models or verdicts.
    """
    rows = []
    for position, item in enumerate(picked):
        payload = {"question": item.question, "answers": dict(item.answers), "models": dict(item.models),
                   "judge": item.judge.model_dump(), "human": item.human, "version_flip": item.version_flip,
                   "context": [m.model_dump() for m in item.context], "hard_reasons": hard_reasons(item, small_margin)}
        if item.reference is not None and (item.reference.facts or item.reference.documents):
            payload["reference"] = item.reference.model_dump(exclude_none=True)  # absent: payload bytes as before
        swap = item.kind == "pair" and int(_digest(seed, queue, item.id)[:8], 16) % 2 == 1
        rows.append(ItemRow(id=_digest("item", queue, item.id)[:24], source_id=item.id, kind=item.kind,
                            position=position, swap=int(swap), payload=json.dumps(payload, sort_keys=True)))
    return rows
