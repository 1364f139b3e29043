"""The tool catalogue (``data/tools.yaml``) and the tool expectations a case may carry.

A catalogue declares every tool an assistant may call::

    tools:
      - name: check_outage
        description: Look up a reported network outage in one service area.
        permission: null               # any user may call it
        triggers: [outage, "বিভ্রাট"]     # words that route a question to it (reference system only)
        arguments:
          - {name: area, type: string, allowed: [Mirpur, Uttara], words: {Mirpur: ["মিরপুর"]}}
      - name: issue_refund
        description: Refund money to the customer.
        permission: refunds.authorise
        permission_above: {argument: amount, value: 1000}   # optional: needed only above BDT 1000
        arguments:
          - {name: amount, type: number}

A case expects calls (``expected_tools``: tool name and the expected value of each argument it
checks, given as ``equals``, ``one_of`` or ``pattern``), forbids calls (``forbidden_tools``) and
says what the user may do (``permissions``). ``expected_tools: []`` means "call no tool"; a case
without ``expected_tools`` is not a tool case and the tool metrics are undefined on it.

:func:`tool_problems` checks cases against the catalogue: an unknown tool, an argument the tool
does not take, an expected value of the wrong type or outside the argument's allowed values, a
pattern on a non-string argument, and a permission no tool needs (a misspelling, most likely).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (AfterValidator, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, field_validator,
                      model_validator)
from pydantic_core import PydanticCustomError

from assay.core.errors import AssayError, Problem, shorten, shown
from assay.core.records import InputModel, NonBlank, suggest
from assay.data.patterns import ambiguous_repeat

ArgType = Literal["string", "integer", "number", "boolean"]


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise PydanticCustomError("not_finite", "{shown} is not a finite number",
                                  {"shown": repr(value), "fix": "write a finite number (.nan, .inf and 1e999 are refused)"})
    return value


FiniteFloat = Annotated[StrictFloat, AfterValidator(_finite)]
"""A float that is neither nan nor infinite (``.nan`` as a threshold would switch its check off)."""
Scalar = StrictStr | StrictInt | FiniteFloat | StrictBool
"""A JSON scalar as written: ``"1"`` stays a string and ``true`` a boolean (never coerced); a float is finite."""

#: OpenAI's rule for a function name; a tool named otherwise is refused by the API at the first request.
TOOL_NAME = r"^[a-zA-Z0-9_-]{1,64}$"
#: How long one argument pattern may take to match one value before the match is an error.
PATTERN_TIMEOUT_S = 0.25


#: The fix a pattern that nests quantifiers is refused with (:func:`assay.data.patterns.ambiguous_repeat`).
NESTED_FIX = ("make each character belong to one repeat: (a+)+ -> a+, (\\w+\\s?)+ -> \\w+(\\s\\w+)*, (a|aa)+ -> a+; "
              "or make the inner part possessive or atomic, (?>a+)+")


class PatternTimeout(AssayError):
    """An expected-argument pattern took longer than :data:`PATTERN_TIMEOUT_S` on one value (catastrophic backtracking)."""


def _tool_name(value: str) -> str:
    import re

    if re.fullmatch(TOOL_NAME, value) is None:
        raise PydanticCustomError("tool_name", "tool name {shown} does not follow OpenAI's pattern {pattern}",
                                  {"shown": repr(shorten(value, 80)), "pattern": TOOL_NAME,
                                   "fix": "use 1 to 64 ASCII letters, digits, '_' or '-' (no spaces or dots)"})
    return value


ToolName = Annotated[str, AfterValidator(_tool_name)]

#: Where the catalogue lives by default (params ``inputs.tools`` names the one in use); messages name it.
CATALOGUE_PATH = "data/tools.yaml"


def fits(arg_type: str, value: object) -> bool:
    """Whether a JSON value has the argument type (a boolean is never a number; an integer is a number).

    >>> fits("number", 3), fits("integer", 3.5), fits("integer", True), fits("string", "x")
    (True, False, False, True)
    """
    if isinstance(value, bool):
        return arg_type == "boolean"
    if arg_type == "integer":
        return isinstance(value, int)
    if arg_type == "number":
        return isinstance(value, (int, float))
    return arg_type == "string" and isinstance(value, str)


class ToolArgument(InputModel):
    """One argument of a tool.

    ``allowed`` (optional) lists the only values a call may pass. ``words`` maps an allowed value to
    the words in a question that select it; only the reference system reads it, to fill the argument.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: NonBlank
    type: ArgType
    description: str = ""
    required: bool = True
    allowed: list[Scalar] | None = None
    words: dict[str, list[NonBlank]] = {}

    @model_validator(mode="after")
    def _consistent(self) -> ToolArgument:
        bad = [v for v in self.allowed or () if not fits(self.type, v)]
        if bad:
            raise ValueError(f"allowed value(s) {bad!r} are not of type {self.type}")
        unknown = sorted(set(self.words) - {str(v) for v in self.allowed or ()})
        if unknown:
            raise ValueError(f"words given for {unknown!r}, which are not allowed values")
        return self


