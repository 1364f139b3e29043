"""A worked example of plugging your own RAG system into assay as a Python callable.

params.yaml::

    rag:
      versions:
        keyword:
          system: callable
          callable: examples.keyword_rag:answer
          source: examples/keyword_rag.py   # editing this file re-runs evaluate@keyword

assay calls ``answer(request)`` once per case. ``request`` has ``question``, ``lang``, ``k`` and
``corpus`` (document id -> Document). Return the reply contract as a dict, plus the optional
``retrieved`` (document ids in rank order) and ``latency_ms``. A real system would call its own
retriever and model here; this one ranks paragraphs by shared words and answers with the best one,
abstaining when fewer than two question words match.
"""

from __future__ import annotations

from assay.data.tokens import UNSPACED, normal_form, tokens


def _words(text: str) -> set[str]:
    """assay's tokens of ``text`` (any script), NFKC and case-folded, longer than two characters or of an
    unspaced script (Chinese, Japanese and Thai give character bigrams, which are all kept)."""
    return {w for w in tokens(normal_form(text)) if len(w) > 2 or UNSPACED.match(w)}


def answer(request) -> dict:
    """Answer one case: the paragraph sharing most words with the question, or an abstention."""
    q = _words(request.question)
    scored = sorted(((len(q & _words(p)), doc_id, p) for doc_id, doc in request.corpus.items() for p in doc.paragraphs()),
                    key=lambda t: (-t[0], t[1]))
    retrieved = list(dict.fromkeys(doc_id for _, doc_id, _ in scored))[: request.k]
    best, doc_id, paragraph = scored[0]
    if best < 2:
        return {"answer": "", "citations": [], "abstained": True, "retrieved": retrieved}
    return {"answer": paragraph, "citations": [doc_id], "abstained": False, "retrieved": retrieved, "latency_ms": 5.0}
