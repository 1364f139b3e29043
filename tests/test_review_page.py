"""The review page as reviewers use it all day: in headless Chromium at 1280 and 390 px, and by keyboard only.

One server and one browser for the module; each test has its own queue and reviewer, and starts
from empty page storage. Screenshots go to ``ASSAY_SCREENSHOTS`` (CI keeps them as an artifact).
Every wait is explicit (WebDriverWait on a condition), never a sleep.
"""

from __future__ import annotations

import re

import pytest

from assay.queue.items import CitedDocument, JudgeOpinion, Message, Reference, SourceItem
from assay.queue.rubric import load_rubric
from assay.queue.store import open_store
from conftest import ROOT
from queue_fixtures import QueueServer, chrome, fresh_page, screenshot, screenshots  # noqa: F401
from queue_helpers import MODEL_A, MODEL_B, SCORES, make_queue

FACT = "14 days"
DOC_TITLE = "Refunds and cancellation"
DOC_TEXT = "You can cancel a new contract within 14 days of activation for a full refund."
REASON = "JUDGE-REASON: the refund period is 14 days"
QUEUES = ("wide", "narrow", "keys", "draft", "lost", "single")
RUBRIC = load_rubric(ROOT / "data/rubric.yaml").spec


def _items(queue: str) -> list[SourceItem]:
    """Two pairs: the first with a reference and a judge's reason, the second with neither but with the
    judge's scores (queue
    ``single``: one single response after a user turn)."""
    if queue == "single":
        return [SourceItem(id="conv-1#1", kind="response", question="Can I pause my plan?",
                           answers={"a": "Yes, for up to 3 months."}, models={"a": MODEL_A},
                           context=[Message(role="user", content="Can I pause my plan?")])]
    with_reference = SourceItem(
        id=f"{queue}-1", question="How long do I have to cancel a new contract and get a full refund?",
        answers={"a": "You can cancel within 14 days of activation.", "b": "You can cancel within 30 days."},
        models={"a": MODEL_A, "b": MODEL_B}, judge=JudgeOpinion(verdict="a", reason=REASON),
        reference=Reference(facts=[FACT], documents=[CitedDocument(id="kb-refunds", title=DOC_TITLE, text=DOC_TEXT)]))
    bare = SourceItem(id=f"{queue}-2", question="What does the roaming pack cost?",
                      answers={"a": "BDT 300 for 7 days.", "b": "BDT 500 for 7 days."},
                      models={"a": MODEL_A, "b": MODEL_B},
                      judge=JudgeOpinion(verdict="b", scores={"a": dict(SCORES), "b": dict(SCORES)}))
    return [with_reference, bare]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("review-page") / "q.sqlite")
    store = open_store(db)
    tokens = {}
    for name in QUEUES:
        make_queue(store, name=name, items=_items(name))
        tokens[name] = store.issue_token("reviewer", name, f"rev-{name}")
    store.engine.dispose()
    server = QueueServer(db).start()
    server.db = db
    yield server, tokens
    server.stop()


def _wait(driver, condition, what: str, timeout: float = 30):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition, message=f"waiting for {what}")


def _by_id(driver, element_id: str):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id)


def _visible(driver, element_id: str):
    return _wait(driver, lambda d: _by_id(d, element_id).is_displayed() and _by_id(d, element_id), element_id)


def _active_id(driver) -> str:
    return driver.execute_script("return document.activeElement && document.activeElement.id")


def _sign_in_and_take(driver, base: str, token: str, width: int = 1280) -> None:
    fresh_page(driver, base + "/", width)
    _by_id(driver, "token").send_keys(token)
    _by_id(driver, "signin").click()
    _visible(driver, "take").click()
    _wait(driver, lambda d: _by_id(d, "answer-A").text.strip(), "the item")


def _rect(driver, element_id: str) -> dict:
    return driver.execute_script("const r = document.getElementById(arguments[0]).getBoundingClientRect();"
                                 "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width};",
                                 element_id)


def _fill_scores(driver, score: int) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    for select in driver.find_elements(By.CSS_SELECTOR, "#rubric select"):
        Select(select).select_by_value(str(score))


def _fill(driver, score: int = 4, choice: str = "A") -> None:
    from selenium.webdriver.common.by import By

    _fill_scores(driver, score)
    driver.find_element(By.CSS_SELECTOR, f"input[name=choice][value={choice}]").click()


