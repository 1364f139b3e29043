"""Small builders shared by the queue tests."""

from __future__ import annotations

from assay.queue.fill import item_rows
from assay.queue.items import JudgeOpinion, SourceItem
from assay.queue.rubric import load_rubric
from conftest import ROOT

SCORES = {"correctness": 4, "helpfulness": 3, "tone": 5, "format": 2}
MODEL_A, MODEL_B = "model-alpha-7b", "model-bravo-13b"


def pair_items(n: int, verdict: str = "a", human: str | None = "a", judge_scores: bool = True) -> list[SourceItem]:
    scores = {"a": dict(SCORES), "b": dict(SCORES)} if judge_scores else None
    return [SourceItem(id=f"q{i:04d}", question=f"Question {i}?", answers={"a": f"answer a {i}", "b": f"answer b {i}"},
                       models={"a": MODEL_A, "b": MODEL_B},
                       judge=JudgeOpinion(verdict=verdict, reason=f"JUDGE-REASON-{i}", scores=scores), human=human)
            for i in range(n)]


def rubric():
    return load_rubric(ROOT / "data/rubric.yaml")


def make_queue(store, name: str = "q", n: int = 5, fill: str = "random", reviewers_per_item: int = 1, items=None):
    items = items if items is not None else pair_items(n)
    return store.create_queue(name, "test", fill, 0, len(items), rubric(), item_rows(name, items, 0),
                              reviewers_per_item)


def body(choice: str | None = "A", correction=None, note=None, letters=("A", "B")) -> dict:
    return {"choice": choice, "scores": {k: dict(SCORES) for k in letters}, "correction": correction, "note": note}
