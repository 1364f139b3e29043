"""Calling a team's function: concurrency (threads and async), time limits, retries, tracebacks, sys.exit.

No test depends on wall-clock luck: concurrency is shown with a barrier that only opens when that
many calls are in flight at once, and a call that "never returns" waits on an event the test sets
only at the end.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from assay.rag.calls import CallPolicy, Outcome, Retryable, call_all


def run(fn, requests, **policy) -> dict[int, Outcome]:
    seen: dict[int, Outcome] = {}

    def done(index: int, outcome: Outcome) -> None:
        assert index not in seen  # each request settles exactly once
        seen[index] = outcome

    call_all(fn, requests, CallPolicy(**{"backoff": 0.001, "max_wait": 0.01, **policy}), done)
    return seen


def test_threads_run_concurrency_calls_at_once():
    barrier = threading.Barrier(8, timeout=10)  # opens only when 8 calls wait together

    def fn(x):
        barrier.wait()
        return x * 2

    out = run(fn, list(range(16)), concurrency=8)
    assert {i: o.value for i, o in out.items()} == {i: 2 * i for i in range(16)}
    assert all(o.ok and o.attempts == 1 for o in out.values())


def test_threads_respect_the_limit():
    lock, active, most = threading.Lock(), [0], [0]
    release = threading.Event()

    def fn(x):
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
            if active[0] == 3:
                release.set()
        release.wait(5)
        with lock:
            active[0] -= 1
        return x

    out = run(fn, list(range(12)), concurrency=3)
    assert len(out) == 12 and most[0] == 3


def test_async_functions_are_awaited_with_the_limit():
    state = {"active": 0, "most": 0}

    async def fn(x):
        state["active"] += 1
        state["most"] = max(state["most"], state["active"])
        await asyncio.sleep(0.01)
        state["active"] -= 1
        return x + 1

    out = run(fn, list(range(20)), concurrency=4)
    assert {i: o.value for i, o in out.items()} == {i: i + 1 for i in range(20)}
    assert state["most"] == 4


def test_a_call_that_never_returns_is_given_up_naming_the_limit():
    never = threading.Event()

    def fn(x):
        if x == "stuck":
            never.wait()  # set only after the run: until then this call does not return
        return x

    try:
        out = run(fn, ["a", "stuck", "b", "c"], concurrency=1, timeout_s=0.2)
    finally:
        never.set()
    assert out[1].error is not None and out[1].error.startswith("did not return within timeout_s=0.2 s")
    assert [out[i].value for i in (0, 2, 3)] == ["a", "b", "c"]  # the others ran on a fresh thread


def test_an_async_call_past_its_limit_is_cancelled():
    async def fn(x):
        if x == "stuck":
            await asyncio.sleep(3600)
        return x

    out = run(fn, ["a", "stuck"], concurrency=2, timeout_s=0.1)
    assert out[0].value == "a" and out[1].error == "did not return within timeout_s=0.1 s"


class RateLimited(Exception):
    pass


@pytest.mark.parametrize("raise_it", [lambda: Retryable("busy", after=0.001), lambda: RateLimited("busy")])
def test_retryable_failures_are_tried_again(raise_it):
    tries: dict[int, int] = {}
    lock = threading.Lock()

    def fn(x):
        with lock:
            tries[x] = tries.get(x, 0) + 1
            n = tries[x]
        if n <= 2:
            raise raise_it()
        return x

    out = run(fn, [1, 2, 3], concurrency=2, retries=2, retry_on=(RateLimited,))
    assert all(o.ok and o.attempts == 3 for o in out.values()) and tries == {1: 3, 2: 3, 3: 3}
    tries.clear()
    out = run(fn, [1], retries=1, retry_on=(RateLimited,))
    assert out[0].error.startswith("raised ") and "busy" in out[0].error and out[0].attempts == 2


def test_other_exceptions_fail_at_once_with_the_functions_own_frames():
    def helper(x):
        return {}[x]

    def fn(x):
        return helper(x)

    out = run(fn, ["k"], retries=3)
    error = out[0].error
    assert out[0].attempts == 1 and error.startswith("raised KeyError: 'k'\nTraceback (most recent call last):\n")
    assert ", in fn\n" in error and ", in helper\n" in error and "KeyError: 'k'" in error.splitlines()[-1]
    assert "src/assay" not in error and "in _attempts" not in error  # assay's frames are not shown


@pytest.mark.parametrize("asynchronous", [False, True])
def test_sys_exit_is_fatal_not_a_failed_case(asynchronous):
    def plain(x):
        raise SystemExit(0)

    async def coroutine(x):
        raise SystemExit(0)

    out = run(coroutine if asynchronous else plain, ["a"])
    assert out[0].fatal and out[0].error.startswith("called sys.exit(0); a system's function must return a reply")


def test_no_request_calls_nothing():
    def fn(x):
        raise AssertionError("called")

    assert run(fn, []) == {}
