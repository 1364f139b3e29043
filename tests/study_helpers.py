"""A small evidence root for the study's tests: one split folder with pool, packets and judgments.

Grades are chosen by hand so every figure a test checks can be worked out on paper.
"""

from __future__ import annotations

import json
from pathlib import Path

from assay.study.evidence import EvidenceRoot

# (query_id, document_id, doc_id, grade A, grade B): 3 queries, 8 pairs, 3 disagreements
PAIRS = [
    ("q-001", "doc-00000000a1", "pol-1", 2, 2),
    ("q-001", "doc-00000000a2", "pol-2", 0, 1),
    ("q-001", "doc-00000000a3", "pol-3", -1, -1),
    ("q-002", "doc-00000000b1", "pol-4", 1, 1),
    ("q-002", "doc-00000000b2", "pol-5", 0, 0),
    ("q-002", "doc-00000000b3", "pol-6", 2, 0),
    ("q-003", "doc-00000000c1", "pol-7", 1, 1),
    ("q-003", "doc-00000000c2", "pol-8", -1, 0),
]
# B's other fields where they differ from judgment()'s defaults: one pair disputed on its temporal class only
B_FIELDS = {("q-003", "doc-00000000c1"): {"temporal_classification": "historical"}}
# the arbiter's decision of each bundle pair, in packet order: every disputed field and one reason.
# (q-002, b3): A graded 2 and cited it, B graded 0 and cited nothing, so relevance and citations are disputed.
DECISIONS = {("q-001", "doc-00000000a2"): {"relevance": 1, "reason": "partial"},
             ("q-002", "doc-00000000b3"): {"relevance": 2, "acceptable_citation_ids": ["doc-00000000b3"],
                                           "reason": "scope"},
             ("q-003", "doc-00000000c1"): {"temporal_classification": "current", "reason": "temporal"},
             ("q-003", "doc-00000000c2"): {"relevance": -1, "reason": "temporal"}}


def jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")


def judgment(q: str, d: str, grade: int, **fields) -> dict:
    return {"query_id": q, "document_id": d, "relevance": grade, "abstention_correct": False,
            "acceptable_citation_ids": [d] if grade == 2 else [], "temporal_classification": "current", **fields}


def make_split(base: Path, split: str = "development", pairs=PAIRS, decisions=DECISIONS) -> EvidenceRoot:
    """Write pool, packets, queries and both judgment files of ``split`` under ``base``; decisions too."""
    folder = base / split
    position: dict[str, int] = {}
    pool, packet = [], []
    for q, d, doc, _, _ in pairs:
        position[q] = position.get(q, 0) + 1
        pool.append({"query_id": q, "document_id": d, "doc_id": doc, "position": position[q]})
        packet.append({"query_id": q, "query": f"question {q}", "document_id": d, "title": f"title {d}",
                       "text": f"text of {d}"})
    jsonl(folder / "pool.jsonl", pool)
    jsonl(folder / "packet_A.jsonl", packet)
    jsonl(folder / "packet_B.jsonl", packet)
    jsonl(folder / "queries.jsonl", [{"query_id": q, "task": "current", "text": f"question {q}",
                                      "acceptable_citation_ids": ["pol-1"]} for q in dict.fromkeys(p[0] for p in pairs)])
    jsonl(folder / "judgments_A.jsonl", [judgment(q, d, a) for q, d, _, a, _ in pairs])
    jsonl(folder / "judgments_B.jsonl", [judgment(q, d, b, **B_FIELDS.get((q, d), {})) for q, d, _, _, b in pairs])
    jsonl(folder / "decisions.jsonl", [{"query_id": q, "document_id": d, **decided} for (q, d), decided in decisions.items()])
    return EvidenceRoot(base)


def adjudicate(root: EvidenceRoot, split: str, corpus: str, thresholds: str) -> None:
    """Run steps 6-8 on ``split``: receipt, bundle, frozen qrels and the manifest."""
    from assay.core.io import write_json
    from assay.study.bundle import build_bundle, write_bundle
    from assay.study.manifest import build_manifest
    from assay.study.qrels import frozen_rows, write_frozen
    from assay.study.receipt import build_receipt, write_receipt

    write_receipt(root, split, build_receipt(root, split, resamples=200))
    write_bundle(root, split, build_bundle(root, split))
    write_frozen(root, split, frozen_rows(root, split))
    write_json(root.file(split, "manifest.json"),
               build_manifest(root, split, "assay-relevance-study/1", False, corpus, thresholds))
