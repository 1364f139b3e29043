"""Your RAG system, called by assay once per case (params.yaml: rag.versions.mine).

Replace the body of ``answer`` with a call to your own retriever and model. assay passes a request
with ``question``, ``lang``, ``k`` and ``corpus`` (document id -> document with ``text``) and expects
the reply contract back: ``answer`` (text), ``citations`` (document ids), ``abstained`` (bool), plus
the optional ``retrieved`` (document ids, best first) for retrieval metrics. ``request.settings`` is
``rag.versions.mine.settings`` from params.yaml (tune it with ``dvc exp run -S``).

This stand-in ranks whole documents by how many of the question's words they contain (ties by
document id) and answers with the best document's first sentence that holds one of those words; it
abstains when the best document shares fewer than ``settings["min_overlap"]`` (default 1) words
with the question. Its words come from assay's tokeniser (``assay.data.tokens``), which reads any
script: marks stay inside Hindi, Bangla and Arabic words, and Chinese, Japanese and Thai give
character bigrams.

The corpus is the same for every case, so its words are indexed once, on the first case (which
document holds which word); each case then counts only the documents its own words point to,
milliseconds against 10,000 documents where reading every document again took 0.4 s. Build your
own index (or open your vector store) the same way: once, not per case.
"""

from __future__ import annotations

import heapq
import re
import threading
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

from assay.data.tokens import UNSPACED, normal_form, tokens

if TYPE_CHECKING:
    from assay.data.corpus import Document
    from assay.rag.systems import SystemRequest

# a sentence ends at . ! ? (Latin, Arabic ؟, the danda ।) before blanks, or at Chinese and Japanese 。！？
SENTENCE_END = re.compile(r"(?<=[.!?\u061f\u0964])\s+|(?<=[\u3002\uff01\uff1f])")


def words(text: str) -> set[str]:
    """The words of ``text`` worth matching: longer than three characters, or a bigram of an unspaced script."""
    return {t for t in tokens(normal_form(text)) if len(t) > 3 or UNSPACED.match(t)}


class WordIndex:
    """Which documents hold each word, built once for a corpus; ``doc_ids`` sorted."""

    def __init__(self, corpus: Mapping[str, Document]):
        self.corpus = corpus
        self.doc_ids = sorted(corpus)
        self.postings: dict[str, list[str]] = {}
        for doc_id in self.doc_ids:
            for word in words(corpus[doc_id].text):
                self.postings.setdefault(word, []).append(doc_id)

    def rank(self, asked: set[str], k: int) -> tuple[list[str], int]:
        """The ``k`` best document ids (most shared words, then id) and the best one's count of shared words.

        Documents sharing no word come last, in id order, as a sort of the whole corpus would put them.
        """
        shared = Counter(doc_id for word in asked for doc_id in self.postings.get(word, ()))
        best = heapq.nsmallest(k, shared.items(), key=lambda item: (-item[1], item[0]))
        ranked = [doc_id for doc_id, _ in best]
        for doc_id in self.doc_ids:
            if len(ranked) >= k:
                break
            if doc_id not in shared:
                ranked.append(doc_id)
        return ranked, best[0][1] if best else 0


_index: WordIndex | None = None
_lock = threading.Lock()


def index_for(corpus: Mapping[str, Document]) -> WordIndex:
    """The index of ``corpus``, built on its first case (assay hands every case the same corpus)."""
    global _index
    with _lock:
        if _index is None or _index.corpus is not corpus:
            _index = WordIndex(corpus)
        return _index


def answer(request: SystemRequest) -> dict[str, object]:
    """Answer one case from ``request.corpus``; abstain when no document shares enough words with the question."""
    asked = words(request.question)
    retrieved, overlap = index_for(request.corpus).rank(asked, request.k)
    if overlap < max(1, int(request.settings.get("min_overlap", 1))):
        return {"answer": "", "citations": [], "abstained": True, "retrieved": retrieved}
    best = retrieved[0]
    sentences = [s for s in SENTENCE_END.split(request.corpus[best].text.strip()) if s]
    reply = next((s for s in sentences if asked & words(s)), sentences[0])
    return {"answer": reply, "citations": [best], "abstained": False, "retrieved": retrieved}
