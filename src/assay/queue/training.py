"""Turning reviews into training data: SFT and DPO examples in the chat ``messages`` format, and
the DPO examples again in TRL's conversational preference format.

Rules, for each saved review:

- a correction becomes the answer to train on, and the answer the reviewer liked less is kept as
  its rejected pair, so the same example also serves preference tuning (DPO). The less-liked
  answer is the one not chosen; after a tie, the one with the lower mean rubric score; when even
  those are equal, the one the judge preferred (the verdict being corrected), else answer ``a``.
  For a single response, the corrected response itself is the rejected answer.
- without a correction, the chosen answer is the answer and the other one is rejected.
- a tie without a correction, and scores on their own (a response reviewed without a
  correction), are not exported; they are counted.

Each example (the seed's shape)::

    {"id": "...", "snapshot": "NAME", "synthetic": false,
     "messages": [{"role": "user", "content": "..."},
      {"role": "assistant", "content": "...", "rejected": "...", "rejectedSource": "review"}]}

and the same preference in TRL's conversational preference format (:func:`trl_preference`), which
TRL's DPO trainer reads as a preference (it does not read ``rejected`` on an assistant turn)::

    {"id": "...", "snapshot": "NAME", "synthetic": false,
     "prompt": [{"role": "user", "content": "..."}],
     "chosen": [{"role": "assistant", "content": "..."}],
     "rejected": [{"role": "assistant", "content": "..."}]}

Synthetic snapshots (``synthetic: true`` on the queue line, such as the shipped ``demo``) are never
mixed with real ones: when any listed snapshot is real, only the real ones are exported and the
synthetic ones are counted as left out; when every listed snapshot is synthetic, they are exported
(so the demo pipeline has files to show) and every row says ``"synthetic": true``. Every row names
the snapshot it came from.

The id is a hash of the queue, item and reviewer, so exporting again after more reviews updates
the same examples instead of adding copies. SFT examples are the corrections; DPO examples are
every exported example (corrections included).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal
from assay.artifacts.queue import TrainingMetrics
from assay.artifacts.rows import ChatExample, PreferenceExample, Turn
from assay.queue.snapshot import Letter, ReviewRow, Snapshot

REJECTED_SOURCE = "review"


@dataclass
class TrainingSet:
    """Examples by id, with the reasons reviews were left out and the snapshots read and left out."""

    sft: dict[str, ChatExample] = field(default_factory=dict)
    dpo: dict[str, ChatExample] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=lambda: {"tie_without_correction": 0, "scores_only": 0})
    exported: list[str] = field(default_factory=list)
    synthetic_left_out: list[str] = field(default_factory=list)

    def examples(self, kind: Literal["sft", "dpo"]) -> list[ChatExample]:
        """The ``sft`` or ``dpo`` examples sorted by id (``reports/training/<kind>.jsonl``)."""
        table = self.sft if kind == "sft" else self.dpo
        return [table[k] for k in sorted(table)]

    def preferences(self) -> list[PreferenceExample]:
        """The DPO examples sorted by id in TRL's conversational preference format (:func:`trl_preference`)."""
        return [trl_preference(self.dpo[k]) for k in sorted(self.dpo)]


def example_id(queue: str, item: str, reviewer: str) -> str:
    """Stable id of the example made from one review."""
    return hashlib.sha256(f"{queue}\0{item}\0{reviewer}".encode()).hexdigest()[:20]


def _mean(scores: dict[str, int]) -> float:
    return sum(scores.values()) / len(scores) if scores else 0.0


def _less_liked(r: ReviewRow) -> Letter:
    if r.choice in ("a", "b"):
        return "b" if r.choice == "a" else "a"
    ma, mb = _mean(r.scores.get("a", {})), _mean(r.scores.get("b", {}))
    if ma != mb:
        return "a" if ma < mb else "b"
    return r.judge.verdict if r.judge.verdict in ("a", "b") else "a"


