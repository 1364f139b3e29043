"""The review page in a real headless Chromium (Debian's), driven by Selenium, against the real server."""

from __future__ import annotations

import pytest

from assay.queue.items import JudgeOpinion, SourceItem
from assay.queue.store import open_store
from queue_fixtures import QueueServer, chrome  # noqa: F401
from queue_helpers import MODEL_A, MODEL_B, SCORES, make_queue

XSS_Q = '<img src=x onerror="window.__xss=1">How do I share a report?'
XSS_A = "<script>window.__xss=2</script>Open the report, then Share."
XSS_B = '<img src=x onerror="window.__xss=3;document.title=\'pwned\'">Export it as a PDF.'


@pytest.fixture
def served(tmp_path):
    db = str(tmp_path / "q.sqlite")
    store = open_store(db)
    item = SourceItem(id="xss-1", question=XSS_Q, answers={"a": XSS_A, "b": XSS_B}, models={"a": MODEL_A, "b": MODEL_B},
                      judge=JudgeOpinion(verdict="b", reason="JUDGE-REASON: the PDF route is simpler"), human="a")
    make_queue(store, items=[item])
    make_queue(store, name="hardq", fill="hard", n=1)
    tokens = {"ana": store.issue_token("reviewer", "q", "ana"), "coord": store.issue_token("coordinator")}
    store.engine.dispose()
    server = QueueServer(db).start()
    yield server, tokens
    server.stop()


def test_a_reviewer_reviews_blind_in_the_browser_and_xss_stays_inert(served, chrome):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    server, tokens = served
    wait = WebDriverWait(chrome, 30)
    chrome.get(server.base + "/")
    title = chrome.title
    chrome.find_element(By.ID, "token").send_keys(tokens["ana"])
    chrome.find_element(By.ID, "signin").click()
    wait.until(ec.visibility_of_element_located((By.ID, "take"))).click()
    wait.until(lambda d: d.find_element(By.ID, "answer-A").text.strip())

    # blind: neither model name nor anything the judge said is in the DOM before saving
    dom = chrome.page_source + chrome.find_element(By.TAG_NAME, "body").text
    for secret in (MODEL_A, MODEL_B, "JUDGE-REASON", "PDF route"):
        assert secret not in dom, secret
    shown = {chrome.find_element(By.ID, "answer-A").text, chrome.find_element(By.ID, "answer-B").text}
    assert shown == {XSS_A, XSS_B}  # the markup is displayed as text
    assert chrome.find_element(By.ID, "question").text == XSS_Q
    assert chrome.find_elements(By.CSS_SELECTOR, "#item img, #item script") == []

    for letter in ("A", "B"):
        for criterion, value in SCORES.items():
            Select(chrome.find_element(By.ID, f"score-{letter}-{criterion}")).select_by_value(str(value))
    chrome.find_element(By.CSS_SELECTOR, "input[name=choice][value=A]").click()
    chrome.find_element(By.ID, "note").send_keys("A gives the in-app steps")
    chrome.find_element(By.ID, "save").click()

    wait.until(ec.visibility_of_element_located((By.ID, "reveal")))
    models = {chrome.find_element(By.ID, "model-A").text, chrome.find_element(By.ID, "model-B").text}
    assert models == {MODEL_A, MODEL_B}
    assert "JUDGE-REASON" in chrome.find_element(By.ID, "judge-reason").text
    assert chrome.find_element(By.ID, "judge-verdict").text in ("Answer A", "Answer B")
    # nothing ran: no handler set the flag or the title
    assert chrome.execute_script("return window.__xss") is None
    assert chrome.title == title != "pwned"

    chrome.find_element(By.ID, "again").click()
    wait.until(lambda d: "Nothing left" in d.find_element(By.ID, "status").text)


