"""Your RAG system, called by assay once per case (params.yaml: rag.versions.mine).

Replace the body of ``answer`` with a call to your own retriever and model. assay passes a request
with ``question``, ``lang``, ``k`` and ``corpus`` (document id -> document with ``text``) and expects
the reply contract back: ``answer`` (text), ``citations`` (document ids), ``abstained`` (bool), plus
the optional ``retrieved`` (document ids, best first) for retrieval metrics. ``request.settings`` is
``rag.versions.mine.settings`` from params.yaml (tune it with ``dvc exp run -S``).

This stand-in ranks whole documents by the question words they contain and answers with the best
document's first sentence that holds one of those words; it abstains when the best document shares
fewer than ``settings["min_overlap"]`` (default 1) words with the question.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.rag.systems import SystemRequest

TOKEN = re.compile(r"[^\W_]+")


def answer(request: SystemRequest) -> dict[str, object]:
    """Answer one case from ``request.corpus``; abstain when no document shares a word with the question."""
    asked = {t for t in TOKEN.findall(request.question.lower()) if len(t) > 3}
    ranking = []
    for doc_id, document in request.corpus.items():
        found = asked & set(TOKEN.findall(document.text.lower()))
        ranking.append((-len(found), doc_id))
    ranking.sort()
    retrieved = [doc_id for _, doc_id in ranking[: request.k]]
    if not ranking or -ranking[0][0] < max(1, int(request.settings.get("min_overlap", 1))):
        return {"answer": "", "citations": [], "abstained": True, "retrieved": retrieved}
    best = ranking[0][1]
    sentences = re.split(r"(?<=[.!?।])\s+", request.corpus[best].text.strip())
    reply = next((s for s in sentences if asked & set(TOKEN.findall(s.lower()))), sentences[0])
    return {"answer": reply, "citations": [best], "abstained": False, "retrieved": retrieved}
