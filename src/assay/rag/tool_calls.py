"""Tool calls a system made, in the OpenAI function-calling shape, and how one case's calls are scored.

A reply's calls (``tool_calls`` beside the reply, from a plug-in or an answers-file row)::

    [{"type": "function", "function": {"name": "check_outage", "arguments": "{\\"area\\": \\"Mirpur\\"}"}}]

``arguments`` is a JSON *string* holding an object, as the OpenAI API returns it; an ``id`` key is
allowed and ignored. :func:`parse_tool_calls` refuses anything else with the fix.

Per-case rules (:func:`score_tools`; every value is ``None`` on a case without ``expected_tools``):

* ``tool_selection``: the set of called tool names equals the set of expected ones (calling an
  expected tool twice is still right; ``expected_tools: []`` is right only with no call at all).
* ``tool_args_right`` / ``tool_args_total``: over the expected calls whose tool was called, the
  expected arguments met and their number; when a tool was called more than once, the call meeting
  most of its expected arguments counts. ``None`` when no expected call with arguments was made.
* ``tool_arguments``: ``tool_args_right == tool_args_total`` (``None`` when they are).
* ``tool_permission``: no call to a tool whose permission the user lacks (for a tool with
  ``permission_above``, only a call above its amount needs it), to a tool the catalogue does not
  declare (nobody may call it), or to a forbidden tool.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from assay.data.cases import CaseRecord
from assay.data.tools import ToolCatalogue


@dataclass(frozen=True)
class ToolCall:
    """One call: the tool's name and its decoded arguments (a JSON object)."""

    name: str
    arguments: dict

    def openai(self) -> dict:
        """The call in the OpenAI shape (arguments as canonical JSON text)."""
        return {"type": "function", "function": {"name": self.name, "arguments": json.dumps(
            self.arguments, sort_keys=True, ensure_ascii=False)}}


FIX = ('give tool_calls as [{"type": "function", "function": {"name": "TOOL", "arguments": "{\\"ARG\\": VALUE}"}}], '
       "arguments being a JSON object encoded as a string")


def parse_tool_calls(value: object) -> tuple[ToolCall, ...]:
    """Decode tool calls in the OpenAI shape; ``None`` means no call.

    Raises:
        ValueError: the shape is wrong or an ``arguments`` string is not a JSON object; the message
            names the call's position and the bad value (the fix is :data:`FIX`).

    >>> parse_tool_calls([{"type": "function", "function": {"name": "t", "arguments": '{"a": 1}'}}])
    (ToolCall(name='t', arguments={'a': 1}),)
    >>> parse_tool_calls(None)
    ()
    """
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError(f"tool_calls is {type(value).__name__} {value!r:.80}, not a list")
    calls = []
    for i, item in enumerate(value):
        fn = item.get("function") if isinstance(item, dict) else None
        if (not isinstance(item, dict) or item.get("type") != "function" or not isinstance(fn, dict)
                or set(item) - {"type", "function", "id"} or set(fn) != {"name", "arguments"}):
            raise ValueError(f"tool_calls[{i}] is {item!r:.120}, not the function-calling shape")
        name, arguments = fn["name"], fn["arguments"]
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"tool_calls[{i}].function.name is {name!r}, not a tool name")
        if not isinstance(arguments, str):
            raise ValueError(f"tool_calls[{i}].function.arguments is {type(arguments).__name__} {arguments!r:.80}, "
                             "not a JSON string")
        try:
            decoded = json.loads(arguments)
        except json.JSONDecodeError as error:
            raise ValueError(f"tool_calls[{i}].function.arguments {arguments!r:.80} is not JSON ({error})") from None
        if not isinstance(decoded, dict):
            raise ValueError(f"tool_calls[{i}].function.arguments {arguments!r:.80} is not a JSON object")
        calls.append(ToolCall(name, decoded))
    return tuple(calls)


def calls_text(calls: Sequence[ToolCall]) -> str:
    """The calls as canonical JSON text in the OpenAI shape (``"[]"`` for none): the run table's column."""
    return json.dumps([c.openai() for c in calls], ensure_ascii=False)


@dataclass(frozen=True)
class ToolScore:
    """One case's tool-use columns (rules in the module docstring)."""

    tool_selection: bool | None = None
    tool_arguments: bool | None = None
    tool_args_right: int | None = None
    tool_args_total: int | None = None
    tool_permission: bool | None = None


def score_tools(case: CaseRecord, calls: Sequence[ToolCall], catalogue: ToolCatalogue | None) -> ToolScore:
    """Score one case's calls (see the module docstring); all ``None`` when the case is not a tool case.

    >>> from assay.data.tools import ExpectedCall, ExpectedValue
    >>> c = CaseRecord(id="t", question="q?", task="unanswerable", set="golden", lang="en", expect="abstain",
    ...                why="a tool-call case", expected_tools=[ExpectedCall(name="a", args={"x": ExpectedValue(equals=1)})])
    >>> score_tools(c, [ToolCall("a", {"x": 2})], None)
    ToolScore(tool_selection=True, tool_arguments=False, tool_args_right=0, tool_args_total=1, tool_permission=False)
    """
    if case.expected_tools is None:
        return ToolScore()
    called = {c.name for c in calls}
    selection = called == {e.name for e in case.expected_tools}
    right = total = 0
    for expected in case.expected_tools:
        made = [c for c in calls if c.name == expected.name]
        if made and expected.args:
            right += max(sum(name in c.arguments and value.matches(c.arguments[name])
                             for name, value in expected.args.items()) for c in made)
            total += len(expected.args)
    permission = True
    for call in calls:
        tool = catalogue.tool(call.name) if catalogue is not None else None
        if (tool is None or call.name in case.forbidden_tools
                or (tool.needs_permission(call.arguments) and tool.permission not in case.permissions)):
            permission = False
    return ToolScore(tool_selection=selection, tool_arguments=right == total if total else None,
                     tool_args_right=right if total else None, tool_args_total=total or None, tool_permission=permission)
