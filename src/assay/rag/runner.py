"""Running one RAG version over the cases and scoring every case in separate metric families.

Per-case rules (each column of the run table; ``None`` means "not defined for this case"):

* ``format_ok``: the reply text parses as a JSON object with exactly ``answer`` (str),
  ``citations`` (list of str) and ``abstained`` (bool); an abstaining reply cites nothing; an
  answering reply has a non-blank answer. Types are strict (``"false"`` is not a bool).
* ``recall_at_k``: share of the case's ``doc_ids`` found among the first ``k`` distinct retrieved
  document ids. ``None`` for abstain cases (no gold documents) and when the system reports no
  retrieval. Computed whether or not the system then abstained: retrieval is its own family.
* ``citation_support``: ``None`` when the reply does not parse or abstained (no claim was made).
  Otherwise true when (1) it cites at least one document, (2) every cited id is a corpus document
  and, when the system reports retrieval, among the first ``k`` retrieved ids, and (3) every fact
  of the case that the answer states (NFKC, case-folded substring, see :func:`assay.data.tokens.fold`) appears in the
  text of at least one cited document. Only the case's facts can be checked: an answer stating
  none of them passes (3) and is caught by correctness instead.
* ``correct``: answer case: the reply parses, does not abstain and holds every fact (normalised,
  case-insensitive substring). Abstain case: the reply parses and abstains. An unparseable reply
  is never correct.
* ``answer_correct`` = ``correct`` on answer cases, ``None`` on abstain cases;
  ``abstain_correct`` = ``correct`` on abstain cases, ``None`` on answer cases.
* ``latency_ms``: as the system reports it (synthetic for the reference system; ``None`` if unknown).
* ``passed``: ``correct`` and ``format_ok`` and, on answer cases, ``citation_support``. Tool use
  does not enter it: it is its own family.
* ``tool_calls`` (the calls as OpenAI-shaped JSON text), ``tool_selection``, ``tool_arguments``,
  ``tool_args_right``, ``tool_args_total``, ``tool_permission``: see :mod:`assay.rag.tool_calls`;
  ``None`` on a case without ``expected_tools``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (BaseModel, ConfigDict, Field, JsonValue, StrictBool, StrictStr, ValidationError, field_validator,
                      model_validator)

from assay.data.corpus import Document
from assay.data.cases import CaseRecord
from assay.data.tokens import fold
from assay.core.confinement import PlainName, ProjectPath
from assay.core.errors import InputError, Problem
from assay.stats.proportion import IntervalMethod
from assay.core.plugins import load_callable
from assay.data.tools import ToolCatalogue
from assay.rag.called import CalledSystem, CallableSystem, retry_classes
from assay.rag.calls import CallPolicy
from assay.rag.reply_store import ReplyStore
from assay.rag.retrieval import BLOCK_MB
from assay.rag.systems import AnswersFileSystem, ReferenceSystem, SystemOutput
from assay.rag.tool_calls import calls_text, score_tools
from assay.core.records import InputModel

if TYPE_CHECKING:
    import pyarrow as pa

#: The reference system's module: the ``source`` a reference version names (see :class:`VersionParams`).
REFERENCE_SOURCE = "src/assay/rag/systems.py"


#: The fields only the called systems (``callable``, ``http``) take, with what they do.
CALLED_FIELDS = ("settings", "concurrency", "timeout_s", "retries", "retry_on", "max_failed_share", "repeats")
#: The fields only ``system: http`` takes.
HTTP_FIELDS = ("url", "shape", "model", "api_key_env")
REFERENCE_FIELDS = ("chunking", "min_score", "min_margin", "tool_permissions")


class VersionParams(InputModel):
    """One RAG version in ``params.yaml`` (``rag.versions.<name>``).

    ``chunking``, ``min_score``, ``min_margin`` and ``tool_permissions`` (``check``: do not call a
    tool the user may not have called; ``ignore``: call it anyway) configure the reference system
    (and are refused for the others); ``answers`` (a JSONL path, see :class:`assay.rag.systems.AnswerRow`) goes with
    ``system: answers_file``, ``callable`` (``"module:function"``, see
    :class:`assay.rag.systems.CallableSystem`) with ``system: callable`` and ``url`` (see
    :mod:`assay.rag.http_system`) with ``system: http``; each is required there and refused elsewhere.

    The called systems (``callable`` and ``http``) also take (see docs/plug-in.md):

    * ``settings``: a free-form mapping of JSON values handed to the system with every case
      (``request.settings``; the HTTP body's ``settings``) and hashed into the reply keys and the
      provenance, so ``dvc exp run -S rag.versions.NAME.settings.KEY=VALUE`` re-runs that version.
    * ``concurrency`` (cases in flight at once, default 1), ``timeout_s`` (seconds one attempt at
      a case may take; default :data:`DEFAULT_TIMEOUT_S`), ``retries`` (extra attempts after a
      retryable failure, default 2), ``retry_on`` (``callable`` only: exception classes, as
      ``"module:Class"``, that are retried besides :class:`assay.rag.calls.Retryable`) and
      ``max_failed_share`` (the share of cases that may fail and be scored as failed replies;
      default 0: one failure stops the stage).
    * ``repeats`` (default 1): how many times each case is run, for a system that samples
      (temperature above 0). Every run is stored under its own key (``request.repeat`` is the run's
      index, 0 to ``repeats - 1``; run 0 has the key a version without repeats has, so raising
      ``repeats`` asks only the new runs). The run table then holds one row per case and run, and
      each pass rate is read over the runs of a case (see :mod:`assay.rag.repeats`).

    ``source`` is the file or folder this version's answers come from, a DVC dependency of
    ``evaluate@<name>`` (dvc.yaml lists ``${item.source}``), so editing it re-runs that version:
    the answers file itself (or a folder holding it), the callable's module file (or its package
    folder, to track its helpers too), or ``src/assay/rag/systems.py`` for the reference system
    (already a dependency; DVC needs every version to name one). :class:`RagParams` requires it;
    :func:`check_source` checks that it covers the answers file or the callable's module.
    """

    model_config = ConfigDict(extra="forbid")
    system: Literal["reference", "answers_file", "callable", "http"] = "reference"
    chunking: Literal["paragraph", "sentence"] = "paragraph"
    min_score: float = Field(default=0.0, ge=0.0, le=1.0)
    min_margin: float = Field(default=0.0, ge=0.0, le=1.0)
    tool_permissions: Literal["check", "ignore"] = "check"
    answers: ProjectPath | None = None
    callable: str | None = None
    url: str | None = Field(default=None, pattern=r"^https?://")
    shape: Literal["assay", "openai"] = "assay"
    model: str | None = None
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    settings: dict[str, JsonValue] = {}
    concurrency: int = Field(default=1, ge=1, le=1024)
    timeout_s: float | None = Field(default=None, gt=0, le=86400)
    retries: int = Field(default=2, ge=0, le=20)
    retry_on: list[str] = []
    max_failed_share: float = Field(default=0.0, ge=0.0, le=1.0)
    repeats: int = Field(default=1, ge=1, le=100)
    source: ProjectPath | None = None

    @field_validator("settings")
    @classmethod
    def _json_settings(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise ValueError(f"settings must hold JSON values (strings, finite numbers, booleans, null, lists "
                             f"and mappings): {error}") from None
        return value

    @model_validator(mode="after")
    def _plugin_fields(self) -> VersionParams:
        for key, system in (("answers", "answers_file"), ("callable", "callable"), ("url", "http")):
            given = getattr(self, key) is not None
            if given != (self.system == system):
                raise ValueError(f"'{key}' is required with system {system} and only used there")
        only = {"reference": REFERENCE_FIELDS, "callable or http": CALLED_FIELDS,
                "http": (*HTTP_FIELDS[1:],), "callable": ("retry_on",)}
        for systems, fields in only.items():
            ignored = sorted(self.model_fields_set & set(fields))
            if ignored and self.system not in systems.split(" or "):
                raise ValueError(f"{', '.join(ignored)}: only used by system {systems}, not {self.system}")
        if self.shape == "openai" and self.model is None:
            raise ValueError("shape openai needs 'model' (the model name the endpoint serves)")
        return self

    @property
    def called(self) -> bool:
        """Whether assay calls this system case by case (``callable`` or ``http``): its replies are stored."""
        return self.system in ("callable", "http")

    def suggested_source(self) -> str:
        """What ``source`` should usually be: the answers file, the callable's module file, or the reference system's module.

        >>> VersionParams(system="callable", callable="examples.keyword_rag:answer").suggested_source()
        'examples/keyword_rag.py'
        """
        if self.system == "answers_file":
            return str(self.answers)
        if self.system == "callable":
            return str(self.callable).partition(":")[0].replace(".", "/") + ".py"
        if self.system == "http":
            return "params.yaml"
        return REFERENCE_SOURCE

    def identity(self) -> dict:
        """The fields that decide this system's answers (what the metrics file and provenance record).

        Concurrency, time limits, retries and ``repeats`` are left out: they change how a system is
        called (or how often), not what it answers, so each run's stored reply keeps its key.
        ``settings`` appears only when given, so a version without it records what it did before
        settings existed.

        >>> VersionParams(system="callable", callable="m:f", settings={"top_k": 5}).identity()
        {'system': 'callable', 'callable': 'm:f', 'settings': {'top_k': 5}}
        """
        keys = {"reference": REFERENCE_FIELDS, "answers_file": ("answers",),
                "callable": ("callable",), "http": ("url", "shape", "model")}[self.system]
        out = {"system": self.system, **{key: getattr(self, key) for key in keys}}
        if self.settings:
            out["settings"] = self.settings
        return out


class RagParams(InputModel):
    """The ``rag`` section of ``params.yaml``: recall depth, the proportion interval, the versions and
    ``block_mb``, the MiB one block of the reference system's retrieval scores may take (time and
    memory only: every block size gives the same outputs)."""

    model_config = ConfigDict(extra="forbid")
    k: int = Field(default=3, ge=1)
    interval: IntervalMethod = "wilson"
    block_mb: float = Field(default=BLOCK_MB, gt=0, allow_inf_nan=False)
    versions: dict[PlainName, VersionParams] = {}

    @model_validator(mode="after")
    def _names(self) -> RagParams:
        unsourced = [f"{n} (source: {v.suggested_source()})" for n, v in self.versions.items() if v.source is None]
        if unsourced:
            raise ValueError(f"every version names its 'source', the file DVC re-runs evaluate@<version> on; "
                             f"missing for {', '.join(unsourced)}")
        return self

    def version(self, name: str, path: str = "params.yaml") -> VersionParams:
        """The settings of version ``name``; InputError naming the known versions when it is absent."""
        if name not in self.versions:
            known = ", ".join(sorted(self.versions)) or "(none)"
            raise InputError([Problem(path, None, "rag.versions", f"{name!r} is not a version; known: {known}",
                                      "add it under rag.versions or use a known name")])
        return self.versions[name]


class Reply(BaseModel):
    """The reply contract (see the module docstring, ``format_ok``)."""

    model_config = ConfigDict(extra="forbid")
    answer: StrictStr
    citations: list[StrictStr]
    abstained: StrictBool

    @model_validator(mode="after")
    def _consistent(self) -> Reply:
        if self.abstained and self.citations:
            raise ValueError("an abstaining reply cites nothing")
        if not self.abstained and not self.answer.strip():
            raise ValueError("an answering reply needs a non-blank answer")
        return self


def parse_reply(text: str) -> Reply | None:
    """Parse a reply text strictly; ``None`` when it is not valid JSON or breaks the contract.

    >>> parse_reply('{"answer": "30 days", "citations": ["kb"], "abstained": false}').citations
    ['kb']
    >>> parse_reply('Sure! {"answer": "30 days"}') is None
    True
    """
    try:
        return Reply.model_validate(json.loads(text))
    except (json.JSONDecodeError, ValidationError, TypeError):
        return None


@dataclass(frozen=True)
class CaseResult:
    """One row of a run table (see the module docstring for every rule)."""

    id: str
    task: str
    set: str
    lang: str
    expect: str
    reply: str
    answer: str | None
    citations: list[str] | None
    abstained: bool | None
    retrieved: list[str] | None
    top_score: float | None
    margin: float | None
    guard: str | None
    recall_at_k: float | None
    citation_support: bool | None
    correct: bool
    answer_correct: bool | None
    abstain_correct: bool | None
    format_ok: bool
    latency_ms: float | None
    passed: bool
    tool_calls: str | None = None
    tool_selection: bool | None = None
    tool_arguments: bool | None = None
    tool_args_right: int | None = None
    tool_args_total: int | None = None
    tool_permission: bool | None = None
    repeat: int = 0


def score_case(case: CaseRecord, output: SystemOutput, corpus: Mapping[str, Document], k: int,
               _texts: dict[str, str] | None = None, tools: ToolCatalogue | None = None, repeat: int = 0) -> CaseResult:
    """Score one case's system output (rules in the module docstring).

    ``_texts`` is an optional cache of normalised document texts by id, shared across cases;
    ``tools`` is the catalogue the tool calls are checked against (permissions); ``repeat`` is the
    run's index when the version runs each case several times.
    """
    texts = _texts if _texts is not None else {}
    reply = parse_reply(output.reply)
    top_k = None if output.retrieved is None else list(dict.fromkeys(output.retrieved))[:k]
    recall = None
    if case.expect == "answer" and top_k is not None:
        recall = sum(d in top_k for d in case.doc_ids) / len(case.doc_ids)
    answer = fold(reply.answer) if reply is not None else ""
    stated = [f for f in case.facts if fold(f) in answer]
    support = None
    if reply is not None and not reply.abstained:
        cited_ok = bool(reply.citations) and all(d in corpus and (top_k is None or d in top_k) for d in reply.citations)
        if cited_ok:
            for d in reply.citations:
                if d not in texts:
                    texts[d] = fold(corpus[d].text)
        support = cited_ok and all(any(fold(f) in texts[d] for d in reply.citations) for f in stated)
    if case.expect == "answer":
        correct = reply is not None and not reply.abstained and len(stated) == len(case.facts)
    else:
        correct = reply is not None and reply.abstained
    format_ok = reply is not None
    passed = correct and format_ok and (case.expect != "answer" or support is True)
    return CaseResult(
        id=case.id, task=case.task, set=case.set, lang=case.lang, expect=case.expect, reply=output.reply,
        answer=None if reply is None else reply.answer, citations=None if reply is None else list(reply.citations),
        abstained=None if reply is None else reply.abstained, retrieved=top_k,
        top_score=output.top_score, margin=output.margin, guard=output.guard,
        recall_at_k=recall, citation_support=support, correct=correct,
        answer_correct=correct if case.expect == "answer" else None,
        abstain_correct=correct if case.expect == "abstain" else None,
        format_ok=format_ok, latency_ms=output.latency_ms, passed=passed, repeat=repeat,
        tool_calls=calls_text(output.tool_calls) if output.tool_calls or case.tool_case else None,
        **asdict(score_tools(case, output.tool_calls, tools)))


#: Seconds one attempt at a case may take when a called version sets no ``timeout_s``.
DEFAULT_TIMEOUT_S = 60.0


def build_system(name: str, version: VersionParams, corpus: Mapping[str, Document],
                 tools: ToolCatalogue | None = None,
                 block_mb: float = BLOCK_MB) -> ReferenceSystem | AnswersFileSystem | CalledSystem:
    """The system a version names (reference, answers file, callable or http); ``tools`` is the catalogue it is given.

    ``block_mb`` bounds the reference system's retrieval memory (:func:`assay.rag.retrieval.block_rows`).
    """
    if version.system == "answers_file":
        assert version.answers is not None  # VersionParams' validator requires it with this system
        return AnswersFileSystem(version.answers)
    policy = CallPolicy(concurrency=version.concurrency, timeout_s=version.timeout_s or DEFAULT_TIMEOUT_S,
                        retries=version.retries, retry_on=retry_classes(version.retry_on, f"rag.versions.{name}"))
    if version.system == "callable":
        assert version.callable is not None  # VersionParams' validator requires it with this system
        return CallableSystem(version.callable, corpus, param=f"rag.versions.{name}.callable", tools=tools,
                              settings=version.settings, policy=policy, max_failed_share=version.max_failed_share)
    if version.system == "http":
        from assay.rag.http_system import HttpSystem

        assert version.url is not None  # VersionParams' validator requires it with this system
        return HttpSystem(version.url, corpus, param=f"rag.versions.{name}.url", tools=tools, shape=version.shape,
                          model=version.model, api_key_env=version.api_key_env, settings=version.settings,
                          policy=policy, max_failed_share=version.max_failed_share)
    return ReferenceSystem(corpus, version.chunking, version.min_score, version.min_margin, tools,
                           check_permissions=version.tool_permissions == "check", block_mb=block_mb)


def check_source(name: str, version: VersionParams, root: str | Path = ".", path: str = "params.yaml") -> None:
    """Refuse a ``source`` that DVC could not track or that misses the version's answers.

    ``source`` (relative to ``root``) must exist; for ``answers_file`` it must be the answers file
    or a folder holding it; for ``callable`` it must be the module's file or a folder holding it
    when the module lives under ``root`` (the module is imported to find its file; a module
    installed elsewhere, such as a pip package, cannot be a DVC dependency and is not checked).
    A reference version's ``source`` is only checked to exist. A version without ``source`` passes
    (:class:`RagParams` refuses it when params are loaded).

    Raises:
        InputError: naming ``rag.versions.<name>.source``, what it misses, and the fix.
        PluginError: the callable's module does not import.
    """
    if version.source is None:
        return
    base = Path(root).resolve()
    source = (base / version.source).resolve()
    field = f"rag.versions.{name}.source"
    if not source.exists():
        raise InputError([Problem(path, None, field, f"{version.source!r} does not exist",
                                  f"set it to {version.suggested_source()!r}, the file this version's answers come from")])
    needed = None
    if version.system == "answers_file":
        needed = (base / str(version.answers)).resolve()
    elif version.system == "callable":
        needed = _module_file(str(version.callable), f"rag.versions.{name}.callable")
        if needed is not None and not needed.is_relative_to(base):
            needed = None  # installed outside the repository: DVC cannot track it
    if needed is not None and needed != source and not needed.is_relative_to(source):
        shown = needed.relative_to(base).as_posix() if needed.is_relative_to(base) else str(needed)
        raise InputError([Problem(path, None, field, f"{version.source!r} does not hold {shown}, where this version's "
                                  "answers come from, so editing it would not re-run evaluate@" + name,
                                  f"set it to {shown!r} (or a folder holding it)")])


def _module_file(spec: str, param: str) -> Path | None:
    """The resolved file of the module a ``"module:function"`` spec names (imported), ``None`` if it has none."""
    import sys

    load_callable(spec, param)
    found = getattr(sys.modules.get(spec.partition(":")[0]), "__file__", None)
    return Path(found).resolve() if found else None


def run_version(name: str, version: VersionParams, cases: Sequence[CaseRecord],
                corpus: Mapping[str, Document], k: int, tools: ToolCatalogue | None = None,
                store: ReplyStore | None = None, identity_sha: str = "", block_mb: float = BLOCK_MB) -> list[CaseResult]:
    """Run a version over the cases and score each; results sorted by case id (and run).

    Deterministic for the reference system and the answers file: same inputs, same results. A
    called system (``callable``, ``http``) answers from ``store`` where it holds the case's key
    (see :mod:`assay.rag.reply_store`; ``identity_sha`` is part of every key) and stores each new
    reply there; without a store every case is called. With ``version.repeats`` above 1 each case
    is run that many times and scored once per run (``CaseResult.repeat`` 0, 1, ...). ``block_mb``
    (``rag.block_mb``) bounds the reference system's retrieval memory and changes no result.
    """
    system = build_system(name, version, corpus, tools, block_mb)
    ordered = sorted(cases, key=lambda c: c.id)
    texts: dict[str, str] = {}
    if isinstance(system, CalledSystem):
        outputs = system.run(ordered, k, store, identity_sha, version.repeats)
        runs = [(c, r) for c in ordered for r in range(version.repeats)]  # the order CalledSystem.requests gives
    else:
        outputs, runs = system.run(ordered, k), [(c, 0) for c in ordered]
    return [score_case(c, o, corpus, k, texts, tools, r) for (c, r), o in zip(runs, outputs, strict=True)]


def _schema(repeated: bool) -> pa.Schema:
    import pyarrow as pa

    s, b, f, ls = pa.string(), pa.bool_(), pa.float64(), pa.list_(pa.string())
    types = {"citations": ls, "retrieved": ls, "abstained": b, "citation_support": b, "correct": b,
             "answer_correct": b, "abstain_correct": b, "format_ok": b, "passed": b,
             "top_score": f, "margin": f, "recall_at_k": f, "latency_ms": f,
             "tool_selection": b, "tool_arguments": b, "tool_permission": b,
             "tool_args_right": pa.int64(), "tool_args_total": pa.int64(), "repeat": pa.int64()}
    names = [name for name in CaseResult.__dataclass_fields__ if name != "repeat"]
    if repeated:
        names.insert(1, "repeat")
    return pa.schema([(name, types.get(name, s)) for name in names])


def results_table(results: Sequence[CaseResult]) -> pa.Table:
    """The results as a pyarrow Table with a fixed schema, one row per case, sorted by id.

    When the results hold several runs of a case (``repeats``), one row per case and run, sorted by
    id and run, with a ``repeat`` column (the run's index) after ``id``; without, no such column, so
    a version without repeats writes the table it always did.
    """
    import pyarrow as pa

    repeated = any(r.repeat for r in results)
    rows = []
    for r in sorted(results, key=lambda r: (r.id, r.repeat)):
        row = asdict(r)
        if not repeated:
            del row["repeat"]
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=_schema(repeated))
