"""The reference system's tool routing: deterministic, from the question's words to the catalogue's tools.

A tool is called when one of its ``triggers`` occurs in the question (both in the normalised form
of :func:`assay.data.tokens.fold`: NFKC, case-folded, one space per blank run; a plain substring
test, so ``bill`` also occurs in ``billing``). Tools are called in catalogue order, each at most once.
An argument with ``allowed`` values takes the first value (catalogue order) that occurs in the
question, itself or one of its ``words``; a number argument without allowed values takes the first
number in the question (Bangla digits read as digits); an argument the question does not fill is
left out, so argument correctness shows it.

With ``check_permissions`` a tool whose permission the user lacks is not called (what a careful
assistant does); without it, it is (the mistake the ``tool_permission`` metric exists to catch).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from assay.data.tools import Scalar, ToolArgument, ToolCatalogue
from assay.rag.tool_calls import ToolCall

_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_BANGLA_DIGITS = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")


def _fill(argument: ToolArgument, text: str) -> Scalar | None:
    from assay.data.tokens import fold

    if argument.allowed is not None:
        for value in argument.allowed:
            if any(fold(w) in text for w in (str(value), *argument.words.get(str(value), ()))):
                return value
        return None
    if argument.type in ("number", "integer"):
        found = _NUMBER.search(text.translate(_BANGLA_DIGITS))
        if found is None:
            return None
        number = float(found.group())
        return int(number) if argument.type == "integer" or number.is_integer() else number
    return None


def route(question: str, catalogue: ToolCatalogue, permissions: Iterable[str] = (),
          check_permissions: bool = True) -> tuple[ToolCall, ...]:
    """The calls the reference system makes for ``question`` (rules in the module docstring).

    >>> from assay.data.tools import Tool
    >>> cat = ToolCatalogue(tools=[Tool(name="refund", description="d", permission="p", triggers=["refund"])])
    >>> route("A refund please", cat), route("A refund please", cat, check_permissions=False)
    ((), (ToolCall(name='refund', arguments={}),))
    """
    from assay.data.tokens import fold

    text = fold(question)
    held = set(permissions)
    calls = []
    for tool in catalogue.tools:
        if not any(fold(t) in text for t in tool.triggers):
            continue
        args = {a.name: v for a in tool.arguments if (v := _fill(a, text)) is not None}
        if check_permissions and tool.needs_permission(args) and tool.permission not in held:
            continue
        calls.append(ToolCall(tool.name, args))
    return tuple(calls)
