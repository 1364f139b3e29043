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


def sign_folder(folder) -> str:
    """Make a (non-synthetic) signing key for ``folder``: write its public key file there, re-sign every snapshot
    in it with the private key (as a team's queue server would have signed them), and return the private key in
    base64, as ``ASSAY_QUEUE_SIGNING_KEY`` holds it."""
    import base64
    from pathlib import Path

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    from assay.queue.signature import PUBLIC_KEY_FILE, public_key_of, sign
    from assay.queue.snapshot import read_snapshot, write_snapshot

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    (folder / PUBLIC_KEY_FILE).write_text(public_key_of(key).model_dump_json() + "\n", encoding="utf-8")
    for path in sorted(folder.glob("*.jsonl")):
        write_snapshot(sign(read_snapshot(path, signed=False), key), path)
    return base64.b64encode(key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())).decode("ascii")
