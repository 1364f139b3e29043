"""Make the demo review queue's source and its synthetic review snapshot (run from the repo root).

    python examples/review_demo.py

Writes two committed files:

- data/queues/demo.jsonl: the queue source. Each labelled pair of data/pairs.jsonl with the
  demo judge's label from reports/judge_dimensions.jsonl (the calibrate stage) and judge rubric
  scores made up by a rule (SYNTHETIC: the fake judge gives no scores). The rule is lenient on
  correctness and strict on format, a pattern real judges often show.
- data/reviews/demo.jsonl: a snapshot of SYNTHETIC reviews, labelled ``synthetic`` in its first
  line. A random-fill queue of 30 items is created in a throwaway SQLite database and two scripted
  reviewers work it through the real lease and save code: each picks the annotators' final label,
  scores by a rule, writes a short rationale and, for padded ties, a concise correction.

Deterministic: the same inputs give the same bytes (the tests check this).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

QUEUE, N, SEED = "demo", 30, 7
SOURCE, SNAPSHOT = Path("data/queues/demo.jsonl"), Path("data/reviews/demo.jsonl")
REVIEWERS = ("rev-1", "rev-2")


def _words(text: str) -> int:
    return len(text.split())


def _judge_scores(text: str, facts: list[str]) -> dict[str, int]:
    from assay.judge.fake import cited, fact_share

    share = fact_share(text, facts) if facts else 1.0
    return {"correctness": 5 if share == 1.0 else 4, "helpfulness": 4, "tone": 4,
            "format": 3 if cited(text) else 1}


def _reviewer_scores(text: str, facts: list[str]) -> dict[str, int]:
    from assay.judge.fake import cited, fact_share

    share = fact_share(text, facts) if facts else 1.0
    padded = _words(text) > 40
    return {"correctness": 5 if share == 1.0 else (3 if share > 0 else 1),
            "helpfulness": 3 if padded else (5 if share == 1.0 else 2), "tone": 4,
            "format": (4 if cited(text) else 3) - int(padded)}


NOTES = {
    "clear": "the other answer gets a figure wrong; the reference facts are: {facts}",
    "padded_wrong": "the short answer has the right facts ({facts}); the long one is padded and wrong",
    "cite": "same content; only the chosen answer cites its source",
    "self": "plain and sourced beats the house style",
    "verbose_tie": "same facts; the padding adds nothing",
    "tie": None,
}


def build_source() -> list[dict]:
    from assay.core.io import read_jsonl
    from assay.data.pairs import load_pairs

    judged = {row["id"]: row["judge"] for _, row in read_jsonl("reports/judge_dimensions.jsonl")}
    rows = []
    for p in sorted(load_pairs("data/pairs.jsonl"), key=lambda p: p.id):
        rows.append({"id": p.id, "question": p.case_question, "answers": {"a": p.a, "b": p.b},
                     "models": {"a": f"demo-writer-{'x' if hash_side(p.id) else 'y'}",
                                "b": f"demo-writer-{'y' if hash_side(p.id) else 'x'}"},
                     "human": p.final,
                     "judge": {"verdict": judged[p.id], "identity": "fake judge (params judge) + SYNTHETIC rule scores",
                               "reason": f"fake judge label {judged[p.id]!r}; the fake judge gives no reason",
                               "scores": {"a": _judge_scores(p.a, p.facts), "b": _judge_scores(p.b, p.facts)}}})
    return rows


def hash_side(pair_id: str) -> bool:
    """Which made-up writer wrote answer a (a hash of the id, so it is stable)."""
    import hashlib

    return hashlib.sha256(pair_id.encode()).digest()[0] % 2 == 0


def review_body(item: object, pair, swap: bool) -> dict:
    from assay.queue.review import to_shown

    facts = ", ".join(pair.facts) or "none"
    note = NOTES[pair.kind]
    correction = None
    if pair.kind == "verbose_tie":
        correction = min((pair.a, pair.b), key=_words)
    scores = {to_shown(src, swap): _reviewer_scores(text, pair.facts) for src, text in (("a", pair.a), ("b", pair.b))}
    return {"choice": to_shown(pair.final, swap), "scores": scores, "correction": correction,
            "note": note.format(facts=facts) if note else None}


def main() -> int:
    from assay.core.io import write_jsonl
    from assay.data.pairs import load_pairs
    from assay.queue.fill import item_rows, sample
    from assay.queue.leases import claim, save_review
    from assay.queue.rubric import load_rubric
    from assay.queue.signature import DEMO_KEY, load_private_key, sign
    from assay.queue.snapshot import snapshot_rows, write_snapshot
    from assay.queue.sources import from_jsonl
    from assay.queue.store import open_store

    write_jsonl(SOURCE, build_source())
    pairs = {p.id: p for p in load_pairs("data/pairs.jsonl")}
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "demo.sqlite"), clock=lambda: 1_800_000_000.0)
        picked = sample(from_jsonl(SOURCE), "random", N, SEED)
        rows = item_rows(QUEUE, picked, SEED)
        swaps = {r.id: bool(r.swap) for r in rows}
        store.create_queue(QUEUE, f"{SOURCE} (synthetic demo)", "random", SEED, N, load_rubric(), rows)
        for turn in range(N):
            reviewer = REVIEWERS[turn % 2]
            item = claim(store, QUEUE, reviewer)
            source_id = next(r.source_id for r in rows if r.id == item.item_id)
            save_review(store, QUEUE, item.item_id, reviewer,
                        review_body(item, pairs[source_id], swaps[item.item_id]))
        snap = snapshot_rows(store, QUEUE)
        store.engine.dispose()
    snap.queue.synthetic = True
    snap.queue.note = "SYNTHETIC demo reviews written by examples/review_demo.py, not by people"
    snap.queue.source = str(SOURCE)
    # signed with the demo's synthetic key, whose private half is committed (assay.queue.signature)
    write_snapshot(sign(snap, load_private_key(DEMO_KEY)), SNAPSHOT)
    print(f"{SOURCE}: {len(pairs)} items; {SNAPSHOT}: {len(snap.reviews)} synthetic reviews")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, "src")
    sys.exit(main())
