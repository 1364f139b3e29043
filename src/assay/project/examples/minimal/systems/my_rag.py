"""Your RAG system, called by assay once per case (params.yaml: rag.versions.mine).

Replace the body of ``answer`` with a call to your own retriever and model. assay passes a request
with ``question``, ``lang``, ``k`` and ``corpus`` (document id -> document with ``text``) and expects
the reply contract back: ``answer`` (text), ``citations`` (document ids), ``abstained`` (bool), plus
the optional ``retrieved`` (document ids, best first) for retrieval metrics. ``request.settings`` is
``rag.versions.mine.settings`` from params.yaml (tune it with ``dvc exp run -S``).

This stand-in ranks whole documents by the question words they contain and answers with the best
document's first sentence that holds one of those words; it abstains when the best document shares
fewer than ``settings["min_overlap"]`` (default 1) words with the question. Its words come from
assay's tokeniser (``assay.data.tokens``), which reads any script: marks stay inside Hindi, Bangla
and Arabic words, and Chinese, Japanese and Thai give character bigrams.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from assay.data.tokens import UNSPACED, normal_form, tokens

if TYPE_CHECKING:
    from assay.rag.systems import SystemRequest

# a sentence ends at . ! ? (Latin, Arabic ؟, the danda ।) before blanks, or at Chinese and Japanese 。！？
SENTENCE_END = re.compile(r"(?<=[.!?\u061f\u0964])\s+|(?<=[\u3002\uff01\uff1f])")


def words(text: str) -> set[str]:
    """The words of ``text`` worth matching: longer than three characters, or a bigram of an unspaced script."""
    return {t for t in tokens(normal_form(text)) if len(t) > 3 or UNSPACED.match(t)}


def answer(request: SystemRequest) -> dict[str, object]:
    """Answer one case from ``request.corpus``; abstain when no document shares a word with the question."""
    asked = words(request.question)
    ranking = []
    for doc_id, document in request.corpus.items():
        found = asked & words(document.text)
        ranking.append((-len(found), doc_id))
    ranking.sort()
    retrieved = [doc_id for _, doc_id in ranking[: request.k]]
    if not ranking or -ranking[0][0] < max(1, int(request.settings.get("min_overlap", 1))):
        return {"answer": "", "citations": [], "abstained": True, "retrieved": retrieved}
    best = ranking[0][1]
    sentences = [s for s in SENTENCE_END.split(request.corpus[best].text.strip()) if s]
    reply = next((s for s in sentences if asked & words(s)), sentences[0])
    return {"answer": reply, "citations": [best], "abstained": False, "retrieved": retrieved}