def test_at_1280_the_rubric_reference_errors_success_and_reveal_are_where_a_reviewer_looks(served, chrome, screenshots):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    server, tokens = served
    _sign_in_and_take(chrome, server.base, tokens["wide"])

    # blind: no model name and nothing of the judge's in the page before saving
    for secret in (MODEL_A, MODEL_B, "JUDGE-REASON"):
        assert secret not in chrome.page_source, secret
    # rubric definitions are visible text beside the scores, not tooltips
    definitions = [e.text for e in chrome.find_elements(By.CSS_SELECTOR, "#rubric .definition") if e.is_displayed()]
    assert definitions == [f"{c.question} (1 to 5)" for c in RUBRIC.criteria]
    assert chrome.find_elements(By.CSS_SELECTOR, "#rubric [title]") == []
    # the reference: the fact and the cited document by title, its text one keypress away
    assert _by_id(chrome, "reference").is_displayed()
    assert [e.text for e in chrome.find_elements(By.CSS_SELECTOR, "#facts li")] == [FACT]
    assert chrome.find_element(By.CSS_SELECTOR, "#documents summary").text == f"{DOC_TITLE} (kb-refunds)"
    # the lease in local time with the minutes left (600 s lease), not a raw UTC ISO string
    assert re.fullmatch(r"\d{1,2}:\d{2}( ?[AP]M)?", _by_id(chrome, "lease").text), _by_id(chrome, "lease").text
    assert _by_id(chrome, "lease-left").text == "(10 minutes left)"
    # at 1280 px the answers stand side by side
    a, b = _rect(chrome, "answer-A"), _rect(chrome, "answer-B")
    assert a["right"] < b["left"] and a["top"] == b["top"]
    # every control has an accessible name (its label), computed by Chromium
    controls = chrome.find_elements(By.CSS_SELECTOR, "#item select, #item input, #item textarea, #item button")
    assert controls and all(c.accessible_name.strip() for c in controls), [c.get_attribute("id") for c in controls]
    assert _by_id(chrome, "score-B-tone").accessible_name == "tone Answer B"
    screenshot(chrome, screenshots, "review-1280-item.png")

    # saving with nothing filled in: plain words next to each field, the field marked, focus on the first
    _by_id(chrome, "save").click()
    _wait(chrome, lambda d: _by_id(d, "choice-error").is_displayed(), "the choice error")
    first = _by_id(chrome, "score-A-correctness")
    assert first.get_attribute("aria-invalid") == "true" and _active_id(chrome) == "score-A-correctness"
    message = _by_id(chrome, "error-A-correctness")
    assert message.is_displayed() and message.text == "Give Answer A a correctness score from 1 to 5."
    assert "error-A-correctness" in first.get_attribute("aria-describedby").split()
    assert _by_id(chrome, "choice-error").text == "Choose which answer is better: Answer A, Answer B or a tie."
    assert _by_id(chrome, "choice-box").get_attribute("aria-invalid") == "true"
    assert "field '" not in chrome.find_element(By.TAG_NAME, "body").text  # no developer text
    error_colour = _by_id(chrome, "status").value_of_css_property("color")
    screenshot(chrome, screenshots, "review-1280-errors.png")
    Select(first).select_by_value("4")  # a field given a value loses its error; the others keep theirs
    _wait(chrome, lambda d: not _by_id(d, "error-A-correctness").is_displayed(), "the fixed field's error to go")
    assert first.get_attribute("aria-invalid") is None and _by_id(chrome, "choice-error").is_displayed()

    _fill(chrome, choice="A")
    _by_id(chrome, "save").click()
    _visible(chrome, "reveal")
    status = _by_id(chrome, "status")
    assert status.get_attribute("class") == "success" and status.text.startswith("Saved.")
    assert status.value_of_css_property("color") != error_colour
    assert _active_id(chrome) == "reveal-heading"
    # the reveal: the question, both answers with their models, your choice beside the judge's, the reason
    assert _by_id(chrome, "reveal-question").text.startswith("How long do I have to cancel")
    shown = {_by_id(chrome, f"reveal-answer-{x}").text: _by_id(chrome, f"model-{x}").text for x in "AB"}
    assert shown == {"You can cancel within 14 days of activation.": MODEL_A, "You can cancel within 30 days.": MODEL_B}
    judge_letter = "A" if _by_id(chrome, "model-A").text == MODEL_A else "B"
    assert _by_id(chrome, "your-choice").text == "Answer A"
    assert _by_id(chrome, "judge-verdict").text == f"Answer {judge_letter}"
    assert _rect(chrome, "your-choice")["top"] == _rect(chrome, "judge-verdict")["top"]  # side by side
    assert _by_id(chrome, "judge-reason").text == REASON
    assert chrome.find_elements(By.CSS_SELECTOR, "#verdicts tr.score") == []  # the judge gave no scores
    screenshot(chrome, screenshots, "review-1280-reveal.png")

    # the second item has no reason and no reference: no reason line at all, no reference section
    _by_id(chrome, "again").click()
    _wait(chrome, lambda d: "roaming" in _by_id(d, "question").text, "the second item")
    assert not _by_id(chrome, "reference").is_displayed()
    _fill(chrome, choice="tie")
    _by_id(chrome, "save").click()
    _visible(chrome, "reveal")
    assert not _by_id(chrome, "judge-reason-line").is_displayed()
    assert "none given" not in chrome.find_element(By.TAG_NAME, "body").text
    # the judge scored this one: each score of yours beside the judge's
    rows = [[c.text for c in r.find_elements(By.CSS_SELECTOR, "th, td")]
            for r in chrome.find_elements(By.CSS_SELECTOR, "#verdicts tr.score")]
    assert rows == [[f"Answer {x} {name}", "4", str(SCORES[name])] for x in "AB" for name in SCORES]


