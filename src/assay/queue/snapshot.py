"""Review snapshots: the byte-stable JSONL file through which reviews enter the pipeline.

``assay queue export NAME`` writes ``data/reviews/NAME.jsonl``; the pipeline reads only these
committed snapshots, never the live database, so ``dvc repro`` stays reproducible. Line 1 is the
queue (``"type": "queue"``: name, source, fill, seed, rubric SHA-256 and criteria, ``synthetic``),
every other line one saved review (``"type": "review"``) with the item copy in *source* letters
(``a``/``b``, not the shown A/B), sorted by item and reviewer. Keys are sorted and no time stamp
is written, so exporting the same reviews twice gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from assay.core.confinement import PlainName
from assay.core.errors import InputError, Problem
from assay.core.io import read_jsonl, write_jsonl
from assay.core.records import validate_rows
from assay.queue.review import to_source
from assay.queue.items import JudgeOpinion, Message
from assay.core.records import InputModel

if TYPE_CHECKING:
    from assay.queue.store import QueueStore

Letter = Literal["a", "b"]
SNAPSHOT_DIR = "data/reviews"


class ReviewParams(InputModel):
    """The ``review`` section of params.yaml: the snapshots (``data/reviews/NAME.jsonl``) the
    ``review`` stage reads (one ``review@NAME`` stage each) and the ``training`` stage exports."""

    model_config = ConfigDict(extra="forbid")
    snapshots: list[PlainName] = []  # plain names: each becomes data/reviews/NAME.jsonl and reports/review/NAME.md

    def path(self, name: str) -> str:
        """The snapshot file of ``name``."""
        return f"{SNAPSHOT_DIR}/{name}.jsonl"


class QueueMeta(BaseModel):
    """Line 1 of a snapshot."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["queue"] = "queue"
    name: str
    source: str
    fill: Literal["random", "hard"]
    seed: int
    n_items: int
    reviewers_per_item: int
    rubric_sha256: str
    criteria: list[str]
    synthetic: bool = False
    note: str | None = None
    #: Ed25519 signature by the queue server over everything else (:mod:`assay.queue.signature`)
    signature: str | None = None


class ReviewRow(BaseModel):
    """One saved review with its item copy, in source letters."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["review"] = "review"
    item: str
    kind: Literal["pair", "response"]
    reviewer: str
    question: str
    context: list[Message] = []
    answers: dict[Letter, str]
    models: dict[Letter, str] = {}
    judge: JudgeOpinion = JudgeOpinion()
    human: Literal["a", "b", "tie"] | None = None
    hard_reasons: list[str] = []
    shown_order: Literal["ab", "ba"]
    choice: Literal["a", "b", "tie"] | None
    scores: dict[Letter, dict[str, int]]
    correction: str | None = None
    note: str | None = None


class Snapshot(BaseModel):
    """A whole snapshot: the queue and its reviews."""

    model_config = ConfigDict(extra="forbid")
    queue: QueueMeta
    reviews: list[ReviewRow]

    @property
    def random_fill(self) -> bool:
        """True only for a random fill (the only one that estimates overall agreement)."""
        return self.queue.fill == "random"


def judge_identities(snapshot: Snapshot) -> list[str]:
    """The distinct ``judge.identity`` texts of the reviews whose item carries a judge verdict, sorted.

    An item copied with a verdict but no identity adds nothing, so an empty list means the snapshot
    does not name the judge that made its verdicts (the gate then says so).

    >>> judge_identities(Snapshot(queue=QueueMeta(name="q", source="s", fill="random", seed=1, n_items=0,
    ...     reviewers_per_item=1, rubric_sha256="x", criteria=[]), reviews=[]))
    []
    """
    return sorted({r.judge.identity for r in snapshot.reviews if r.judge.verdict is not None and r.judge.identity})


def snapshot_rows(store: QueueStore, name: str) -> Snapshot:
    """The snapshot of queue ``name`` as it stands in ``store`` now."""
    info = store.queue(name)
    rows = []
    for r in store.review_rows(name):
        p, swap = r.payload, r.swap
        rows.append(ReviewRow(
            item=r.source_id, kind=r.kind, reviewer=r.reviewer, question=p["question"],
            context=p.get("context") or [], answers=p["answers"], models=p.get("models") or {},
            judge=JudgeOpinion(**(p.get("judge") or {})), human=p.get("human"),
            hard_reasons=p.get("hard_reasons") or [], shown_order="ba" if swap else "ab",
            choice=to_source(r.choice, swap),
            scores={to_source(letter, swap): sc for letter, sc in r.scores.items()},
            correction=r.correction, note=r.note))
    meta = QueueMeta(name=info.name, source=info.source, fill=info.fill, seed=info.seed,
                     n_items=store.counts(name)["items"], reviewers_per_item=info.reviewers_per_item,
                     rubric_sha256=info.rubric.sha256, criteria=info.rubric.spec.names)
    return Snapshot(queue=meta, reviews=rows)


def write_snapshot(snapshot: Snapshot, path: str | Path) -> None:
    """Write a snapshot atomically and byte-stably (see the module docstring)."""
    lines = [snapshot.queue.model_dump()] + [r.model_dump() for r in snapshot.reviews]
    write_jsonl(path, lines)


def read_snapshot(path: str | Path, signed: bool = True) -> Snapshot:
    """Read and validate a snapshot file, and (``signed``, the default) check the queue server's signature.

    Raises:
        InputError: no queue line first, a bad line (named by line and field), or a repeated
            (item, reviewer).
        SignatureProblem: ``signed`` and the snapshot is unsigned, altered, signed by another key
            than the public key file beside it, or not synthetic under the synthetic demo key
            (:func:`assay.queue.signature.verify_snapshot`).
    """
    rows = read_jsonl(path)
    if not rows or rows[0][1].get("type") != "queue":
        raise InputError([Problem(str(path), 1, "type", "the first line must be the queue line (type: queue)",
                                  "write snapshots with `assay queue export NAME`")])
    (_, meta), = validate_rows(str(path), rows[:1], QueueMeta, key=None)
    reviews = [r for _, r in validate_rows(str(path), rows[1:], ReviewRow, key=None)]
    seen: dict[tuple[str, str], int] = {}
    problems = []
    for (line, _), r in zip(rows[1:], reviews, strict=True):
        key = (r.item, r.reviewer)
        if key in seen:
            problems.append(Problem(str(path), line, "item", f"{r.reviewer} reviewed {r.item!r} twice (first on line {seen[key]})",
                                    "keep one review per item and reviewer"))
        seen.setdefault(key, line)
    if problems:
        raise InputError(problems)
    snapshot = Snapshot(queue=meta, reviews=reviews)
    if signed:
        from assay.queue.signature import verify_snapshot

        verify_snapshot(snapshot, path)
    return snapshot
