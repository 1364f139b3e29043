"""16 reviewers work a 500-item queue through the real HTTP server, on SQLite and on PostgreSQL.

Half way the server is killed with SIGKILL and started again. Afterwards every item is reviewed
exactly once, every review the server confirmed is stored, and the items that were leased but not
saved at the kill come back once their lease has expired. Nothing waits on a fixed sleep: every
wait polls a condition with a bound.
"""

from __future__ import annotations

import http.client
import json
import threading

from sqlalchemy import func, select

from assay.queue import schema
from assay.queue.store import open_store
from queue_fixtures import QueueServer, db_url, postgres, wait_for  # noqa: F401
from queue_helpers import body, make_queue

N_ITEMS, N_CLIENTS, LEASE = 500, 16, 4.0


class Client:
    """One reviewer's keep-alive HTTP connection to whichever server is current."""

    def __init__(self, shared: dict, token: str):
        self.shared, self.token, self.conn, self.base = shared, token, None, None

    def call(self, method: str, path: str, payload=None) -> tuple[int, dict | None]:
        if self.conn is None or self.base != self.shared["port"]:
            self.base = self.shared["port"]
            self.conn = http.client.HTTPConnection("127.0.0.1", self.base, timeout=60)
        data = json.dumps(payload).encode() if payload is not None else None
        self.conn.request(method, path, body=data, headers={"Authorization": f"Bearer {self.token}",
                                                             "Content-Type": "application/json"})
        response = self.conn.getresponse()
        raw = response.read()
        return response.status, (json.loads(raw) if raw else None)

    def reset(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.conn = None


def _review_until_empty(shared: dict, token: str, up: threading.Event, confirmed: dict[str, str], errors: list[str],
                        lock: threading.Lock) -> None:
    """One reviewer's loop: take and review items until the queue is empty, riding out a killed server."""
    client = Client(shared, token)
    while True:
        try:
            status, item = client.call("POST", "/api/queues/q/next")
            if status == 204:
                return
            if status != 200:
                errors.append(f"next {status} {item}")
                return
            status, reply = client.call("POST", f"/api/items/{item['item_id']}/review", body("A"))
            if status == 200:
                with lock:
                    if item["item_id"] in confirmed:
                        errors.append(f"{item['item_id']} confirmed twice")
                    confirmed[item["item_id"]] = token
            elif status != 409:  # 409: the lease ran out first; the item goes back to the queue
                errors.append(f"review {status} {reply}")
                return
        except (OSError, http.client.HTTPException):
            client.reset()  # the server was killed: wait (bounded) until it is back
            if not up.wait(120):
                errors.append("server did not come back")
                return


def test_sixteen_reviewers_every_item_once_through_a_kill_9(db_url, tmp_path):
    store = open_store(db_url)
    make_queue(store, n=N_ITEMS)
    tokens = [store.issue_token("reviewer", "q", f"r{i:02d}") for i in range(N_CLIENTS)]
    quitters = [store.issue_token("reviewer", "q", f"quitter{i}") for i in range(3)]
    sweeper = store.issue_token("reviewer", "q", "sweeper")

    server = QueueServer(db_url, lease_seconds=LEASE).start()
    shared = {"port": server.port}
    up = threading.Event()
    up.set()
    confirmed: dict[str, str] = {}
    errors: list[str] = []
    lock = threading.Lock()

    threads = [threading.Thread(target=_review_until_empty, args=(shared, t, up, confirmed, errors, lock)) for t in tokens]
    for t in threads:
        t.start()
    try:
        wait_for(lambda: len(confirmed) >= N_ITEMS // 2 - 40 or errors, 300, "the first half of the reviews")
        abandoned = []
        for token in quitters:  # take an item each and never save it
            status, item = Client(shared, token).call("POST", "/api/queues/q/next")
            assert status == 200
            abandoned.append(item["item_id"])
        wait_for(lambda: len(confirmed) >= N_ITEMS // 2 or errors, 300, "half of the reviews")
        up.clear()
        server.kill9()
        saved_before_restart = dict(confirmed)

        server = QueueServer(db_url, lease_seconds=LEASE).start()
        shared["port"] = server.port
        with store.read() as conn:  # every review confirmed before the kill survived it
            stored = set(conn.execute(select(schema.reviews.c.item_id)).scalars())
        assert set(saved_before_restart) <= stored
        up.set()
        for t in threads:
            t.join(300)
        assert not any(t.is_alive() for t in threads)
        assert errors == []

        # what is still missing was leased when the workers finished: it comes back after its lease
        sweep = Client(shared, sweeper)

        def sweep_once() -> bool:
            status, item = sweep.call("POST", "/api/queues/q/next")
            if status == 200:
                assert sweep.call("POST", f"/api/items/{item['item_id']}/review", body("B"))[0] == 200
                confirmed[item["item_id"]] = sweeper
            return store.counts("q")["reviewed"] == N_ITEMS

        wait_for(sweep_once, 120, "every item to be reviewed", interval=0.2)
    finally:
        up.set()
        server.stop()

    with store.read() as conn:
        rows = conn.execute(select(schema.reviews.c.item_id, schema.reviews.c.reviewer)).all()
        n_items = conn.execute(select(func.count()).select_from(schema.items)).scalar_one()
    reviewed = [r.item_id for r in rows]
    assert n_items == N_ITEMS
    assert len(reviewed) == len(set(reviewed)) == N_ITEMS  # 0 double, 0 missing
    assert set(confirmed) <= set(reviewed)  # 0 lost: every 200 is stored
    by_item = {r.item_id: r.reviewer for r in rows}
    for item_id in abandoned:  # leased and never saved: came back and was reviewed by someone else
        assert not by_item[item_id].startswith("quitter")
    store.engine.dispose()