def _minutes_of_day(text: str) -> int:
    """``06:33 AM`` or ``18:33`` as minutes after midnight."""
    hour, minute, half = re.fullmatch(r"(\d{1,2}):(\d{2})(?: ?([AP]M))?", text).groups()
    return (int(hour) % 12 + (12 if half == "PM" else 0) if half else int(hour)) * 60 + int(minute)


def test_at_390_px_the_page_is_one_column_and_the_lease_is_in_the_readers_time_zone(served, chrome, screenshots):
    from datetime import datetime, timedelta, timezone

    server, tokens = served
    chrome.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Dhaka"})  # UTC+6, no DST
    try:
        _sign_in_and_take(chrome, server.base, tokens["narrow"], width=390)
        expires = datetime.fromisoformat(_by_id(chrome, "lease").get_attribute("datetime").replace("Z", "+00:00"))
        dhaka = expires.astimezone(timezone(timedelta(hours=6)))
        shown = _minutes_of_day(_by_id(chrome, "lease").text)
        # the page counts from its own clock, so a minute boundary may fall between the two readings
        assert min(abs(shown - (dhaka.hour * 60 + dhaka.minute) + d) for d in (-1440, 0, 1440)) <= 1, (shown, dhaka)
    finally:
        chrome.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
    a, b = _rect(chrome, "answer-A"), _rect(chrome, "answer-B")
    assert b["top"] >= a["bottom"] and abs(a["left"] - b["left"]) < 1 and a["width"] > 300, (a, b)
    assert chrome.execute_script("return document.documentElement.scrollWidth") <= 390  # nothing scrolls sideways
    assert _by_id(chrome, "reference").is_displayed() and _by_id(chrome, "def-tone").is_displayed()
    screenshot(chrome, screenshots, "review-390-item.png")
    _fill(chrome, choice="B")
    _by_id(chrome, "save").click()
    _visible(chrome, "reveal")
    ra, rb = _rect(chrome, "reveal-answer-A"), _rect(chrome, "reveal-answer-B")
    assert rb["top"] >= ra["bottom"]
    assert chrome.execute_script("return document.documentElement.scrollWidth") <= 390
    screenshot(chrome, screenshots, "review-390-reveal.png")


def _press(driver, *keys) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*keys).perform()


def _tab_to(driver, element_id: str, limit: int = 40) -> None:
    """Press Tab until ``element_id`` has focus (fails after ``limit`` presses)."""
    from selenium.webdriver.common.keys import Keys

    for _ in range(limit):
        if _active_id(driver) == element_id:
            return
        _press(driver, Keys.TAB)
    raise AssertionError(f"{element_id} is not reachable by Tab (focus on {_active_id(driver)!r})")


