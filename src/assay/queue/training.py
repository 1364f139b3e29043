"""Turning reviews into training data: SFT and DPO examples in the chat ``messages`` format.

Rules, for each saved review:

- a correction becomes the answer to train on, and the answer the reviewer liked less is kept as
  its rejected pair, so the same example also serves preference tuning (DPO). The less-liked
  answer is the one not chosen; after a tie, the one with the lower mean rubric score; when even
  those are equal, the one the judge preferred (the verdict being corrected), else answer ``a``.
  For a single response, the corrected response itself is the rejected answer.
- without a correction, the chosen answer is the answer and the other one is rejected.
- a tie without a correction, and scores on their own (a response reviewed without a
  correction), are not exported; they are counted.

Each example::

    {"id": "...", "messages": [{"role": "user", "content": "..."},
      {"role": "assistant", "content": "...", "rejected": "...", "rejectedSource": "review"}]}

The id is a hash of the queue, item and reviewer, so exporting again after more reviews updates
the same examples instead of adding copies. SFT examples are the corrections; DPO examples are
every exported example (corrections included).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from assay.queue.snapshot import ReviewRow, Snapshot

REJECTED_SOURCE = "review"


@dataclass
class TrainingSet:
    """Examples by id, with the reasons reviews were left out."""

    sft: dict[str, dict] = field(default_factory=dict)
    dpo: dict[str, dict] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=lambda: {"tie_without_correction": 0, "scores_only": 0})

    def rows(self, kind: str) -> list[dict]:
        """The ``sft`` or ``dpo`` examples sorted by id."""
        table = self.sft if kind == "sft" else self.dpo
        return [table[k] for k in sorted(table)]


def example_id(queue: str, item: str, reviewer: str) -> str:
    """Stable id of the example made from one review."""
    return hashlib.sha256(f"{queue}\0{item}\0{reviewer}".encode("utf-8")).hexdigest()[:20]


def _mean(scores: dict[str, int]) -> float:
    return sum(scores.values()) / len(scores) if scores else 0.0


def _less_liked(r: ReviewRow) -> str:
    if r.choice in ("a", "b"):
        return "b" if r.choice == "a" else "a"
    ma, mb = _mean(r.scores.get("a", {})), _mean(r.scores.get("b", {}))
    if ma != mb:
        return "a" if ma < mb else "b"
    return r.judge.verdict if r.judge.verdict in ("a", "b") else "a"


def example(queue: str, r: ReviewRow) -> tuple[dict | None, str]:
    """The example made from one review and its origin (``correction``/``choice``), or ``(None, reason)``."""
    if r.kind == "response":
        if r.correction is None:
            return None, "scores_only"
        answer, rejected, origin = r.correction, r.answers["a"], "correction"
    elif r.correction is not None:
        answer, rejected, origin = r.correction, r.answers[_less_liked(r)], "correction"
    elif r.choice in ("a", "b"):
        other = "b" if r.choice == "a" else "a"
        answer, rejected, origin = r.answers[r.choice], r.answers[other], "choice"
    else:
        return None, "tie_without_correction"
    turns = [m.model_dump() for m in r.context] if r.context else [{"role": "user", "content": r.question}]
    turns.append({"role": "assistant", "content": answer, "rejected": rejected, "rejectedSource": REJECTED_SOURCE})
    return {"id": example_id(queue, r.item, r.reviewer), "messages": turns}, origin


def training_set(snapshots: Iterable[Snapshot], into: TrainingSet | None = None) -> TrainingSet:
    """Add every snapshot's examples to ``into`` (a new set by default); an id seen again is replaced."""
    out = into or TrainingSet()
    for snap in snapshots:
        for r in snap.reviews:
            ex, origin = example(snap.queue.name, r)
            if ex is None:
                out.skipped[origin] += 1
                continue
            out.dpo[ex["id"]] = ex
            if origin == "correction":
                out.sft[ex["id"]] = ex
            else:
                out.sft.pop(ex["id"], None)
    return out


def training_metrics(ts: TrainingSet) -> dict:
    """Numbers for metrics/training.json."""
    return {"n_sft": len(ts.sft), "n_dpo": len(ts.dpo), "skipped_tie_without_correction": ts.skipped["tie_without_correction"],
            "skipped_scores_only": ts.skipped["scores_only"]}
