"""Tool calls: the OpenAI shape and its errors (plug-in and answers file), routing, and per-case scoring."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from assay.core.errors import InputError
from assay.data.cases import CaseRecord
from assay.data.corpus import load_corpus
from assay.data.tools import ToolCatalogue, load_catalogue
from assay.rag.routing import route
from assay.core.plugins import PluginError
from assay.rag.called import CallableSystem
from assay.rag.systems import AnswersFileSystem, ReferenceSystem
from assay.rag.tool_calls import ToolCall, calls_text, parse_tool_calls, score_tools

from conftest import ROOT

TINY = Path(__file__).parent / "fixtures" / "tiny_corpus"
CATALOGUE = load_catalogue(ROOT / "data/tools.yaml")


def call(name: str, **args) -> dict:
    return {"type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def tool_case(id="t1", question="Is there an outage in Mirpur?", **over) -> CaseRecord:
    row = {"id": id, "question": question, "task": "unanswerable", "set": "golden", "lang": "en",
           "expect": "abstain", "why": "a tool case", "expected_tools": [], **over}
    return CaseRecord.model_validate(row)


# --- the shape ----------------------------------------------------------------------------------

def test_the_openai_shape_round_trips():
    calls = parse_tool_calls([{**call("check_outage", area="Mirpur"), "id": "call_1"}])
    assert calls == (ToolCall("check_outage", {"area": "Mirpur"}),)
    assert parse_tool_calls(json.loads(calls_text(calls))) == calls


@pytest.mark.parametrize("value, message", [
    ({"name": "x"}, "tool_calls is dict {'name': 'x'}, not a list"),
    ([{"name": "x", "arguments": "{}"}], "tool_calls[0] is {'name': 'x', 'arguments': '{}'}, not the function-calling shape"),
    ([{"type": "function", "function": {"name": "x", "arguments": {"a": 1}}}],
     "tool_calls[0].function.arguments is dict {'a': 1}, not a JSON string"),
    ([{"type": "function", "function": {"name": "x", "arguments": "{area: 1}"}}],
     "tool_calls[0].function.arguments '{area: 1}' is not JSON (Expecting property name enclosed in double quotes: "
     "line 1 column 2 (char 1))"),
    ([{"type": "function", "function": {"name": "x", "arguments": "[1]"}}],
     "tool_calls[0].function.arguments '[1]' is not a JSON object"),
    ([{"type": "function", "function": {"name": " ", "arguments": "{}"}}], "tool_calls[0].function.name is ' ', not a tool name"),
])
def test_bad_shapes_are_refused_with_position_and_value(value, message):
    with pytest.raises(ValueError) as error:
        parse_tool_calls(value)
    assert str(error.value) == message


def test_an_answers_file_row_with_bad_tool_calls_names_file_line_and_fix(tmp_path):
    path = tmp_path / "answers.jsonl"
    good = {"case_id": "t1", "answer": "", "citations": [], "abstained": True, "retrieved": []}
    path.write_text(json.dumps({**good, "tool_calls": [call("check_outage", area="Mirpur")]}) + "\n"
                    + json.dumps({**good, "case_id": "t2", "tool_calls": [{"type": "function", "function": {
                        "name": "open_ticket", "arguments": "not json"}}]}) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        AnswersFileSystem(path)
    assert str(error.value) == (
        f"{path}:2: field 'tool_calls': tool_calls[0].function.arguments 'not json' is not JSON (Expecting value: line 1 "
        "column 1 (char 0)) (fix: give tool_calls as [{\"type\": \"function\", \"function\": {\"name\": \"TOOL\", "
        "\"arguments\": \"{\\\"ARG\\\": VALUE}\"}}], arguments being a JSON object encoded as a string)")


def test_an_answers_file_carries_tool_calls(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"case_id": "t1", "answer": "", "citations": [], "abstained": True, "retrieved": [],
                                "tool_calls": [call("check_outage", area="Mirpur")]}) + "\n", encoding="utf-8")
    [out] = AnswersFileSystem(path).run([tool_case()], k=3)
    assert out.tool_calls == (ToolCall("check_outage", {"area": "Mirpur"}),)


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    (tmp_path / "tooly_plugin.py").write_text(
        "import json\n"
        "SEEN = []\n"
        "def good(request):\n"
        "    SEEN.append((request.permissions, [t['function']['name'] for t in request.openai_tools()]))\n"
        "    return {'answer': '', 'citations': [], 'abstained': True, 'tool_calls': [\n"
        "        {'type': 'function', 'function': {'name': 'check_outage', 'arguments': json.dumps({'area': 'Uttara'})}}]}\n"
        "def bad(request):\n"
        "    return {'answer': '', 'citations': [], 'abstained': True,\n"
        "            'tool_calls': [{'name': 'check_outage', 'arguments': {'area': 'Uttara'}}]}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("tooly_plugin", None)


def test_a_plugin_gets_the_catalogue_and_the_permissions_and_returns_calls(plugin):
    import tooly_plugin

    system = CallableSystem("tooly_plugin:good", {}, param="rag.versions.mine.callable", tools=CATALOGUE)
    [out] = system.run([tool_case(permissions=["refunds.authorise"])], k=3)
    assert out.tool_calls == (ToolCall("check_outage", {"area": "Uttara"}),)
    assert json.loads(out.reply) == {"answer": "", "citations": [], "abstained": True}  # lifted out of the reply
    assert tooly_plugin.SEEN == [(("refunds.authorise",), ["check_outage", "open_ticket", "issue_refund"])]


def test_a_plugin_with_bad_tool_calls_names_version_case_and_fix(plugin):
    system = CallableSystem("tooly_plugin:bad", {}, param="rag.versions.mine.callable", tools=CATALOGUE)
    with pytest.raises(PluginError) as error:
        system.run([tool_case()], k=3)
    assert str(error.value).startswith(
        "rag.versions.mine.callable: tooly_plugin:bad on case 't1': tool_calls[0] is {'name': 'check_outage', "
        "'arguments': {'area': 'Uttara'}}, not the function-calling shape (fix: give tool_calls as [{\"type\": \"function\"")


# --- routing ------------------------------------------------------------------------------------

@pytest.mark.parametrize("question, permissions, check, expected", [
    ("Is there an outage in Mirpur?", (), True, (ToolCall("check_outage", {"area": "Mirpur"}),)),
    ("মিরপুরে কি বিভ্রাট চলছে?", (), True, (ToolCall("check_outage", {"area": "Mirpur"}),)),
    ("Please open a ticket, my router keeps rebooting", (), True, (ToolCall("open_ticket", {"category": "router"}),)),
    ("I paid twice, refund BDT 1,200 please", (), True, ()),
    ("I paid twice, refund 1200 please", (), False, (ToolCall("issue_refund", {"amount": 1200, "reason": "overpayment"}),)),
    ("আমি দুবার বিল দিয়েছি, ১২০০ টাকা ফেরত দিন", ("refunds.authorise",), True,
     (ToolCall("issue_refund", {"amount": 1200, "reason": "overpayment"}),)),
    ("How much is the late payment fee?", (), True, ()),
])
def test_routing_is_by_trigger_words(question, permissions, check, expected):
    assert route(question, CATALOGUE, permissions, check) == expected


def test_the_reference_system_routes_only_with_a_catalogue():
    corpus = load_corpus(TINY / "corpus")
    case = tool_case()
    assert ReferenceSystem(corpus, "paragraph", 0.0, 0.0).run([case], 3)[0].tool_calls == ()
    assert ReferenceSystem(corpus, "paragraph", 0.0, 0.0, CATALOGUE).run([case], 3)[0].tool_calls == (
        ToolCall("check_outage", {"area": "Mirpur"}),)


# --- per-case scoring (hand-checked) ------------------------------------------------------------

REFUND = {"name": "issue_refund", "args": {"amount": {"equals": 1200}, "reason": {"one_of": ["overpayment"]}}}


@pytest.mark.parametrize("over, calls, expected", [
    # not a tool case: every column undefined, whatever was called
    ({"expected_tools": None}, [ToolCall("check_outage", {})], (None, None, None, None, None)),
    # "call no tool": right only with no call; a permitted stray call is a selection error only
    ({}, [], (True, None, None, None, True)),
    ({}, [ToolCall("check_outage", {"area": "Mirpur"})], (False, None, None, None, True)),
    # the refund without the permission: wrong selection and a permission breach
    ({"forbidden_tools": ["issue_refund"]}, [ToolCall("issue_refund", {"amount": 1200})], (False, None, None, None, False)),
    # authorised refund: 1 of 2 arguments right (reason missing)
    ({"expected_tools": [REFUND], "permissions": ["refunds.authorise"]}, [ToolCall("issue_refund", {"amount": 1200.0})],
     (True, False, 1, 2, True)),
    # the best of two calls of the tool counts; an extra tool breaks selection, not arguments
    ({"expected_tools": [REFUND], "permissions": ["refunds.authorise"]},
     [ToolCall("issue_refund", {"amount": 5}), ToolCall("issue_refund", {"amount": 1200, "reason": "overpayment"}),
      ToolCall("open_ticket", {"category": "billing"})], (False, True, 2, 2, True)),
    # expected tool not called: arguments undefined; an undeclared tool is never permitted
    ({"expected_tools": [REFUND], "permissions": ["refunds.authorise"]}, [ToolCall("wire_money", {})],
     (False, None, None, None, False)),
])
def test_score_tools(over, calls, expected):
    score = score_tools(tool_case(**over), calls, CATALOGUE)
    assert (score.tool_selection, score.tool_arguments, score.tool_args_right, score.tool_args_total,
            score.tool_permission) == expected


def test_a_permission_above_an_amount_applies_to_large_calls_only():
    """A refund tool whose permission applies above BDT 1000: by hand, 300 needs none, 1000 (not above)
    none, 1000.5 and a call without an amount need it; routing with permission checks follows the same rule."""
    from assay.rag.routing import route

    catalogue = ToolCatalogue.model_validate({"tools": [
        {"name": "issue_refund", "description": "refund money", "permission": "refunds.authorise", "triggers": ["refund"],
         "permission_above": {"argument": "amount", "value": 1000}, "arguments": [{"name": "amount", "type": "number"}]}]})
    case_ = tool_case(expected_tools=[{"name": "issue_refund"}])
    permitted = {amount: score_tools(case_, [ToolCall("issue_refund", {} if amount is None else {"amount": amount})],
                                     catalogue).tool_permission for amount in (300, 1000, 1000.5, None, "300")}
    assert permitted == {300: True, 1000: True, 1000.5: False, None: False, "300": False}
    authorised = tool_case(expected_tools=[{"name": "issue_refund"}], permissions=["refunds.authorise"])
    assert score_tools(authorised, [ToolCall("issue_refund", {"amount": 5000})], catalogue).tool_permission is True
    assert route("refund 300 please", catalogue) == (ToolCall("issue_refund", {"amount": 300}),)
    assert route("refund 5000 please", catalogue) == ()
    assert route("refund 5000 please", catalogue, ["refunds.authorise"]) == (ToolCall("issue_refund", {"amount": 5000}),)