def test_a_keyboard_only_review_from_sign_in_to_reveal(served, chrome, screenshots):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    server, tokens = served
    fresh_page(chrome, server.base + "/")
    _wait(chrome, lambda d: _active_id(d) == "token", "focus in the token field")
    _press(chrome, tokens["keys"], Keys.ENTER)  # Enter in the token field signs in
    _wait(chrome, lambda d: _active_id(d) == "take", "focus on 'Take the next item'")
    _press(chrome, Keys.ENTER)
    _wait(chrome, lambda d: _active_id(d) == "item-heading", "focus on the new item")
    assert _by_id(chrome, "answer-A").text

    _tab_to(chrome, "save")  # every control on the way is a Tab stop; nothing chosen yet
    _press(chrome, Keys.ENTER)
    _wait(chrome, lambda d: _active_id(d) == "score-A-correctness", "focus on the first field in error")
    assert _by_id(chrome, "score-A-correctness").get_attribute("aria-invalid") == "true"

    selects = [s.get_attribute("id") for s in chrome.find_elements(By.CSS_SELECTOR, "#rubric select")]
    for select_id in selects:  # arrow keys pick a score: ArrowDown 3 times from "-" is 3
        _tab_to(chrome, select_id)
        _press(chrome, Keys.ARROW_DOWN, Keys.ARROW_DOWN, Keys.ARROW_DOWN)
    assert [_by_id(chrome, s).get_attribute("value") for s in selects] == ["3"] * len(selects)
    first_radio = chrome.find_element(By.CSS_SELECTOR, "input[name=choice][value=A]")
    for _ in range(5):  # Tab into the radio group lands on its first radio; it has no id, so compare elements
        if chrome.switch_to.active_element == first_radio:
            break
        _press(chrome, Keys.TAB)
    _press(chrome, Keys.SPACE, Keys.ARROW_RIGHT)  # Space picks A, the arrow moves the choice to B
    assert chrome.find_element(By.CSS_SELECTOR, "input[name=choice]:checked").get_attribute("value") == "B"
    _tab_to(chrome, "note")
    _press(chrome, "checked by keyboard")
    _tab_to(chrome, "save")
    _press(chrome, Keys.SPACE)
    _wait(chrome, lambda d: _active_id(d) == "reveal-heading", "focus on the reveal")
    assert _by_id(chrome, "your-choice").text == "Answer B"
    assert {_by_id(chrome, "model-A").text, _by_id(chrome, "model-B").text} == {MODEL_A, MODEL_B}
    screenshot(chrome, screenshots, "review-keyboard-reveal.png")

    _tab_to(chrome, "again")
    _press(chrome, Keys.ENTER)
    _wait(chrome, lambda d: _active_id(d) == "item-heading" and "roaming" in _by_id(d, "question").text,
          "focus on the second item")


def test_a_draft_survives_a_reload_and_saving_clears_it(served, chrome):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    server, tokens = served
    _sign_in_and_take(chrome, server.base, tokens["draft"])
    item_id = _by_id(chrome, "item-id").text
    assert not _by_id(chrome, "draft-note").is_displayed()
    Select(_by_id(chrome, "score-A-tone")).select_by_value("2")
    Select(_by_id(chrome, "score-B-format")).select_by_value("5")
    chrome.find_element(By.CSS_SELECTOR, "input[name=choice][value=tie]").click()
    _by_id(chrome, "note").send_keys("half way")

    old_key = "assay-draft:draft:abandoned-item"  # a draft untouched for 14 days goes at the next page load
    chrome.execute_script("localStorage.setItem(arguments[0], JSON.stringify({kept_at: Date.now() - 15 * 86400000}))", old_key)
    chrome.refresh()  # the token is kept for the tab; the held item comes back with the draft
    _wait(chrome, lambda d: _by_id(d, "item").is_displayed() and _by_id(d, "item-id").text == item_id, "the same item")
    assert _by_id(chrome, "draft-note").is_displayed()
    assert _by_id(chrome, "score-A-tone").get_attribute("value") == "2"
    assert _by_id(chrome, "score-B-format").get_attribute("value") == "5"
    assert _by_id(chrome, "score-A-correctness").get_attribute("value") == ""
    assert chrome.find_element(By.CSS_SELECTOR, "input[name=choice]:checked").get_attribute("value") == "tie"
    assert _by_id(chrome, "note").get_attribute("value") == "half way"
    key = f"assay-draft:draft:rev-draft:{item_id}"
    assert chrome.execute_script("return localStorage.getItem(arguments[0])", key) is not None
    assert chrome.execute_script("return localStorage.getItem(arguments[0])", old_key) is None

    _fill(chrome, choice="tie")
    _by_id(chrome, "save").click()
    _visible(chrome, "reveal")
    assert chrome.execute_script("return localStorage.getItem(arguments[0])", key) is None


