"""Calling a team's function for many cases at once: concurrency, a time limit per attempt, retries.

:func:`call_all` runs ``fn(request)`` for every request and hands each outcome to ``done`` in the
calling thread as soon as it is known (so the caller can store it at once; a run killed half way
keeps every reply handed over). Two ways to run, chosen by the function itself:

* a plain function runs on ``concurrency`` daemon threads. A call that outlives ``timeout_s`` is
  given up (the case fails with a message naming it) and its thread is left behind and replaced,
  since Python cannot stop a thread; being a daemon thread, it does not keep the stage alive.
* an ``async def`` function is awaited on one event loop, at most ``concurrency`` at a time; an
  attempt that outlives ``timeout_s`` is cancelled.

Retries: an attempt that raises :class:`Retryable`, or an exception of a class in
``CallPolicy.retry_on``, is tried again up to ``retries`` more times, waiting as the judge's HTTP
client does (:func:`assay.judge.http.backoff_delay`, or ``Retryable(after=seconds)`` when the
function knows how long to wait). A timeout is not retried for a plain function (its thread may
still be running). Any other exception fails the case at once, with the function's own traceback
(its frames, not assay's) in the message. A function that calls ``sys.exit`` (``SystemExit``) is
never a failed case: the run stops with an error naming the case.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import queue
import random
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from assay.judge.http import backoff_delay

R = TypeVar("R")
#: The longest wait between two looks at the clock while calls run (seconds).
POLL_S = 0.05
TRACEBACK_LINES = 30


class Retryable(Exception):  # noqa: N818 (named for what the function says about its failure)
    """Raise it from your system's function to have the case tried again (``retries`` times at most).

    Args:
        message: what went wrong (shown if the last attempt fails too).
        after: seconds to wait before the next attempt (``None``: exponential backoff with jitter).

    >>> Retryable("rate limited", after=2.0).after
    2.0
    """

    def __init__(self, message: str = "", after: float | None = None):
        super().__init__(message)
        self.after = after


class CallFailed(Exception):  # noqa: N818 (named for what happened)
    """A failure whose message says everything (a transport's last error): the case fails without a traceback."""


@dataclass(frozen=True)
class CallPolicy:
    """How the cases are called (from a version's params).

    ``retry_on`` are the exception classes besides :class:`Retryable` that are retried; ``backoff``
    and ``max_wait`` shape the waits between attempts (seconds).
    """

    concurrency: int = 1
    timeout_s: float = 60.0
    retries: int = 2
    retry_on: tuple[type[BaseException], ...] = ()
    backoff: float = 0.5
    max_wait: float = 30.0


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """The end of one case: ``value`` when the function returned, else ``error`` says why.

    ``attempts`` counts the calls made; ``fatal`` is true when the run must stop (``SystemExit``).
    """

    value: R | None
    error: str | None
    attempts: int
    fatal: bool = False

    @property
    def ok(self) -> bool:
        """True when the function returned a value."""
        return self.error is None


def user_traceback(error: BaseException, skip: int = 1) -> str:
    """The traceback of ``error`` without its first ``skip`` frames (assay's call into the function).

    The frames kept are the team's function and what it called; the text ends with the exception
    line. Cut to the last :data:`TRACEBACK_LINES` lines.
    """
    tb = error.__traceback__
    for _ in range(skip):
        if tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
    lines = "".join(traceback.format_exception(type(error), error, tb)).rstrip().splitlines()
    return "\n".join(lines[-TRACEBACK_LINES:])


def _failure(error: BaseException, attempt: int) -> Outcome:
    """The outcome of an exception no retry will help."""
    if isinstance(error, CallFailed):
        return Outcome(None, str(error), attempt)
    if isinstance(error, SystemExit):
        return Outcome(None, f"called sys.exit({error.code!r}); a system's function must return a reply "
                             "(fix: return an abstaining reply, or raise an exception)", attempt, fatal=True)
    return Outcome(None, f"raised {type(error).__name__}: {error}\n{user_traceback(error, skip=1)}", attempt)


def _retry_wait(error: BaseException, attempt: int, policy: CallPolicy, rng: random.Random) -> float | None:
    """Seconds to wait before retrying after ``error``; ``None`` when it is not retried."""
    if attempt > policy.retries or not isinstance(error, (Retryable, *policy.retry_on)):
        return None
    after = getattr(error, "after", None)
    if isinstance(after, (int, float)) and after >= 0:
        return min(policy.max_wait, float(after))
    return backoff_delay(attempt - 1, policy.backoff, policy.max_wait, rng)


def call_all(fn: Callable[[Any], Any], requests: Sequence[Any], policy: CallPolicy,
             done: Callable[[int, Outcome], None],
             around: Callable[[], AbstractAsyncContextManager[Any]] | None = None) -> None:
    """Call ``fn`` on every request; ``done(index, outcome)`` for each, in the calling thread, in finishing order.

    An ``async def`` function is awaited (see the module docstring), anything else runs on threads.
    ``around()``, when given, is entered on the event loop before the first ``async`` call and left
    after the last (a client pool); it is not used for a plain function. Returns when every request
    has an outcome; an exception raised by ``done`` stops the run and propagates (calls still
    running on threads are left behind). No request: nothing is called, ``around`` is not entered.
    """
    if not requests:
        return
    if inspect.iscoroutinefunction(fn):
        asyncio.run(_call_async(fn, requests, policy, done, around))
    else:
        _ThreadRun(fn, requests, policy).run(done)


async def _call_async(fn: Callable[[Any], Any], requests: Sequence[Any], policy: CallPolicy,
                      done: Callable[[int, Outcome], None],
                      around: Callable[[], AbstractAsyncContextManager[Any]] | None) -> None:
    async with around() if around is not None else contextlib.nullcontext():
        await _gather(fn, requests, policy, done)


async def _gather(fn: Callable[[Any], Any], requests: Sequence[Any], policy: CallPolicy,
                  done: Callable[[int, Outcome], None]) -> None:
    slots = asyncio.Semaphore(policy.concurrency)
    rng = random.Random(0)

    async def one(index: int) -> None:
        async with slots:
            attempt = 0
            while True:
                attempt += 1
                try:  # awaited in this task (not wait_for's own), so a SystemExit reaches the except below
                    async with asyncio.timeout(policy.timeout_s):
                        value = await fn(requests[index])
                except TimeoutError:
                    outcome: Outcome = Outcome(None, f"did not return within timeout_s={policy.timeout_s:g} s", attempt)
                except (Exception, SystemExit) as error:  # the team's code: anything it raises is reported
                    wait = _retry_wait(error, attempt, policy, rng)
                    if wait is not None:
                        await asyncio.sleep(wait)
                        continue
                    outcome = _failure(error, attempt)
                else:
                    outcome = Outcome(value, None, attempt)
                break
        done(index, outcome)

    tasks = [asyncio.ensure_future(one(i)) for i in range(len(requests))]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()


def _attempts(fn: Callable[[Any], Any], request: Any, policy: CallPolicy, rng: random.Random,
              started: Callable[[float | None], None]) -> Outcome:
    """Every attempt at one request on this thread; ``started(t)`` marks an attempt's start (``None``: not running)."""
    attempt = 0
    while True:
        attempt += 1
        started(time.monotonic())
        try:
            value = fn(request)
        except (Exception, SystemExit) as error:  # the team's code: anything it raises is reported
            started(None)
            wait = _retry_wait(error, attempt, policy, rng)
            if wait is None:
                return _failure(error, attempt)
            time.sleep(wait)
            continue
        started(None)
        return Outcome(value, None, attempt)


class _ThreadRun:
    """One run on daemon threads: workers take request indexes, the caller's thread watches the clock."""

    def __init__(self, fn: Callable[[Any], Any], requests: Sequence[Any], policy: CallPolicy):
        self.fn, self.requests, self.policy = fn, requests, policy
        self.todo: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in range(len(requests)):
            self.todo.put(index)
        self.results: queue.SimpleQueue[tuple[int, Outcome]] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.running: dict[int, tuple[float, int]] = {}  # worker id -> (attempt start, request index)
        self.abandoned: set[int] = set()  # workers whose call was given up: they stop after it
        self.rng = random.Random(0)
        self.workers = 0

    def _mark(self, wid: int, index: int, at: float | None) -> None:
        with self.lock:
            if at is None:
                self.running.pop(wid, None)
            else:
                self.running[wid] = (at, index)

    def _work(self, wid: int) -> None:
        while wid not in self.abandoned:
            try:
                index = self.todo.get_nowait()
            except queue.Empty:
                return
            outcome = _attempts(self.fn, self.requests[index], self.policy, self.rng,
                                functools.partial(self._mark, wid, index))
            with self.lock:
                if wid in self.abandoned:
                    return
            self.results.put((index, outcome))

    def _start(self) -> None:
        wid, self.workers = self.workers, self.workers + 1
        threading.Thread(target=self._work, args=(wid,), name=f"assay-system-{wid}", daemon=True).start()

    def _overdue(self, now: float) -> list[int]:
        """Give up the attempts older than the time limit; their request indexes."""
        with self.lock:
            late = [(wid, index) for wid, (at, index) in self.running.items() if now - at > self.policy.timeout_s]
            for wid, _ in late:
                self.abandoned.add(wid)
                self.running.pop(wid)
        return [index for _, index in late]

    def run(self, done: Callable[[int, Outcome], None]) -> None:
        """Call every request; ``done`` in this thread for each outcome (a timeout included).

        When ``done`` raises, the requests not yet taken are dropped, so no worker starts another.
        """
        for _ in range(min(self.policy.concurrency, len(self.requests))):
            self._start()
        try:
            self._watch(done)
        finally:
            with contextlib.suppress(queue.Empty):
                while True:
                    self.todo.get_nowait()

    def _watch(self, done: Callable[[int, Outcome], None]) -> None:
        finished = 0
        while finished < len(self.requests):
            now = time.monotonic()
            for index in self._overdue(now):
                finished += 1
                done(index, Outcome(None, f"did not return within timeout_s={self.policy.timeout_s:g} s (its thread "
                                          "is left running; fix: make the function return sooner or raise timeout_s)", 1))
                self._start()  # the late thread is left behind: a fresh one keeps the concurrency (after done:
                # when done stops the run, no further case is started)
            with self.lock:
                first = min((at for at, _ in self.running.values()), default=None)
            wait = POLL_S if first is None else max(0.0, min(POLL_S, first + self.policy.timeout_s - now))
            try:
                index, outcome = self.results.get(timeout=wait)
            except queue.Empty:
                continue
            finished += 1
            done(index, outcome)


def progress(total: int, label: str) -> Any:
    """A tqdm progress bar on stderr (rate and time left), quiet when stderr is not a terminal or under CI."""
    import os

    from tqdm import tqdm

    quiet = not sys.stderr.isatty() or bool(os.environ.get("CI"))
    return tqdm(total=total, desc=label, unit="case", file=sys.stderr, disable=quiet, mininterval=0.5)