def example(queue: str, r: ReviewRow, snapshot: str | None = None, synthetic: bool = False) -> tuple[ChatExample | None, str]:
    """The example made from one review and its origin (``correction``/``choice``), or ``(None, reason)``.

    ``snapshot`` is the name the row carries (the queue's name when not given)."""
    if r.kind == "response":
        if r.correction is None:
            return None, "scores_only"
        answer, rejected, origin = r.correction, r.answers["a"], "correction"
    elif r.correction is not None:
        answer, rejected, origin = r.correction, r.answers[_less_liked(r)], "correction"
    elif r.choice == "a" or r.choice == "b":
        other: Letter = "b" if r.choice == "a" else "a"
        answer, rejected, origin = r.answers[r.choice], r.answers[other], "choice"
    else:
        return None, "tie_without_correction"
    turns = [Turn(role=m.role, content=m.content) for m in r.context] if r.context else [Turn(role="user", content=r.question)]
    turns.append(Turn(role="assistant", content=answer, rejected=rejected, rejectedSource=REJECTED_SOURCE))
    return ChatExample(id=example_id(queue, r.item, r.reviewer), snapshot=snapshot or queue, synthetic=synthetic,
                       messages=turns), origin


def trl_preference(ex: ChatExample) -> PreferenceExample:
    """One example in TRL's conversational preference format: ``prompt`` (every turn before the
    answer), ``chosen`` and ``rejected`` (one assistant turn each), beside ``id``, ``snapshot`` and
    ``synthetic``.

    >>> ex = ChatExample(id="x", snapshot="s", synthetic=False, messages=[Turn(role="user", content="q"),
    ...       Turn(role="assistant", content="good", rejected="bad", rejectedSource="review")])
    >>> pref = trl_preference(ex).model_dump(mode="json")
    >>> pref["chosen"], pref["rejected"]
    ([{'role': 'assistant', 'content': 'good'}], [{'role': 'assistant', 'content': 'bad'}])
    """
    *prompt, last = ex.messages
    return PreferenceExample(id=ex.id, snapshot=ex.snapshot, synthetic=ex.synthetic, prompt=prompt,
                             chosen=[Turn(role="assistant", content=last.content)],
                             rejected=[Turn(role="assistant", content=last.rejected or "")])


def training_set(snapshots: Iterable[Snapshot | tuple[str, Snapshot]], into: TrainingSet | None = None) -> TrainingSet:
    """Add the snapshots' examples to ``into`` (a new set by default); an id seen again is replaced.

    Each snapshot is a :class:`Snapshot` (named by its queue) or a ``(name, snapshot)`` pair (named
    by its file, as the stage reads them). When any of them is real, the synthetic ones are left out
    and named in ``synthetic_left_out``; when all are synthetic, all are exported.
    """
    named = [s if isinstance(s, tuple) else (s.queue.name, s) for s in snapshots]
    real = [(name, s) for name, s in named if not s.queue.synthetic]
    chosen = real or named
    out = into or TrainingSet()
    out.synthetic_left_out += [name for name, s in named if real and s.queue.synthetic]
    out.exported += [name for name, _ in chosen]
    for name, snap in chosen:
        for r in snap.reviews:
            ex, origin = example(snap.queue.name, r, snapshot=name, synthetic=snap.queue.synthetic)
            if ex is None:
                out.skipped[origin] += 1
                continue
            out.dpo[ex.id] = ex
            if origin == "correction":
                out.sft[ex.id] = ex
            else:
                out.sft.pop(ex.id, None)
    return out


def training_metrics(ts: TrainingSet) -> TrainingMetrics:
    """Numbers for metrics/training.json."""
    return TrainingMetrics(n_sft=len(ts.sft), n_dpo=len(ts.dpo), skipped_tie_without_correction=ts.skipped["tie_without_correction"],
                           skipped_scores_only=ts.skipped["scores_only"], n_snapshots_exported=len(ts.exported),
                           n_synthetic_snapshots_left_out=len(ts.synthetic_left_out))