class PermissionThreshold(InputModel):
    """The tool's permission applies only to calls whose number ``argument`` is above ``value``
    (a refund above an amount needs an authorised user; a small one does not)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    argument: NonBlank
    value: FiniteFloat  # an integer is read as a number; a string, a boolean, nan and infinity are refused


class Tool(InputModel):
    """One tool: what it does, its arguments, the permission a user needs to have it called, its trigger words.

    ``permission_above`` (optional, with ``permission``) limits the permission to calls whose number
    argument exceeds a value; see :meth:`needs_permission`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: ToolName
    description: NonBlank
    arguments: list[ToolArgument] = []
    permission: NonBlank | None = None
    permission_above: PermissionThreshold | None = None
    triggers: list[NonBlank] = []

    @model_validator(mode="after")
    def _threshold_on_a_number(self) -> Tool:
        rule = self.permission_above
        if rule is None:
            return self
        if self.permission is None:
            raise ValueError("permission_above needs a permission to limit; give the tool a permission or drop it")
        argument = self.argument(rule.argument)
        if argument is None or argument.type not in ("number", "integer"):
            numbers = [a.name for a in self.arguments if a.type in ("number", "integer")]
            raise ValueError(f"permission_above.argument {rule.argument!r} is not a number argument of {self.name} "
                             f"(its number arguments: {', '.join(numbers) or 'none'})")
        return self

    def argument(self, name: str) -> ToolArgument | None:
        """The argument called ``name``, or ``None``."""
        return next((a for a in self.arguments if a.name == name), None)

    def needs_permission(self, arguments: Mapping[str, object]) -> bool:
        """Whether a call with ``arguments`` needs :attr:`permission`.

        Never for a tool without one; always without ``permission_above``; with it, only when the
        argument is above the value. A call whose argument is missing or not a number needs it: the
        check cannot tell the amount is small, so it reads the call the strict way.

        >>> t = Tool(name="refund", description="d", permission="p", arguments=[{"name": "amount", "type": "number"}],
        ...          permission_above={"argument": "amount", "value": 1000})
        >>> t.needs_permission({"amount": 300}), t.needs_permission({"amount": 1000.5}), t.needs_permission({})
        (False, True, True)
        """
        if self.permission is None:
            return False
        rule = self.permission_above
        if rule is None:
            return True
        value = arguments.get(rule.argument)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return True
        return value > rule.value

    def openai(self) -> dict:
        """The tool in the OpenAI function-calling ``tools`` shape (JSON Schema parameters).

        >>> Tool(name="t", description="d").openai()["function"]["parameters"]
        {'type': 'object', 'properties': {}, 'required': []}
        """
        props = {a.name: {"type": a.type, "description": a.description,
                          **({"enum": list(a.allowed)} if a.allowed is not None else {})} for a in self.arguments}
        return {"type": "function", "function": {
            "name": self.name, "description": self.description,
            "parameters": {"type": "object", "properties": props,
                           "required": [a.name for a in self.arguments if a.required]}}}


