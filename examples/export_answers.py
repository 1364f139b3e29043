"""Write examples/answers.jsonl: the answers-file plug-in's format, produced here by the callable example.

Run from the repository root: ``python examples/export_answers.py``. Your own system would write the
same rows (case_id, answer, citations, abstained, retrieved, latency_ms) from its own logs.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assay.data.corpus import load_corpus  # noqa: E402
from assay.data.cases import load_cases  # noqa: E402
from assay.rag.systems import SystemRequest  # noqa: E402
from examples.keyword_rag import answer  # noqa: E402

corpus = load_corpus("data/corpus")
with open("examples/answers.jsonl", "w", encoding="utf-8") as out:
    for case in sorted(load_cases("data/cases.jsonl", corpus), key=lambda c: c.id):
        reply = answer(SystemRequest(case.id, case.question, case.lang, 3, corpus))
        row = {"case_id": case.id, **reply}
        row.setdefault("latency_ms", None)
        out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
