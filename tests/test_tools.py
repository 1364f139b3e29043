"""The tool catalogue (assay.data.tools) and the tool fields of cases: every error names file:line, field, value, fix."""

import pytest

from assay.core.errors import InputError
from assay.data.cases import CaseRecord, dataset_hash, parse_cases
from assay.data.tools import ExpectedValue, Tool, ToolCatalogue, load_catalogue

from conftest import ROOT, case

CATALOGUE = ToolCatalogue.model_validate({"tools": [
    {"name": "check_outage", "description": "look up an outage", "triggers": ["outage"],
     "arguments": [{"name": "area", "type": "string", "allowed": ["Mirpur", "Uttara"]}]},
    {"name": "issue_refund", "description": "refund money", "permission": "refunds.authorise",
     "arguments": [{"name": "amount", "type": "number"}, {"name": "reason", "type": "string"}]},
]})


def problems(**tool_fields) -> list[str]:
    with pytest.raises(InputError) as err:
        parse_cases("cases.jsonl", [(3, case("t1", **tool_fields))], tools=CATALOGUE)
    return str(err.value).splitlines()


def test_the_demo_catalogue_loads():
    catalogue = load_catalogue(ROOT / "data/tools.yaml")
    assert catalogue.names == ["check_outage", "open_ticket", "issue_refund"]
    assert catalogue.permissions == {"refunds.authorise"}


def test_a_valid_tool_case_parses():
    [c] = parse_cases("cases.jsonl", [(1, case("t1", expected_tools=[
        {"name": "issue_refund", "args": {"amount": {"equals": 500}, "reason": {"pattern": "over.*"}}}],
        forbidden_tools=["check_outage"], permissions=["refunds.authorise"]))], tools=CATALOGUE)
    assert c.tool_case and c.expected_tools[0].args["amount"].equals == 500


def test_an_unknown_tool_is_named_with_the_closest_one():
    assert problems(expected_tools=[{"name": "check_outages"}]) == [
        "cases.jsonl:3: field 'expected_tools.0.name': 'check_outages' is not a tool in data/tools.yaml; did you mean "
        "'check_outage'? (fix: use one of check_outage, issue_refund, or declare it in data/tools.yaml)"]


def test_an_unknown_forbidden_tool():
    assert problems(expected_tools=[], forbidden_tools=["refund"]) == [
        "cases.jsonl:3: field 'forbidden_tools.0': 'refund' is not a tool in data/tools.yaml; did you mean 'issue_refund'? "
        "(fix: use one of check_outage, issue_refund, or declare it in data/tools.yaml)"]


def test_an_argument_the_tool_does_not_take():
    assert problems(expected_tools=[{"name": "check_outage", "args": {"areas": {"equals": "Mirpur"}}}]) == [
        "cases.jsonl:3: field 'expected_tools.0.args.areas': check_outage takes no argument 'areas'; "
        "did you mean 'area'? (fix: use one of its arguments: area)"]


def test_an_expected_value_of_the_wrong_type():
    assert problems(expected_tools=[{"name": "issue_refund", "args": {"amount": {"one_of": [500, "500"]}}}]) == [
        "cases.jsonl:3: field 'expected_tools.0.args.amount': '500' is not of type number "
        "(fix: write a number value, as issue_refund.amount takes)"]


def test_an_expected_value_outside_the_allowed_ones():
    assert problems(expected_tools=[{"name": "check_outage", "args": {"area": {"equals": "Banani"}}}]) == [
        "cases.jsonl:3: field 'expected_tools.0.args.area': 'Banani' is not an allowed value of check_outage.area "
        "(fix: use one of Mirpur, Uttara)"]


def test_a_pattern_on_a_number_argument():
    assert problems(expected_tools=[{"name": "issue_refund", "args": {"amount": {"pattern": "5.*"}}}]) == [
        "cases.jsonl:3: field 'expected_tools.0.args.amount': pattern '5.*' on a number argument "
        "(fix: a pattern matches strings only: use equals or one_of)"]


def test_a_bad_pattern_is_a_field_error():
    [line] = problems(expected_tools=[{"name": "issue_refund", "args": {"reason": {"pattern": "over(pay"}}}])
    assert line.startswith("cases.jsonl:3: field 'expected_tools.0.args.reason.pattern': 'over(pay' is not a regular "
                           "expression: missing ), unterminated subpattern")
    assert line.endswith("(fix: write a Python regular expression (escape . ( [ with a backslash))")


def test_two_kinds_of_expectation_at_once_are_refused():
    [line] = problems(expected_tools=[{"name": "issue_refund", "args": {"reason": {"equals": "x", "pattern": "x"}}}])
    assert "field 'expected_tools.0.args.reason'" in line and "give exactly one of equals, one_of or pattern" in line