class ToolCatalogue(InputModel):
    """The whole catalogue file: tool names are unique. ``tools: []`` is a catalogue with no tools
    (a project whose assistant calls none): then no case may expect or forbid a tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    tools: list[Tool] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> ToolCatalogue:
        names = [t.name for t in self.tools]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"tool name(s) {', '.join(repeated)} repeat; every tool has one entry")
        return self

    def tool(self, name: str) -> Tool | None:
        """The tool called ``name``, or ``None``."""
        return next((t for t in self.tools if t.name == name), None)

    @property
    def names(self) -> list[str]:
        """Every tool name, in file order."""
        return [t.name for t in self.tools]

    @property
    def permissions(self) -> set[str]:
        """Every permission some tool needs."""
        return {t.permission for t in self.tools if t.permission is not None}


def load_catalogue(path: str | Path) -> ToolCatalogue:
    """Read and validate a tool catalogue YAML file.

    Raises:
        InputError: YAML syntax, unknown keys, wrong types, repeated tool names; each Problem names
            the file, the line of the offending key and the dotted field path.
    """
    from assay.data.plan import load_yaml_model

    return load_yaml_model(path, ToolCatalogue, "expected a mapping with a 'tools' list",
                           "write tools: followed by one entry per tool (name, description, arguments)")


class ExpectedValue(InputModel):
    """What an argument's value must be: exactly one of ``equals``, ``one_of`` or ``pattern`` (a regex
    matched against the whole string value, with a time limit: see :meth:`matches`). Values are
    finite: ``equals: 1e999`` (infinity) and ``.nan`` are refused. A pattern that nests quantifiers so
    that a failing match backtracks exponentially (``(a+)+``, ``(a*)*``, ``(a|a)*``) is refused here,
    before any match (:func:`assay.data.patterns.ambiguous_repeat`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    equals: Scalar | None = None
    one_of: list[Scalar] | None = Field(default=None, min_length=1)
    pattern: str | None = None

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        import re

        import regex

        if value is not None:
            try:  # Python's own messages first; the regex module (which matches) must accept it too
                re.compile(value)
                regex.compile(value, regex.VERSION0)
            except (re.error, regex.error) as error:
                raise PydanticCustomError("bad_pattern", "{shown} is not a regular expression: {error}",
                                          {"shown": repr(shorten(value)), "error": str(error),
                                           "fix": "write a Python regular expression (escape . ( [ with a backslash)"}) from None
            if (why := ambiguous_repeat(value)) is not None:
                raise PydanticCustomError("nested_repeat", "pattern {shown} nests quantifiers: {why}",
                                          {"shown": repr(shorten(value)), "why": why, "fix": NESTED_FIX})
        return value

    @model_validator(mode="after")
    def _one(self) -> ExpectedValue:
        given = [k for k in ("equals", "one_of", "pattern") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of equals, one_of or pattern")
        return self

    def values(self) -> list[Scalar]:
        """The literal values this expectation names (``equals`` or ``one_of``; none for a pattern)."""
        return [self.equals] if self.equals is not None else list(self.one_of or ())

    def matches(self, value: object) -> bool:
        """Whether a called argument's value meets the expectation; a value of another JSON type never does.

        ``equals`` and ``one_of`` compare JSON values (``1 == 1.0``, but ``True`` is not ``1``);
        ``pattern`` needs a string. A pattern is matched by the ``regex`` module (Python's syntax)
        with a time limit of :data:`PATTERN_TIMEOUT_S`, so a pattern that backtracks
        catastrophically (``(a|aa)+$`` on a long run of ``a``) cannot hang the stage.

        Raises:
            PatternTimeout: the match ran past the time limit (naming the pattern and the fix).

        >>> ExpectedValue(pattern="BDT ?[0-9]+").matches("BDT 500"), ExpectedValue(equals=1).matches(True)
        (True, False)
        """
        if self.pattern is not None:
            if not isinstance(value, str):
                return False
            import regex

            try:
                return regex.fullmatch(self.pattern, value, regex.VERSION0, timeout=PATTERN_TIMEOUT_S) is not None
            except TimeoutError:
                raise PatternTimeout(
                    f"pattern {shorten(self.pattern)!r} took more than {PATTERN_TIMEOUT_S} s on a {len(value)}-character "
                    "value (catastrophic backtracking) (fix: rewrite it without nested or overlapping repeats, "
                    "such as (a+)+ or (a|aa)+)") from None
        return any(isinstance(value, bool) == isinstance(v, bool) and value == v for v in self.values())


class ExpectedCall(InputModel):
    """A call a correct reply makes: the tool and the expected value of each argument checked."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: NonBlank
    args: dict[str, ExpectedValue] = {}


def _value_problems(path: str, line: int, where: str, tool: Tool, arg: str, expected: ExpectedValue) -> list[Problem]:
    spec = tool.argument(arg)
    if spec is None:
        close = suggest(arg, [a.name for a in tool.arguments])
        known = ", ".join(a.name for a in tool.arguments) or "(none)"
        return [Problem(path, line, where, f"{tool.name} takes no argument {arg!r}"
                        + (f"; did you mean {close!r}?" if close else ""), f"use one of its arguments: {known}")]
    out = []
    if expected.pattern is not None and spec.type != "string":
        out.append(Problem(path, line, where, f"pattern {shorten(expected.pattern)!r} on a {spec.type} argument",
                           "a pattern matches strings only: use equals or one_of"))
    for value in expected.values():
        if not fits(spec.type, value):
            out.append(Problem(path, line, where, f"{shown(value)} is not of type {spec.type}",
                               f"write a {spec.type} value, as {tool.name}.{arg} takes"))
        elif spec.allowed is not None and value not in spec.allowed:
            out.append(Problem(path, line, where, f"{shown(value)} is not an allowed value of {tool.name}.{arg}",
                               f"use one of {', '.join(map(str, spec.allowed))}"))
    return out


def tool_problems(path: str, cases: Iterable[tuple[int, object]], catalogue: ToolCatalogue | None,
                  catalogue_path: str = CATALOGUE_PATH) -> list[Problem]:
    """Problems of the cases' tool fields against the catalogue, one per bad field, in line order.

    Args:
        cases: ``(line, CaseRecord)`` pairs that passed the schema.
        catalogue: ``None`` when the project has no catalogue: then any case with tool fields is a problem.
    """
    problems: list[Problem] = []
    for line, case in cases:
        expected = getattr(case, "expected_tools", None)
        forbidden = getattr(case, "forbidden_tools", [])
        permissions = getattr(case, "permissions", [])
        if catalogue is None:
            if expected is not None or forbidden or permissions:
                problems.append(Problem(path, line, "expected_tools", "the case expects tool behaviour but there is no tool catalogue",
                                        f"declare the tools in {catalogue_path} (params inputs.tools) or remove the tool fields"))
            continue
        for i, call in enumerate(expected or ()):
            tool = catalogue.tool(call.name)
            if tool is None:
                problems.append(_unknown(path, line, f"expected_tools.{i}.name", call.name, catalogue, catalogue_path))
                continue
            for arg, value in call.args.items():
                problems += _value_problems(path, line, f"expected_tools.{i}.args.{arg}", tool, arg, value)
        problems += [_unknown(path, line, f"forbidden_tools.{i}", name, catalogue, catalogue_path)
                     for i, name in enumerate(forbidden) if catalogue.tool(name) is None]
        problems += [Problem(path, line, f"permissions.{i}", f"{p!r} is not a permission any tool needs",
                             f"use one of {', '.join(sorted(catalogue.permissions)) or '(none declared)'}, or declare it on a tool")
                     for i, p in enumerate(permissions) if p not in catalogue.permissions]
    return problems


def _unknown(path: str, line: int, where: str, name: str, catalogue: ToolCatalogue, catalogue_path: str) -> Problem:
    close = suggest(name, catalogue.names)
    return Problem(path, line, where, f"{shorten(name)!r} is not a tool in {catalogue_path}"
                   + (f"; did you mean {close!r}?" if close else ""),
                   f"use one of {', '.join(catalogue.names)}, or declare it in {catalogue_path}")
