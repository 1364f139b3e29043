"""User text in every Markdown report is inert: no raw HTML, no broken table, no injected block.

The review report's own escaping is tested in test_bad_input; here the other pages that carry user
text (plan.md, coverage.md, calibration.md, summary.md, sensitivity.md, relevance/summary.md,
relevance/verdict.md) and the helpers they share (assay.core.fmt).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.fmt import md_code, md_paragraphs, md_text, md_words
from assay.data.cases import SETS, TASKS, coverage_markdown
from assay.data.plan import load_plan, plan_markdown
from assay.release.checks import Check
from assay.release.summary import summary_markdown

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = "<script>alert(1)</script> | **x** [a](javascript:b) `c`"


def _table_rows_have_columns(page: str, header: str) -> None:
    """Every row of the table whose header line is ``header`` has the header's number of cells."""
    lines = page.splitlines()
    start = lines.index(header)
    width = header.count("|")
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        assert line.replace("\\|", "").count("|") == width, line


@pytest.mark.parametrize("helper", [md_text, md_words])
def test_helpers_make_html_and_table_marks_inert(helper):
    shown = helper(HOSTILE)
    assert "<script" not in shown and "&lt;script>" in shown
    assert "\\|" in shown and shown.replace("\\|", "").count("|") == 0
    assert "\\[a\\](javascript:b)" in shown and "\\*\\*x\\*\\*" in shown and "\\`c\\`" in shown


def test_md_words_keeps_what_is_already_inert():
    # generated report text as the demo writes it: byte-identical after escaping
    for text in ("answer_correct 0.48 misses >= 0.85 (n 54)", "kappa lower bound 0.133 < 0.6", "1 & 2"):
        assert md_words(text) == text
    assert md_words("a <b> &amp; R&D _x_") == "a &lt;b> &amp;amp; R&amp;D \\_x\\_"


def test_md_paragraphs_keeps_paragraphs_and_blocks_no_block_marks():
    text = "First line\nsame paragraph.\n\n# not a heading\n\n> not a quote\n\n- not a list\n\n3. not a list <img src=x>"
    assert md_paragraphs(text) == ("First line same paragraph.\n\n\\# not a heading\n\n\\> not a quote\n\n"
                                   "\\- not a list\n\n3\\. not a list &lt;img src=x>")
    assert md_paragraphs(None) == "" and md_paragraphs("  \n\n ") == ""


def test_md_code_cannot_be_closed_from_inside():
    assert md_code("data/x.jsonl") == "`data/x.jsonl`"
    assert md_code("a``b<script>") == "``` a``b<script> ```"
    assert md_code(None) == "``"


def test_plan_page_escapes_failure_names_and_prose():
    plan = load_plan(ROOT / "data/plan.yaml")
    failure = plan.failures[0].model_copy(update={"name": HOSTILE, "harmed": "a | b"})
    plan = plan.model_copy(update={"failures": [failure, *plan.failures[1:]],
                                   "task": "# Heading?\n\n<script>x</script>", "release_rule": "| a | b |"})
    page = plan_markdown(plan, [f"failure {HOSTILE!r} is unguarded"])
    assert "<script" not in page and "\n# Heading" not in page
    _table_rows_have_columns(page, "| cost | failure | harmed | metric |")
    assert "\n\\# Heading?\n\n&lt;script>x&lt;/script>\n" in page
    assert "- failure '&lt;script>" in page


def test_plan_page_of_the_demo_is_the_committed_one():
    plan = load_plan(ROOT / "data/plan.yaml")
    committed = (ROOT / "reports/plan.md").read_text(encoding="utf-8")
    assert plan_markdown(plan, []) == committed


def test_coverage_page_escapes_language_names():
    cov = {"matrix": {t: dict.fromkeys(SETS, 0) for t in TASKS}, "gaps": [], "empty": [],
           "by_lang": {"<script>": 2, "en|x": 1}}
    page = coverage_markdown(cov, "0" * 64, 3)
    assert "<script" not in page and "Languages: &lt;script> 2, en\\|x 1" in page


def test_summary_check_table_escapes_detail():
    from assay.release.gather import gather

    _, ev = gather(ROOT)
    checks = [Check(name="judge | calibration", status="fail", detail=HOSTILE)]
    page = summary_markdown(ev, checks)
    assert "<script" not in page
    _table_rows_have_columns(page, "| check | status | detail |")


GATE_TEXTS = [  # the red team's failure names (issue 31), and what a terminal or a bidi trick would add
    "FAIL pass_rate\n```\n# Forged heading\n![x](https://example.invalid/pixel.png)\n```",
    "FAIL `````` five-tick name ``` three ``````` seven\n## heading",
    "FAIL \x1b[2K\rPASS every check\x00 \u202etxt.exe\u2066",
    "ok\r\n", "", "~~~\n    ```\n   ````\n",
]


@pytest.mark.parametrize("text", GATE_TEXTS)
def test_the_gates_text_in_the_job_summary_is_one_code_block_nothing_inside_can_close(text):
    from markdown_it import MarkdownIt  # CommonMark, as GitHub renders it: an independent reader

    from assay.core.fmt import md_code_block

    block = md_code_block(text)
    tokens = MarkdownIt("commonmark").parse(block + "\n# after\n")
    assert [t.type for t in tokens] == ["fence", "heading_open", "inline", "heading_close"]
    shown = tokens[0].content
    assert not any(c in shown for c in "\x00\x1b\r\u202e\u2066")
    # every line survives, with the control characters written as escapes a reader can see
    expected = text.replace("\r\n", "\n").replace("\x1b", "\\x1b").replace("\r", "\\r").replace("\x00", "\\x00")
    expected = expected.replace("\u202e", "\\u202e").replace("\u2066", "\\u2066")
    assert shown == (expected if expected.endswith("\n") or not expected else expected + "\n")


def test_a_plain_triple_fence_is_what_the_red_team_closed():
    from markdown_it import MarkdownIt

    naive = "```\n" + GATE_TEXTS[0] + "\n```\n"  # the workflow's echo '```' / cat / echo '```'
    assert "heading_open" in [t.type for t in MarkdownIt("commonmark").parse(naive)]