def test_the_coordinator_sees_queues_with_the_hard_fill_flagged(served, chrome):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    server, tokens = served
    chrome.get(server.base + "/")
    chrome.find_element(By.ID, "token").send_keys(tokens["coord"])
    chrome.find_element(By.ID, "signin").click()
    WebDriverWait(chrome, 30).until(ec.visibility_of_element_located((By.ID, "coordinator")))
    WebDriverWait(chrome, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#queues tbody tr")) == 2)
    rows = {r.find_elements(By.TAG_NAME, "td")[0].text: r.text for r in chrome.find_elements(By.CSS_SELECTOR, "#queues tbody tr")}
    assert "biased" in rows["hardq"] and "biased" not in rows["q"]


@pytest.fixture
def double(tmp_path):
    """One queue whose items each get two independent reviews, and two reviewers for it."""
    db = str(tmp_path / "q.sqlite")
    store = open_store(db)
    make_queue(store, name="double", n=2, reviewers_per_item=2)
    tokens = {"ana": store.issue_token("reviewer", "double", "ana"), "bob": store.issue_token("reviewer", "double", "bob")}
    store.engine.dispose()
    server = QueueServer(db).start()
    yield server, tokens
    server.stop()


def test_two_reviewers_on_one_browser_profile_never_see_each_others_draft_or_the_last_reveal(double, chrome):
    """Issue 31: reviewer 2 was shown reviewer 1's unsaved choice, scores and note ("Your unsaved
    draft was restored"), and after a save the hidden reveal kept the models' names into the next item."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    from queue_fixtures import fresh_page

    server, tokens = double
    wait = WebDriverWait(chrome, 30)

    def sign_in_and_take(token: str) -> str:
        chrome.find_element(By.ID, "token").send_keys(token)
        chrome.find_element(By.ID, "signin").click()
        wait.until(ec.visibility_of_element_located((By.ID, "take"))).click()
        wait.until(lambda d: d.find_element(By.ID, "item").is_displayed() and d.find_element(By.ID, "item-id").text)
        return chrome.find_element(By.ID, "item-id").text

    def fill(choice: str, note: str) -> None:
        for letter in ("A", "B"):
            for criterion, value in SCORES.items():
                Select(chrome.find_element(By.ID, f"score-{letter}-{criterion}")).select_by_value(str(value))
        chrome.find_element(By.CSS_SELECTOR, f"input[name=choice][value={choice}]").click()
        chrome.find_element(By.ID, "note").send_keys(note)

    fresh_page(chrome, server.base + "/")
    first = sign_in_and_take(tokens["ana"])
    fill("B", "ANA-PRIVATE-NOTE")  # kept as a draft, never saved
    assert "ANA-PRIVATE-NOTE" in chrome.execute_script("return JSON.stringify(localStorage)")

    # the tab is closed and another reviewer opens the page in the same profile (localStorage is shared)
    chrome.execute_script("sessionStorage.clear()")
    chrome.get(server.base + "/")
    wait.until(ec.visibility_of_element_located((By.ID, "token")))
    assert sign_in_and_take(tokens["bob"]) == first  # the same item: its second independent review
    assert not chrome.find_element(By.ID, "draft-note").is_displayed()
    assert chrome.find_element(By.ID, "note").get_attribute("value") == ""
    assert chrome.find_elements(By.CSS_SELECTOR, "input[name=choice]:checked") == []
    assert all(s.get_attribute("value") == "" for s in chrome.find_elements(By.CSS_SELECTOR, "#rubric select"))
    assert "ANA-PRIVATE-NOTE" not in chrome.execute_script("return JSON.stringify(localStorage)")  # dropped at sign-in

    fill("A", "bob's own")
    chrome.find_element(By.ID, "save").click()
    wait.until(ec.visibility_of_element_located((By.ID, "reveal")))
    assert {chrome.find_element(By.ID, "model-A").text, chrome.find_element(By.ID, "model-B").text} == {MODEL_A, MODEL_B}
    chrome.find_element(By.ID, "again").click()
    wait.until(lambda d: d.find_element(By.ID, "item").is_displayed() and d.find_element(By.ID, "item-id").text != first)
    dom = chrome.page_source
    for secret in (MODEL_A, MODEL_B, "JUDGE-REASON"):  # the next item is blind again, hidden parts included
        assert secret not in dom, secret
