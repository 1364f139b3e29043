"""The JSON API as a client meets it: tokens and roles, 200/204/401/403/409/422, and blindness."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from assay.queue.app import create_app
from assay.queue.store import open_store
from queue_helpers import MODEL_A, MODEL_B, body, make_queue


@pytest.fixture
def api(tmp_path):
    store = open_store(str(tmp_path / "q.sqlite"))
    make_queue(store, n=2)
    make_queue(store, name="other", n=1)
    tokens = {"ana": store.issue_token("reviewer", "q", "ana"), "bob": store.issue_token("reviewer", "q", "bob"),
              "olga": store.issue_token("reviewer", "other", "olga"), "coord": store.issue_token("coordinator")}
    client = TestClient(create_app(store))
    yield client, {k: {"Authorization": f"Bearer {v}"} for k, v in tokens.items()}
    store.engine.dispose()


def blind(response, secrets=(MODEL_A, MODEL_B, "JUDGE-REASON", "verdict")) -> None:
    """No model name and no judge output anywhere in what the server sent."""
    sent = response.text + json.dumps(dict(response.headers))
    for secret in secrets:
        assert secret not in sent, secret


def test_every_call_needs_a_valid_token(api):
    client, auth = api
    for method, path in (("GET", "/api/me"), ("POST", "/api/queues/q/next"), ("POST", "/api/items/x/review"),
                         ("GET", "/api/queues"), ("GET", "/api/queues/q/results")):
        assert client.request(method, path).status_code == 401
        assert client.request(method, path, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/api/me", headers=auth["ana"]).json() == {"pseudonym": "ana", "queue": "q", "role": "reviewer"}


def test_next_then_review_then_reveal(api):
    client, auth = api
    r = client.post("/api/queues/q/next", headers=auth["ana"])
    assert r.status_code == 200
    item = r.json()
    assert set(item) >= {"item_id", "question", "answers", "rubric", "lease_expires", "lease_seconds_left"}
    assert "reference" not in item  # the source has none: no empty section to show
    assert 0 < item["lease_seconds_left"] <= 600
    assert set(item["answers"]) == {"A", "B"}
    assert [c["name"] for c in item["rubric"]] == ["correctness", "helpfulness", "tone", "format"]
    blind(r)
    saved = client.post(f"/api/items/{item['item_id']}/review", headers=auth["ana"], json=body("A", note="n"))
    assert saved.status_code == 200
    assert set(saved.json()["models"].values()) == {MODEL_A, MODEL_B}
    assert saved.json()["judge"]["verdict"] in ("A", "B")
    again = client.post(f"/api/items/{item['item_id']}/review", headers=auth["ana"], json=body("B"))
    assert again.status_code == 409


def test_a_reviewer_cannot_write_another_reviewers_leased_item(api):
    client, auth = api
    item = client.post("/api/queues/q/next", headers=auth["ana"]).json()
    other = client.post("/api/queues/q/next", headers=auth["bob"]).json()
    assert other["item_id"] != item["item_id"]
    stolen = client.post(f"/api/items/{item['item_id']}/review", headers=auth["bob"], json=body())
    assert stolen.status_code == 409
    blind(stolen)
    assert client.post("/api/queues/q/next", headers=auth["olga"]).status_code == 403  # another queue's reviewer
    assert client.post(f"/api/items/{item['item_id']}/review", headers=auth["olga"], json=body()).status_code == 404


def test_nothing_left_is_204(api):
    client, auth = api
    for _ in range(2):
        item = client.post("/api/queues/q/next", headers=auth["ana"]).json()
        assert client.post(f"/api/items/{item['item_id']}/review", headers=auth["ana"], json=body()).status_code == 200
    r = client.post("/api/queues/q/next", headers=auth["ana"])
    assert r.status_code == 204 and r.content == b""


@pytest.mark.parametrize("bad,field,message", [
    ({"choice": None, "scores": {}}, "choice", "Choose which answer is better: Answer A, Answer B or a tie."),
    ({"choice": "maybe", "scores": {}}, "choice", "Choose Answer A, Answer B or a tie ('maybe' is none of them)."),
    ({"choice": "A", "scores": {"A": {"correctness": None}}}, "scores.A.correctness",
     "Give Answer A a correctness score from 1 to 5."),
    ({"choice": "A", "scores": {"A": {"correctness": 0}}}, "scores.A.correctness",
     "Give Answer A a correctness score from 1 to 5 as a whole number (0 is not one)."),
    ({"choice": "A", "scores": "high"}, "scores", "Score Answer A and Answer B on every criterion."),
    ({**body(), "verdict": "A"}, "verdict",
     "'verdict' is not part of a review; a review has choice, scores, correction, note."),
])
def test_bad_input_is_422_naming_the_field_in_plain_words(api, bad, field, message):
    client, auth = api
    item = client.post("/api/queues/q/next", headers=auth["ana"]).json()
    r = client.post(f"/api/items/{item['item_id']}/review", headers=auth["ana"], json=bad)
    assert r.status_code == 422 and r.json() == {"field": field, "error": message}


def test_not_json_is_422(api):
    client, auth = api
    item = client.post("/api/queues/q/next", headers=auth["ana"]).json()
    r = client.post(f"/api/items/{item['item_id']}/review", headers=auth["ana"], content=b"{not json")
    assert r.status_code == 422 and r.json()["field"] == "body"


def test_only_the_coordinator_sees_results(api):
    client, auth = api
    assert client.get("/api/queues/q/results", headers=auth["ana"]).status_code == 403
    assert client.get("/api/queues", headers=auth["ana"]).status_code == 403
    assert client.post("/api/queues/q/next", headers=auth["coord"]).status_code == 403
    queues = client.get("/api/queues", headers=auth["coord"]).json()["queues"]
    assert {q["name"] for q in queues} == {"q", "other"}
    results = client.get("/api/queues/q/results", headers=auth["coord"])
    assert results.status_code == 200 and results.json()["queue"]["random_fill"] is True
    assert client.get("/api/queues/nope/results", headers=auth["coord"]).status_code == 404


def test_page_holds_no_data_and_forbids_inline_script(api):
    client, _ = api
    page = client.get("/")
    assert page.status_code == 200 and "Answer A" in page.text
    blind(page, (MODEL_A, MODEL_B, "JUDGE-REASON"))  # the page says "Judge's verdict:" as a label only
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    script = client.get("/app.js").text
    assert "innerHTML" not in script and "textContent" in script


def test_a_body_over_the_limit_is_413_and_nothing_is_stored(api):
    from assay.queue.app import MAX_BODY_BYTES

    client, auth = api
    item = client.post("/api/queues/q/next", headers=auth["ana"]).json()
    huge = client.post(f"/api/items/{item['item_id']}/review", headers=auth["ana"],
                       json=body("A", note="x" * (50 * 1024 * 1024)))  # the red team's 50 MB note
    assert huge.status_code == 413 and "over" in huge.json()["error"]

    def chunks():  # no Content-Length: the limit counts the bytes as they arrive
        yield b'{"note": "'
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b"x" * 65536
        yield b'"}'

    streamed = client.post(f"/api/items/{item['item_id']}/review", headers=auth["ana"], content=chunks())
    assert streamed.status_code == 413
    fits = client.post(f"/api/items/{item['item_id']}/review", headers=auth["ana"],
                       json=body("A", note="y" * (MAX_BODY_BYTES // 2)))
    assert fits.status_code == 200  # the item was still open: the refused bodies saved nothing


def test_deep_nesting_is_422_naming_the_field_not_a_500(api):
    client, auth = api
    item = client.post("/api/queues/q/next", headers=auth["ana"]).json()
    url = f"/api/items/{item['item_id']}/review"
    red_team = '{"a":' * 100_000 + "1" + "}" * 100_000  # a RecursionError and HTTP 500 before; 600 KB: now 413
    assert client.post(url, headers=auth["ana"], content=red_team).status_code == 413
    bomb = '{"a":' * 40_000 + "1" + "}" * 40_000  # 240 KB: under the size limit, so the depth limit answers
    r = client.post(url, headers=auth["ana"], content=bomb)
    assert r.status_code == 422 and r.json()["field"] == "a.a.a.a.a.a.a.a" and "nested more than 8" in r.json()["error"]
    note = client.post(url, headers=auth["ana"], content=json.dumps({**body("A"), "note": {"x": [[[[[[[[1]]]]]]]]}}))
    assert note.status_code == 422 and note.json()["field"].startswith("note.x")
    assert client.post(url, headers={"Authorization": "Bearer wrong"}, content=bomb).status_code == 401  # token first
    assert client.post(url, headers=auth["ana"], json=body("A", note='{"a": [[[[[[[[[["')).status_code == 200  # text


def test_the_case_reference_is_in_the_blind_item_when_the_source_has_one(tmp_path):
    from assay.queue.items import CitedDocument, Reference
    from queue_helpers import pair_items

    store = open_store(str(tmp_path / "q.sqlite"))
    item = pair_items(1)[0].model_copy(update={"reference": Reference(
        facts=["14 days"], documents=[CitedDocument(id="kb-refunds", title="Refunds", text="Cancel within 14 days."),
                                      CitedDocument(id="kb-gone")])})
    make_queue(store, items=[item])
    token = store.issue_token("reviewer", "q", "ana")
    r = TestClient(create_app(store)).post("/api/queues/q/next", headers={"Authorization": f"Bearer {token}"})
    store.engine.dispose()
    assert r.json()["reference"] == {"facts": ["14 days"], "documents": [
        {"id": "kb-refunds", "title": "Refunds", "text": "Cancel within 14 days."},
        {"id": "kb-gone", "title": None, "text": None}]}
    blind(r)


def _with(raw_body: str, key: str, raw_value: str) -> str:
    """``raw_body`` (a JSON object) with ``"key": raw_value`` spliced in as written (no re-encoding)."""
    return raw_body[:-1] + f', "{key}": {raw_value}' + "}"


HOSTILE_BODIES = {  # the red team's bodies (issue 31): each a 500 or silently accepted before
    "a 5000-digit score": lambda: json.dumps(body("A")).replace('"correctness": 4', '"correctness": ' + "4" * 5000, 1),
    "a lone surrogate in the note": lambda: _with(json.dumps(body("A")), "note", '"ok \\ud800 then"'),
    "a NUL in the note": lambda: _with(json.dumps(body("A")), "note", '"a\\u0000b"'),
    "a duplicate key": lambda: _with(json.dumps(body("A")), "choice", '"B"'),
    "1e999 as a score": lambda: json.dumps(body("A")).replace('"correctness": 4', '"correctness": 1e999', 1),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_BODIES))
def test_hostile_bodies_are_422_and_store_nothing(api, name):
    client, auth = api
    raw = HOSTILE_BODIES[name]()
    assert '"correctness": 4' in json.dumps(body("A"))  # the splice above has something to replace
    item = client.post("/api/queues/q/next", headers=auth["ana"]).json()
    url = f"/api/items/{item['item_id']}/review"
    r = client.post(url, headers=auth["ana"], content=raw.encode("utf-8"))
    assert r.status_code == 422, (name, r.status_code, r.text[:300])
    assert r.json()["field"] in ("body", "note") and len(r.text) < 1000
    assert client.post(url, headers={"Authorization": "Bearer wrong"}, content=raw.encode()).status_code == 401
    assert client.post(url, headers=auth["ana"], json=body("A")).status_code == 200  # nothing was saved before