def test_a_lost_lease_is_said_in_plain_words_by_the_save_button_and_the_draft_stays(served, chrome):
    import sqlite3

    server, tokens = served
    _sign_in_and_take(chrome, server.base, tokens["lost"])
    item_id = _by_id(chrome, "item-id").text
    _fill(chrome, choice="B")
    with sqlite3.connect(server.db) as conn:  # the lease runs out while the reviewer works
        conn.execute("UPDATE slots SET lease_until = 0 WHERE item_id = ?", (item_id,))
    _by_id(chrome, "save").click()
    _wait(chrome, lambda d: _by_id(d, "form-error").is_displayed(), "the form's error")
    assert _by_id(chrome, "form-error").text.startswith(f"you do not hold the lease on item {item_id}")
    assert _by_id(chrome, "status").get_attribute("class") == "error" and _active_id(chrome) == "save"
    assert _by_id(chrome, "item").is_displayed()  # nothing typed is thrown away
    assert chrome.execute_script("return localStorage.getItem(arguments[0])", f"assay-draft:lost:rev-lost:{item_id}")

    # a note over the server's size limit: its refusal (413) is shown by the note, as the server words it
    chrome.execute_script("const n = document.getElementById('note'); n.value = 'x'.repeat(300000);"
                          "n.dispatchEvent(new Event('input', {bubbles: true}));")
    _by_id(chrome, "save").click()
    _wait(chrome, lambda d: _by_id(d, "note-error").is_displayed(), "the note's error")
    assert _by_id(chrome, "note-error").text.startswith("This is too long to save: the request body is over")
    assert _by_id(chrome, "note").get_attribute("aria-invalid") == "true" and _active_id(chrome) == "note"

    _by_id(chrome, "note").clear()

    store = open_store(server.db)  # the coordinator issues the reviewer a new token: the old one stops working
    store.issue_token("reviewer", "lost", "rev-lost")
    store.engine.dispose()
    _by_id(chrome, "save").click()
    _wait(chrome, lambda d: _by_id(d, "login").is_displayed(), "the sign-in form")
    assert _by_id(chrome, "token-error").text.startswith("Your token is no longer valid")
    assert _active_id(chrome) == "token" and _by_id(chrome, "token").get_attribute("aria-invalid") == "true"


def test_a_wrong_token_is_said_by_the_field_and_a_single_response_has_no_choice(served, chrome):
    from selenium.webdriver.common.by import By

    server, tokens = served
    fresh_page(chrome, server.base + "/")
    _by_id(chrome, "token").send_keys("not-a-token")
    _by_id(chrome, "signin").click()
    _wait(chrome, lambda d: _by_id(d, "token-error").is_displayed(), "the token's error")
    token = _by_id(chrome, "token")
    assert _by_id(chrome, "token-error").text == "That token is not valid. Check it with your coordinator."
    assert token.get_attribute("aria-invalid") == "true" and "token-error" in token.get_attribute("aria-describedby")
    assert _active_id(chrome) == "token"

    token.clear()
    _sign_in_and_take(chrome, server.base, tokens["single"])
    assert not _by_id(chrome, "choice-box").is_displayed() and not _by_id(chrome, "col-B").is_displayed()
    assert _by_id(chrome, "head-A").text == "The answer" and "user: Can I pause my plan?" in _by_id(chrome, "context").text
    assert not _by_id(chrome, "reference").is_displayed()
    for select in chrome.find_elements(By.CSS_SELECTOR, "#rubric select"):
        assert select.get_attribute("id").startswith("score-A-") and select.accessible_name.endswith(" Score")
    _fill_scores(chrome, 5)
    _by_id(chrome, "save").click()
    _visible(chrome, "reveal")
    assert _by_id(chrome, "model-A").text == MODEL_A and not _by_id(chrome, "your-choice").is_displayed()
