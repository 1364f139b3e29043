"""Where source chunks are joined against the cases: in this process, or on a Dask cluster.

Both engines apply the same function to the same chunks and hand the results back in chunk
order, so the report is the same bytes whichever runs it.

* :class:`LocalEngine`: one chunk after another in this process.
* :class:`DaskEngine`: the cases' index is sent to every worker once (``scatter``, broadcast),
  then chunks are submitted as the reader produces them, at most ``window`` at a time, and results
  are taken back in submission order. Memory on this machine stays bounded by the window; workers
  need assay installed (the same version) but no access to the sources, which travel with the tasks.

The scheduler address comes from ``ASSAY_DASK_SCHEDULER`` when set (addresses are per machine),
else ``leakage.dask_scheduler``; with neither, a ``LocalCluster`` of this machine's cores is started
and closed afterwards.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

ENV_SCHEDULER = "ASSAY_DASK_SCHEDULER"


class Engine(Protocol):
    """Maps ``fn(shared, item)`` over ``items``, yielding results in item order."""

    def map(self, fn: Callable[[Any, Any], Any], shared: Any, items: Iterable) -> Iterator: ...


class LocalEngine:
    """Runs every chunk in this process, in order."""

    name = "local"

    def map(self, fn: Callable[[Any, Any], Any], shared: Any, items: Iterable) -> Iterator:
        for item in items:
            yield fn(shared, item)


class DaskEngine:
    """Runs chunks on a ``dask.distributed`` cluster.

    Args:
        address: scheduler address (``tcp://host:8786``); ``None`` starts a LocalCluster.
        client: an existing ``distributed.Client`` to use instead (it is not closed).
        window: most chunks in flight at once; ``None`` means twice the number of worker threads.
    """

    name = "dask"

    def __init__(self, address: str | None = None, client: Any = None, window: int | None = None):
        self.address, self.client, self.window = address, client, window

    def map(self, fn: Callable[[Any, Any], Any], shared: Any, items: Iterable) -> Iterator:
        from distributed import Client, LocalCluster

        own_cluster = own_client = None
        client = self.client
        if client is None:
            if self.address:
                client = own_client = Client(self.address)
            else:
                own_cluster = LocalCluster(processes=True, dashboard_address=None)
                client = own_client = Client(own_cluster)
        pending: deque = deque()
        try:
            window = self.window or max(2 * sum(client.nthreads().values()), 2)
            remote = client.scatter(shared, broadcast=True)
            for item in items:
                pending.append(client.submit(fn, remote, item, pure=False))
                if len(pending) >= window:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
            if own_client is not None:
                own_client.close()
            if own_cluster is not None:
                own_cluster.close()


def engine_for(name: str, scheduler: str | None = None) -> LocalEngine | DaskEngine:
    """The engine named in params (``local`` or ``dask``); see the module docstring for the address."""
    if name == "dask":
        return DaskEngine(os.environ.get(ENV_SCHEDULER) or scheduler)
    return LocalEngine()
