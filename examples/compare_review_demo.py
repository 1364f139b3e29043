"""Make the demo's SYNTHETIC review snapshot of compared cases, the ppi stage's labelled sample (run from the repo root).

    python examples/compare_review_demo.py

Needs the run tables (``dvc repro evaluate``) and the judge_compare stage's replies. Writes one
committed file, data/reviews/compare_demo.jsonl: a random-fill queue of 60 cases drawn by the real
``--from compare`` source and fill (seed 11) in a throwaway SQLite database, worked through the real
lease and save code by two scripted reviewers, and exported as a snapshot labelled ``synthetic`` in
its first line. No person wrote these reviews. Each scripted reviewer scores both answers by a rule
and picks the higher total (a tie when equal):

- correctness 5 when the answer passes the case's check in the evaluate stage (every fact, or a
  correct abstention), else 2;
- helpfulness 3 when padded (over 40 words), else 4 when it passes and 2 when not;
- tone 4; format 4 when it cites a source, else 3, one less when padded.

Deterministic: the same inputs give the same bytes.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

QUEUE, N, SEED = "compare_demo", 60, 11
SNAPSHOT = Path("data/reviews/compare_demo.jsonl")
REVIEWERS = ("rev-1", "rev-2")


def scores(text: str, passed: bool) -> dict[str, int]:
    """The scripted reviewer's rubric scores of one answer (see the module docstring)."""
    from assay.judge.fake import cited

    padded = len(text.split()) > 40
    return {"correctness": 5 if passed else 2, "helpfulness": 3 if padded else (4 if passed else 2), "tone": 4,
            "format": (4 if cited(text) else 3) - int(padded)}


def review_body(answers: dict[str, str], passed: dict[str, bool], swap: bool) -> dict:
    from assay.queue.review import to_shown

    by_source = {src: scores(answers[src], passed[src]) for src in ("a", "b")}
    total = {src: sum(s.values()) for src, s in by_source.items()}
    choice = "tie" if total["a"] == total["b"] else max(total, key=total.__getitem__)
    return {"choice": to_shown(choice, swap), "scores": {to_shown(src, swap): s for src, s in by_source.items()},
            "correction": None, "note": "SYNTHETIC: scored by the rule of examples/compare_review_demo.py"}


def main() -> int:
    import pandas as pd

    from assay.queue.fill import item_rows, sample
    from assay.queue.leases import claim, save_review
    from assay.queue.rubric import load_rubric
    from assay.queue.signature import DEMO_KEY, load_private_key, sign
    from assay.queue.snapshot import snapshot_rows, write_snapshot
    from assay.queue.sources import load_source
    from assay.queue.store import open_store

    items, described = load_source("compare")
    names = (items[0].models["a"], items[0].models["b"])
    passed = {name: pd.read_parquet(f"data/derived/runs/{name}.parquet", columns=["id", "passed"]).set_index("id")["passed"]
              for name in names}
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "demo.sqlite"), clock=lambda: 1_800_000_000.0)
        picked = sample(items, "random", N, SEED)
        rows = item_rows(QUEUE, picked, SEED)
        by_id = {r.id: (r, item) for r, item in zip(rows, picked, strict=True)}
        store.create_queue(QUEUE, "compare (synthetic demo)", "random", SEED, N, load_rubric(), rows)
        for turn in range(len(picked)):
            reviewer = REVIEWERS[turn % 2]
            leased = claim(store, QUEUE, reviewer)
            row, item = by_id[leased.item_id]
            outcome = {"a": bool(passed[names[0]][item.id]), "b": bool(passed[names[1]][item.id])}
            save_review(store, QUEUE, leased.item_id, reviewer, review_body(dict(item.answers), outcome, bool(row.swap)))
        snap = snapshot_rows(store, QUEUE)
        store.engine.dispose()
    snap.queue.synthetic = True
    snap.queue.note = "SYNTHETIC demo reviews of compared cases written by examples/compare_review_demo.py, not by people"
    snap.queue.source = "compare"
    # signed with the demo's synthetic key, whose private half is committed (assay.queue.signature)
    write_snapshot(sign(snap, load_private_key(DEMO_KEY)), SNAPSHOT)
    print(f"{SNAPSHOT}: {len(snap.reviews)} synthetic reviews of a random sample of {len(items)} compared cases "
          f"({described.split(' (')[0]})")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, "src")
    sys.exit(main())
