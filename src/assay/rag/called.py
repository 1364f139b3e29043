"""Systems assay calls case by case, run like the judge: concurrent, time-limited, retried, stored, replayed.

:class:`CalledSystem` holds what a Python function (:class:`CallableSystem`) and a service behind
HTTP (:class:`assay.rag.http_system.HttpSystem`) share: each case is looked up in the version's
stored replies first (:class:`assay.rag.reply_store.ReplyStore`), the rest are called with
:func:`assay.rag.calls.call_all` and each reply is stored as it arrives, with a progress bar on a
terminal. A case that still fails after its retries is scored as a failed reply when the
version's ``max_failed_share`` allows that many, else the stage stops naming the cases.

What a callable may return (:meth:`CallableSystem.output`): the reply text (``str``; retrieval
and latency then unknown), or a dict with the reply contract's keys (``answer``, ``citations``,
``abstained``) plus the optional ``retrieved`` (document ids in rank order), ``latency_ms`` and
``tool_calls`` (OpenAI function-calling shape). Any other key is refused with the closest known
key named (``retreived`` -> ``retrieved``), and so is an ``abstained`` that is not a boolean.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from assay.core.plugins import PluginError, load_callable
from assay.core.records import suggest
from assay.data.cases import CaseRecord
from assay.data.corpus import Document
from assay.data.tools import Tool, ToolCatalogue
from assay.artifacts.rows import SystemReplyRow
from assay.rag.calls import CallPolicy, Outcome, call_all, progress
from assay.rag.reply_store import ReplyStore, case_key, replay_only
from assay.rag.systems import SystemOutput, SystemRequest, reply_text
from assay.rag.tool_calls import FIX, parse_tool_calls

#: The keys a callable's dict reply may hold.
REPLY_KEYS = ("answer", "citations", "abstained", "retrieved", "latency_ms", "tool_calls")
#: How many failed cases an error or warning names.
MAX_NAMED = 5


@dataclass(frozen=True)
class CaseRun(SystemRequest):
    """What a called system receives for one run of one case: a :class:`~assay.rag.systems.SystemRequest`
    and ``repeat``, the run's index (0 to ``repeats - 1``; always 0 for a version without ``repeats``), so a
    seeded system can seed on ``(case_id, repeat)`` and its runs differ.
    """

    repeat: int = 0

    def shown(self) -> dict[str, Any]:
        """What the system is shown (part of the reply key): :meth:`SystemRequest.shown`, with ``repeat`` from the
        second run on, so the first run of a case keeps the key (and the HTTP body) it had without repeats.

        >>> CaseRun("c1", "q?", "en", 3, {}, repeat=2).shown()["repeat"], "repeat" in CaseRun("c1", "q?", "en", 3, {}).shown()
        (2, False)
        """
        shown = super().shown()
        if self.repeat:
            shown["repeat"] = self.repeat
        return shown


def output_row(key: str, output: SystemOutput, repeat: int = 0) -> SystemReplyRow:
    """The stored row of one run's output (``failed`` when it carries an error); ``repeat`` is the run's index."""
    return SystemReplyRow(key=key, case_id=output.case_id, status="failed" if output.error else "ok",
                          reply=output.reply, retrieved=None if output.retrieved is None else list(output.retrieved),
                          latency_ms=output.latency_ms,
                          tool_calls=[c.openai() for c in output.tool_calls] or None, error=output.error,
                          repeat=repeat or None)


def row_output(row: SystemReplyRow) -> SystemOutput:
    """The output a stored row replays (its tool calls decoded again)."""
    return SystemOutput(row.case_id, row.reply, None if row.retrieved is None else tuple(row.retrieved),
                        row.latency_ms, tool_calls=parse_tool_calls(row.tool_calls), error=row.error)


def _check_text(where: str, text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise PluginError(f"{where}: the reply holds a character UTF-8 cannot store ({error.reason} at position "
                          f"{error.start}) (fix: return valid Unicode text; a lone surrogate usually comes from "
                          "slicing or decoding with errors='surrogateescape')") from None
    return text


def dict_output(where: str, case_id: str, value: Mapping[str, Any]) -> SystemOutput:
    """A dict reply as a :class:`SystemOutput`, checked key by key (see the module docstring).

    Raises:
        PluginError: an unknown key (with the closest known one), a non-boolean ``abstained``, a
            malformed ``retrieved``/``latency_ms``/``tool_calls``, or a value JSON cannot hold.
    """
    unknown = sorted(str(k) for k in value if k not in REPLY_KEYS)
    if unknown:
        hints = [f"{k!r}" + (f" (did you mean {near!r}?)" if (near := suggest(k, REPLY_KEYS)) else "") for k in unknown]
        raise PluginError(f"{where} returned unknown key(s) {', '.join(hints)} (fix: a reply holds only "
                          f"{', '.join(REPLY_KEYS)})")
    reply = dict(value)
    if "abstained" in reply and not isinstance(reply["abstained"], bool):
        raise PluginError(f"{where}: 'abstained' is {reply['abstained']!r} ({type(reply['abstained']).__name__}) "
                          "(fix: return true or false, not a string or number)")
    retrieved = reply.pop("retrieved", None)
    latency = reply.pop("latency_ms", None)
    try:
        calls = parse_tool_calls(reply.pop("tool_calls", None))
    except ValueError as error:
        raise PluginError(f"{where}: {error} (fix: {FIX})") from None
    if retrieved is not None and not (isinstance(retrieved, list) and all(isinstance(d, str) for d in retrieved)):
        raise PluginError(f"{where}: 'retrieved' is {retrieved!r} (fix: a list of document ids in rank order)")
    if latency is not None and (isinstance(latency, bool) or not isinstance(latency, (int, float))
                                or not math.isfinite(latency) or latency < 0):
        raise PluginError(f"{where}: 'latency_ms' is {latency!r} (fix: a non-negative number or leave it out)")
    try:
        text = reply_text(reply)
    except (TypeError, ValueError) as error:
        raise PluginError(f"{where}: reply is not JSON-serialisable ({error}) "
                          "(fix: return str, list and bool values)") from None
    return SystemOutput(case_id, _check_text(where, text), None if retrieved is None else tuple(retrieved),
                        None if latency is None else float(latency), tool_calls=calls)


class CalledSystem:
    """What every system assay calls case by case shares (see the module docstring).

    Subclasses set ``param`` (the params path errors name), ``label`` (what the system is, for
    messages), ``policy`` and ``max_failed_share``, and implement :meth:`target` (one request; a plain
    or an ``async def`` function, returned by :meth:`target`) and :meth:`output` (its value as a :class:`SystemOutput`).
    """

    param: str
    label: str
    policy: CallPolicy
    max_failed_share: float = 0.0
    corpus: Mapping[str, Document]
    tools: tuple[Tool, ...]
    settings: Mapping[str, Any]

    def target(self) -> Callable[[SystemRequest], Any]:
        """What is called for one request (a plain or an ``async def`` function); its value goes to :meth:`output`."""
        raise NotImplementedError

    def output(self, case_id: str, value: object) -> SystemOutput:
        """The value :meth:`call` returned, checked and turned into an output."""
        raise NotImplementedError

    def opened(self) -> AbstractAsyncContextManager[Any]:
        """Entered around the ``async`` calls of one run (a client pool); nothing by default."""
        return contextlib.nullcontext()

    def where(self, case_id: str) -> str:
        """How messages name this system on one case."""
        return f"{self.param}: {self.label} on case {case_id!r}"

    def requests(self, cases: Sequence[CaseRecord], k: int, repeats: int = 1) -> list[CaseRun]:
        """One request per case and run, in case order, the runs of a case together (``repeat`` 0 first)."""
        return [CaseRun(c.id, c.question, c.lang, k, self.corpus, self.tools, tuple(c.permissions),
                        self.settings, repeat) for c in cases for repeat in range(repeats)]

    def run(self, cases: Sequence[CaseRecord], k: int, store: ReplyStore | None = None,
            identity_sha: str = "", repeats: int = 1) -> list[SystemOutput]:
        """One output per case and run, in case order (the runs of a case together, as :meth:`requests`
        orders them): stored replies first, the rest called (and stored as they arrive).

        Args:
            store: the version's stored replies; ``None`` calls every case and stores nothing.
            identity_sha: the system's identity hash (:func:`assay.rag.reply_store.system_sha`),
                part of every key.
            repeats: how many times each case is run (each run its own request and key;
                ``max_failed_share`` is then a share of the runs).

        Raises:
            PluginError: the system misbehaved (a reply breaking the contract, ``sys.exit``), or
                more cases failed than ``max_failed_share`` allows (the first few named, with the
                function's own traceback).
            MissingSystemReply: replay only (:data:`assay.rag.reply_store.REPLAY_ENV`) and a case
                has no stored reply.
        """
        requests = self.requests(cases, k, repeats)
        keys = [case_key(self.param, identity_sha, r.shown()) for r in requests]
        replay = replay_only()
        outputs: dict[int, SystemOutput] = {}
        for i, key in enumerate(keys):
            row = None if store is None else store.lookup(key, replay)
            if row is not None:
                outputs[i] = row_output(row)
                if store is not None:
                    store.keep(row, fresh=False)
        pending = [i for i in range(len(requests)) if i not in outputs]
        if pending and replay and store is not None:
            raise store.missing(list(dict.fromkeys(requests[i].case_id for i in pending)))
        failed: list[SystemOutput] = [o for o in outputs.values() if o.error]
        with progress(len(pending), self.param) as bar:
            def done(j: int, outcome: Outcome) -> None:
                i = pending[j]
                out = self._settle(requests[i].case_id, outcome)
                if store is not None:
                    store.keep(output_row(keys[i], out, requests[i].repeat), fresh=True)
                outputs[i] = out
                bar.update()
                if out.error:
                    failed.append(out)
                    if len(failed) > self._allowed(len(requests)):  # stop now: the run cannot pass any more
                        self._check_failures(failed, len(requests))

            call_all(self.target(), [requests[i] for i in pending], self.policy, done, self.opened)
        result = [outputs[i] for i in range(len(requests))]
        self._check_failures(result)
        return result

    def _settle(self, case_id: str, outcome: Outcome) -> SystemOutput:
        if outcome.fatal:
            raise PluginError(f"{self.where(case_id)} {outcome.error}")
        if outcome.ok:
            return self.output(case_id, outcome.value)
        tries = f" ({outcome.attempts} attempts)" if outcome.attempts > 1 else ""
        return SystemOutput(case_id, "", None, None, error=f"{outcome.error}{tries}")

    def _allowed(self, total: int) -> int:
        """How many of ``total`` cases may fail (``max_failed_share``, rounded down)."""
        return math.floor(self.max_failed_share * total + 1e-9)

    def _check_failures(self, outputs: list[SystemOutput], total: int | None = None) -> None:
        """Raise when more cases failed than allowed (``outputs`` may be the cases settled so far, of
        ``total``: a run stops as soon as it cannot pass); else warn once about the failed cases."""
        total = len(outputs) if total is None else total
        failed = [o for o in outputs if o.error]
        if not failed:
            return
        allowed = self._allowed(total)
        first = failed[0]
        named = ", ".join(repr(o.case_id) for o in failed[:MAX_NAMED]) + (
            f" and {len(failed) - MAX_NAMED} more" if len(failed) > MAX_NAMED else "")
        if len(failed) > allowed:
            raise PluginError(
                f"{self.param}: {self.label} failed on {len(failed)} of {total} case(s) ({named}); "
                f"max_failed_share {self.max_failed_share:g} allows {allowed}. First, case {first.case_id!r}: "
                f"{first.error}\n(fix: handle the question in your system or return an abstaining reply; to score "
                f"failures as failed replies instead, raise {self.param.rsplit('.', 1)[0]}.max_failed_share)")
        if total == len(outputs):
            print(f"{self.param}: {self.label} failed on {len(failed)} of {total} case(s) ({named}), scored as "
                  f"failed replies (max_failed_share {self.max_failed_share:g}); see the replies file for each error",
                  file=sys.stderr)


def retry_classes(specs: Sequence[str], param: str) -> tuple[type[Exception], ...]:
    """The exception classes a version's ``retry_on`` names (``"module:Class"``), imported and checked.

    Raises:
        PluginError: a name does not import or is not an exception class (``param.retry_on`` named).
    """
    classes = []
    for spec in specs:
        cls = load_callable(spec, f"{param}.retry_on")
        if not (isinstance(cls, type) and issubclass(cls, Exception)):
            raise PluginError(f"{param}.retry_on: {spec!r} is not an exception class (fix: name a class such as "
                              "'builtins:TimeoutError' or 'mymodule:RateLimited')")
        classes.append(cls)
    return tuple(classes)


class CallableSystem(CalledSystem):
    """A user function ``fn(request: SystemRequest) -> dict | str`` (or ``async def``), called once per case.

    What it may return: see the module docstring. Raises (from :meth:`run`) :class:`PluginError`
    on load (see :func:`load_callable`), on a reply that breaks the contract, and when more cases
    fail than allowed; each message names the case, and a failure carries the function's traceback.
    """

    def __init__(self, spec: str, corpus: Mapping[str, Document], param: str = "callable",
                 tools: ToolCatalogue | None = None, settings: Mapping[str, Any] | None = None,
                 policy: CallPolicy | None = None, max_failed_share: float = 0.0):
        self.spec, self.param, self.corpus, self.label = spec, param, corpus, spec
        self.tools = () if tools is None else tuple(tools.tools)
        self.settings = dict(settings or {})
        self.fn: Callable[[SystemRequest], Any] = load_callable(spec, param)
        self.policy = policy or CallPolicy(retries=0)
        self.max_failed_share = max_failed_share

    def target(self) -> Callable[[SystemRequest], Any]:
        """The user's function itself (an ``async def`` one is awaited)."""
        return self.fn

    def output(self, case_id: str, value: object) -> SystemOutput:
        """A ``str`` (the reply text) or a dict reply; :class:`PluginError` for anything else."""
        where = self.where(case_id)
        if isinstance(value, str):
            return SystemOutput(case_id, _check_text(where, value), None, None)
        if not isinstance(value, dict):
            raise PluginError(f"{where} returned {type(value).__name__} (fix: return a dict with answer, "
                              "citations, abstained, or the reply text as a str)")
        return dict_output(where, case_id, value)