def test_an_unknown_permission_and_permissions_without_expected_tools():
    assert problems(expected_tools=[], permissions=["refund.authorise"]) == [
        "cases.jsonl:3: field 'permissions.0': 'refund.authorise' is not a permission any tool needs "
        "(fix: use one of refunds.authorise, or declare it on a tool)"]
    [line] = problems(permissions=["refunds.authorise"])
    assert "forbidden_tools and permissions go with expected_tools" in line


def test_tool_fields_without_a_catalogue_are_refused():
    with pytest.raises(InputError) as err:
        parse_cases("cases.jsonl", [(2, case("t1", expected_tools=[]))], check_tools=True)
    assert str(err.value) == ("cases.jsonl:2: field 'expected_tools': the case expects tool behaviour but there is no "
                              "tool catalogue (fix: declare the tools in data/tools.yaml (params inputs.tools) or "
                              "remove the tool fields)")
    # a reader that does not use tool fields (the queue, input hashes) needs no catalogue
    assert parse_cases("cases.jsonl", [(2, case("t1", expected_tools=[]))])[0].tool_case


def test_catalogue_errors_name_the_yaml_line(tmp_path):
    path = tmp_path / "tools.yaml"
    path.write_text("tools:\n  - name: a\n    description: d\n    arguments:\n      - {name: x, type: text}\n",
                    encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_catalogue(path)
    assert str(err.value) == (f"{path}:5: field 'tools.0.arguments.0.type': 'text' is not one of string, integer, "
                              "number, boolean (fix: use one of string, integer, number, boolean)")


def test_repeated_tool_names_and_bad_allowed_values_are_refused():
    with pytest.raises(ValueError, match="tool name\\(s\\) a repeat"):
        ToolCatalogue.model_validate({"tools": [{"name": "a", "description": "d"}, {"name": "a", "description": "e"}]})
    with pytest.raises(ValueError, match="are not of type integer"):
        Tool.model_validate({"name": "a", "description": "d", "arguments": [{"name": "n", "type": "integer", "allowed": ["1"]}]})


@pytest.mark.parametrize("expected, value, hit", [
    ({"equals": 500}, 500.0, True), ({"equals": 1}, True, False), ({"one_of": ["a", "b"]}, "b", True),
    ({"pattern": "TKT-[0-9]+"}, "TKT-12", True), ({"pattern": "TKT-[0-9]+"}, "TKT-12x", False),
    ({"pattern": "1"}, 1, False)])
def test_expected_value_matching(expected, value, hit):
    assert ExpectedValue.model_validate(expected).matches(value) is hit


def test_a_case_without_tool_fields_hashes_as_before():
    # the digest of a case without tool fields leaves them out, so recorded dataset hashes stay valid
    import hashlib
    import json

    c = CaseRecord.model_validate(case("g01"))
    old = c.model_dump(exclude={"expected_tools", "forbidden_tools", "permissions"})
    digest = hashlib.sha256(json.dumps(old, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()).digest()
    assert dataset_hash([c]) == hashlib.sha256(digest).hexdigest()
    assert dataset_hash([c.model_copy(update={"expected_tools": []})]) != dataset_hash([c])


def test_the_openai_shape_of_a_tool():
    assert CATALOGUE.tools[0].openai() == {"type": "function", "function": {
        "name": "check_outage", "description": "look up an outage",
        "parameters": {"type": "object", "properties": {"area": {"type": "string", "description": "", "enum": ["Mirpur", "Uttara"]}},
                       "required": ["area"]}}}


def test_the_derived_cases_table_keeps_tool_fields_and_the_hash(tmp_path):
    import pyarrow.parquet as pq

    from assay.data.cases import cases_table, read_cases_table

    cases = parse_cases("cases.jsonl", [(1, case("t1", expected_tools=[
        {"name": "issue_refund", "args": {"amount": {"one_of": [500, 1000]}}}], permissions=["refunds.authorise"])),
        (2, case("g01"))], tools=CATALOGUE)
    pq.write_table(cases_table(cases), tmp_path / "cases.parquet")
    back = read_cases_table(tmp_path / "cases.parquet")
    assert back == sorted(cases, key=lambda c: c.id) and dataset_hash(back) == dataset_hash(cases)


def test_coverage_counts_tool_cases_by_set_and_language():
    from assay.data.cases import coverage, coverage_markdown, dataset_metrics

    cases = parse_cases("cases.jsonl", [(1, case("t1", expected_tools=[])), (2, case("t2", lang="bn", expected_tools=[])),
                                        (3, case("g01"))], tools=CATALOGUE)
    cov = coverage(cases)
    assert cov["tools"] == {"set": {"golden": 2, "adversarial": 0, "production_like": 0}, "lang": {"en": 1, "bn": 1}}
    assert dataset_metrics(cases, 1)[0].tool_cases == 2
    assert ("Tool cases (2): golden 2, adversarial 0, production_like 0, en 1, bn 1 (a set or language without a "
            "tool case leaves tool use unmeasured there)") in coverage_markdown(cov, "0" * 64, 3)


def test_the_demo_has_tool_cases_in_every_set_and_language():
    from assay.data.cases import coverage, load_cases

    tools = coverage(load_cases(ROOT / "data/cases.jsonl", tools=load_catalogue(ROOT / "data/tools.yaml")))["tools"]
    assert all(tools["set"].values()) and all(tools["lang"].values())


def test_a_permission_threshold_needs_a_permission_and_a_number_argument(tmp_path):
    base = {"name": "r", "description": "d", "arguments": [{"name": "amount", "type": "number"}, {"name": "why", "type": "string"}]}
    with pytest.raises(ValueError, match="permission_above needs a permission"):
        Tool.model_validate({**base, "permission_above": {"argument": "amount", "value": 10}})
    with pytest.raises(ValueError, match="'why' is not a number argument of r \\(its number arguments: amount\\)"):
        Tool.model_validate({**base, "permission": "p", "permission_above": {"argument": "why", "value": 10}})
    path = tmp_path / "tools.yaml"
    path.write_text("tools:\n  - name: r\n    description: d\n    permission: p\n"
                    "    permission_above: {argument: amount, value: ten}\n"
                    "    arguments:\n      - {name: amount, type: number}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_catalogue(path)
    assert str(err.value).startswith(f"{path}:5: field 'tools.0.permission_above.value': 'ten' is not valid")


# ---- hostile input (issue 31): each was accepted silently, or hung, before ----------------------------


def test_a_case_cannot_expect_and_forbid_the_same_tool():
    assert problems(expected_tools=[{"name": "check_outage"}], forbidden_tools=["check_outage"]) == [
        "cases.jsonl:3: tool(s) check_outage are both expected and forbidden: no reply can pass; keep each tool in one "
        "of expected_tools and forbidden_tools (fix: make the row consistent as described)"]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_permission_above_must_be_finite(value):
    # nan compares false with every amount, so `.nan` switched the permission check off
    with pytest.raises(ValueError, match="is not a finite number"):
        Tool(name="issue_refund", description="d", permission="p", arguments=[{"name": "amount", "type": "number"}],
             permission_above={"argument": "amount", "value": value})


def test_permission_above_nan_in_the_catalogue_file_is_refused_at_its_line(tmp_path):
    path = tmp_path / "tools.yaml"
    path.write_text("tools:\n  - name: issue_refund\n    description: refund money\n    permission: refunds.authorise\n"
                    "    permission_above: {argument: amount, value: .nan}\n    arguments:\n"
                    "      - {name: amount, type: number}\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_catalogue(path)
    [problem] = info.value.problems
    assert (problem.line, problem.field) == (5, "tools.0.permission_above.value") and "not a finite number" in problem.message


@pytest.mark.parametrize("name", ["check outage", "check.outage", "x" * 65, "বিভ্রাট", "a/b"])
def test_tool_names_follow_openais_pattern(name):
    with pytest.raises(ValueError, match=r"does not follow OpenAI's pattern \^\[a-zA-Z0-9_-\]\{1,64\}\$"):
        Tool(name=name, description="d")
    Tool(name="a" * 64, description="d")  # the longest allowed name
    Tool(name="open-ticket_2", description="d")


def test_an_infinite_expected_value_is_refused():
    # JSON 1e999 reads as infinity: refused while the line is read, with the number cut short
    from assay.core.io import parse_json_line

    value, why = parse_json_line('{"equals": 1e999}')
    assert value is None and why == ("the number 1e999 is too large for a float (it would read as infinity): "
                                     "write a finite number")
    with pytest.raises(ValueError, match="not a finite number"):
        ExpectedValue(equals=float("inf"))


def test_a_catastrophic_pattern_ends_at_once_or_at_the_time_limit():
    from assay.data.tools import PatternTimeout

    # validation refuses these patterns (test_nested_quantifiers_are_refused_at_validation); the time limit is the
    # backstop for one that reaches the matcher anyway, so they are built here without validation
    unchecked = ExpectedValue.model_construct
    # (a+)+$ on 33 characters hung the evaluate stage (2^33 steps with re); the regex module sees through it
    assert unchecked(pattern="(a+)+$").matches("a" * 33 + "!") is False
    # (a|aa)+$ on 201 characters needs about fib(200) = 2.8e41 steps, so it always meets the time limit,
    # and ends as one clean error naming the fix
    with pytest.raises(PatternTimeout, match=r"catastrophic backtracking\) \(fix: rewrite it without nested"):
        unchecked(pattern="(a|aa)+$").matches("a" * 200 + "!")
    assert unchecked(pattern="(a|aa)+$").matches("aaa") is True


def test_a_long_bad_value_is_quoted_short():
    lines = problems(expected_tools=[{"name": "check_outage", "args": {"area": {"equals": "M" * 1_000_000}}}])
    assert len(lines) == 1 and len(lines[0]) < 1200 and "more characters)" in lines[0]
