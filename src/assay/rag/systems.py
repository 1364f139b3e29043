"""The systems a RAG version can run: the built-in reference system and two plug-ins.

Every system turns cases into :class:`SystemOutput` rows: the raw reply text (the runner parses it
strictly against the reply contract), the retrieved document ids in rank order, and a latency.

* :class:`ReferenceSystem`: chunking + :class:`~assay.rag.retrieval.LexicalIndex` + two guards
  (minimum score, minimum margin) + :class:`CopyTopChunkModel`. The model is the worst case: it
  copies the top chunk, cites its document and never abstains by itself, so only the guards can
  pass an unanswerable case.
* :class:`AnswersFileSystem`: replies your system already produced, one JSONL row per case.
* :class:`~assay.rag.called.CallableSystem`: a Python function named ``"module:function"``, and
  :class:`~assay.rag.http_system.HttpSystem`: a service behind HTTP, both called case by case with
  concurrency, a time limit, retries and stored replies (:mod:`assay.rag.called`).

Reply contract (what a reply text must parse to)::

    {"answer": "...", "citations": ["doc-id", ...], "abstained": false}

Tool calls travel beside the reply, never inside it: ``tool_calls`` in the OpenAI function-calling
shape (:mod:`assay.rag.tool_calls`), from a callable's dict or an answers-file row. The reference
system routes by the catalogue's trigger words (:mod:`assay.rag.routing`).

Latency of the reference system is synthetic and deterministic, never wall-clock time, so the
outputs are byte-stable: ``LATENCY_BASE_MS + LATENCY_PER_CHUNK_MS * candidates``, where
``candidates`` is the number of chunks sharing at least one word with the question (what an
inverted index would score). It ranks questions by work done; it is not a measurement.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from assay.data.corpus import Document
from assay.data.cases import CaseRecord
from assay.core.errors import InputError, Problem
from assay.core.io import read_jsonl
from assay.core.records import validate_rows
from assay.data.tools import Tool, ToolCatalogue
from assay.rag.retrieval import BLOCK_MB, Chunking, Hit, LexicalIndex, chunk_corpus
from assay.rag.routing import route
from assay.rag.tool_calls import FIX, ToolCall, parse_tool_calls

LATENCY_BASE_MS = 20.0
LATENCY_PER_CHUNK_MS = 0.05

ABSTAIN_REPLY = {"answer": "", "citations": [], "abstained": True}


def reply_text(reply: Mapping) -> str:
    """Canonical JSON text of a reply dict (sorted keys, UTF-8 kept), as a system would send it."""
    return json.dumps(dict(reply), sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class SystemOutput:
    """What a system returned for one case.

    ``retrieved`` is ``None`` when the system does not report its retrieval (recall is then
    undefined, not 0). ``latency_ms`` is ``None`` when unknown. ``top_score``, ``margin`` and
    ``guard`` (``"no_hits"``, ``"min_score"``, ``"min_margin"`` or ``None``) explain the reference
    system's abstentions and are ``None`` for plug-ins. ``tool_calls`` are the calls the system
    made (none when it reports none). ``error`` says why a called system gave no reply for the
    case (``reply`` is then empty and the case is scored as a failed reply).
    """

    case_id: str
    reply: str
    retrieved: tuple[str, ...] | None
    latency_ms: float | None
    top_score: float | None = None
    margin: float | None = None
    guard: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class SystemRequest:
    """What a :class:`CallableSystem` function receives for one case.

    Attributes:
        case_id: the case id (for logging; do not branch on it).
        question: the question text.
        lang: ``"en"`` or ``"bn"``.
        k: how many documents the evaluation looks at for recall.
        corpus: every document by id (``Document.text``, ``.paragraphs()``, ``.lang``, ...).
        tools: the tool catalogue's tools (empty when the project has none); ``openai_tools()``
            gives them in the shape an OpenAI-compatible API takes as ``tools``.
        permissions: what the user asking may have done on their behalf (the case's ``permissions``).
        settings: the version's ``settings`` from params.yaml (``rag.versions.<name>.settings``),
            a mapping of JSON values; empty when the version sets none.
    """

    case_id: str
    question: str
    lang: str
    k: int
    corpus: Mapping[str, Document] = field(repr=False)
    tools: tuple[Tool, ...] = field(default=(), repr=False)
    permissions: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)

    def shown(self) -> dict[str, Any]:
        """What the system is shown for this case besides the corpus, tools and settings (part of the reply key).

        >>> SystemRequest("c1", "q?", "en", 3, {}).shown()
        {'case_id': 'c1', 'question': 'q?', 'lang': 'en', 'k': 3, 'permissions': []}
        """
        return {"case_id": self.case_id, "question": self.question, "lang": self.lang, "k": self.k,
                "permissions": list(self.permissions)}

    def openai_tools(self) -> list[dict]:
        """The tools in the OpenAI function-calling ``tools`` shape (see :meth:`assay.data.tools.Tool.openai`)."""
        return [t.openai() for t in self.tools]


class CopyTopChunkModel:
    """The deterministic answer model: copy the top chunk and cite its document; never abstain.

    It is only called when there is at least one hit (the system abstains on no hits).
    """

    def reply(self, question: str, hits: Sequence[Hit]) -> str:
        """Reply text answering with ``hits[0]``'s text, citing ``hits[0]``'s document."""
        top = hits[0]
        return reply_text({"answer": top.text, "citations": [top.doc_id], "abstained": False})


class ReferenceSystem:
    """Lexical retrieval with guards and the copy-the-top-chunk model.

    Retrieval ranks documents by their best chunk (:meth:`LexicalIndex.search_documents`), so the
    hits are distinct documents and each hit's text is that document's best chunk. Guards, checked
    in order on the ranked hits (``margin`` = top score minus second score, the second being 0 when
    there is one hit): no hit at all -> ``no_hits``; top score below ``min_score`` ->
    ``min_score``; margin below ``min_margin`` -> ``min_margin``. A guarded case gets the abstain
    reply ``{"answer": "", "citations": [], "abstained": true}``. With ``min_score=0`` and
    ``min_margin=0`` the system abstains only when nothing matches.

    The margin is between the two best *documents*: two close sentences of one page are not an
    ambiguity about the source, two close pages are. Score and margin are rounded to 12 decimals
    before the comparison, so float noise (0.5 - 0.45 = 0.04999...) does not decide a guard.

    Tools: with a catalogue, every question is routed by :func:`assay.rag.routing.route` (whether
    or not the system then abstains); ``check_permissions`` false lets it call tools the user may not.
    ``block_mb`` bounds the memory of one block of retrieval scores (``rag.block_mb``; it changes no output).
    """

    def __init__(self, corpus: Mapping[str, Document], chunking: Chunking, min_score: float, min_margin: float,
                 tools: ToolCatalogue | None = None, check_permissions: bool = True, block_mb: float = BLOCK_MB):
        self.index = LexicalIndex(chunk_corpus(corpus, chunking), block_mb)
        self.min_score, self.min_margin = min_score, min_margin
        self.model = CopyTopChunkModel()
        self.tools, self.check_permissions = tools, check_permissions

    def guard(self, hits: Sequence[Hit]) -> tuple[float | None, float | None, str | None]:
        """``(top_score, margin, guard)`` for ranked hits; ``guard`` is ``None`` when the system answers."""
        if not hits:
            return None, None, "no_hits"
        top = round(hits[0].score, 12)
        margin = round(top - (hits[1].score if len(hits) > 1 else 0.0), 12)
        if top < self.min_score:
            return top, margin, "min_score"
        if margin < self.min_margin:
            return top, margin, "min_margin"
        return top, margin, None

    def run(self, cases: Sequence[CaseRecord], k: int) -> list[SystemOutput]:
        """Answer every case (questions are retrieved in one batch); outputs in case order."""
        found = self.index.search_documents([c.question for c in cases], max(k, 2))
        out = []
        for case, (hits, candidates) in zip(cases, found, strict=True):
            top_score, margin, guard = self.guard(hits)
            shown = hits[:k]
            reply = reply_text(ABSTAIN_REPLY) if guard else self.model.reply(case.question, shown)
            out.append(SystemOutput(
                case_id=case.id, reply=reply, retrieved=tuple(dict.fromkeys(h.doc_id for h in shown)),
                latency_ms=round(LATENCY_BASE_MS + LATENCY_PER_CHUNK_MS * candidates, 3),
                top_score=top_score, margin=margin, guard=guard,
                tool_calls=() if self.tools is None else route(case.question, self.tools, case.permissions,
                                                                 self.check_permissions)))
        return out


class AnswerRow(BaseModel):
    """One row of a precomputed answers file (JSONL).

    Give either ``answer``, ``citations`` and ``abstained`` (the parsed reply), or ``raw`` (the
    reply text exactly as your system sent it; the runner then parses it, so a broken reply counts
    against ``format_ok``). ``retrieved`` lists document ids in rank order; ``latency_ms`` may be
    null when unknown. ``tool_calls`` (optional) lists the calls made, in the OpenAI
    function-calling shape (:func:`assay.rag.tool_calls.parse_tool_calls`). Types are strict:
    ``"false"`` is not a boolean.
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    case_id: str = Field(min_length=1)
    answer: str | None = None
    citations: list[str] | None = None
    abstained: bool | None = None
    raw: str | None = None
    retrieved: list[str]
    latency_ms: float | None = Field(default=None, ge=0)
    tool_calls: list | None = None

    @field_validator("tool_calls")
    @classmethod
    def _calls(cls, value: list | None) -> list | None:
        try:
            parse_tool_calls(value)
        except ValueError as error:
            raise PydanticCustomError("tool_calls", "{error}", {"error": str(error), "fix": FIX}) from None
        return value

    def calls(self) -> tuple[ToolCall, ...]:
        """The row's tool calls, decoded (checked when the row was read)."""
        return parse_tool_calls(self.tool_calls)

    @model_validator(mode="after")
    def _one_reply(self) -> AnswerRow:
        parts = (self.answer, self.citations, self.abstained)
        if self.raw is None and any(p is None for p in parts):
            raise ValueError("give answer, citations and abstained (or raw, the reply text)")
        if self.raw is not None and any(p is not None for p in parts):
            raise ValueError("give raw or answer/citations/abstained, not both")
        return self

    def reply(self) -> str:
        """The reply text for the runner to parse."""
        if self.raw is not None:
            return self.raw
        return reply_text({"answer": self.answer, "citations": self.citations, "abstained": self.abstained})


class AnswersFileSystem:
    """Replies read from a JSONL file (see :class:`AnswerRow`), one row per case.

    Raises:
        InputError: bad rows (file:line, field, value, fix), a repeated case id, a row whose case id
            is not among the cases, or cases without a row (all named in one error).
    """

    def __init__(self, path: str | Path):
        self.path = str(path)
        rows = validate_rows(self.path, read_jsonl(path), AnswerRow, key="case_id")
        self.rows = {r.case_id: (line, r) for line, r in rows}

    def run(self, cases: Sequence[CaseRecord], k: int) -> list[SystemOutput]:
        """One output per case, in case order."""
        wanted = {c.id for c in cases}
        problems = [Problem(self.path, line, "case_id", f"{cid!r} is not a case in the evaluated set",
                            "remove the row or fix the id")
                    for cid, (line, _) in sorted(self.rows.items()) if cid not in wanted]
        missing = sorted(wanted - self.rows.keys())
        if missing:
            shown = ", ".join(missing[:20]) + (f" and {len(missing) - 20} more" if len(missing) > 20 else "")
            problems.append(Problem(self.path, None, "case_id", f"no row for {len(missing)} case(s): {shown}",
                                    "add one row per case of data/cases.jsonl"))
        if problems:
            raise InputError(problems)
        rows = [self.rows[c.id][1] for c in cases]
        return [SystemOutput(c.id, r.reply(), tuple(r.retrieved), r.latency_ms, tool_calls=r.calls())
                for c, r in zip(cases, rows, strict=True)]
