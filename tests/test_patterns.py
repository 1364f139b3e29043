"""Argument patterns that nest quantifiers are refused before anything matches (issue 31): the check reads
Python's own parse of the pattern (`re._parser`), and refuses a choice inside a repeat that can take the
same character two ways. Each refused pattern below is exponential for a backtracking engine on a run of
the named character followed by a character that fails the match (the number of ways to split the run
between the choices doubles, or grows as Fibonacci, with each character); each accepted one has one way."""

from __future__ import annotations

import re

import pytest

from assay.data.patterns import ambiguous_repeat
from assay.data.tools import NESTED_FIX, ExpectedValue

REFUSED = {
    "(a+)+$": "'a'",          # the run of a split between inner and outer repeat: 2^(n-1) ways
    "(a*)*": "'a'",
    "(a|a)*": "'a'",          # parsed as a(?:|): two empty branches, both followed by the next a
    "(a|aa)+$": "'a'",        # Fibonacci many ways
    r"(\w+\s?)+$": "'A'",     # the classic: \s? may be empty, so \w+ meets \w+
    "(?:a|b+)+": "'b'",
    "(x+x+)+y": "'x'",
    "(a+a)+": "'a'",
    "(.*a){2,}": "'a'",
    "((ab)*)+": "'a'",
    "(a?)+": "'a'",
    r"([a-z]+\d*)+$": "'a'",
    r"(\d+|\d{2})+": "'0'",   # two branches both start with a digit
    "(?i)(a+A)+": "'A'",      # case-folded: A and a are one character
}
ACCEPTED = [
    r"(\d+,)+",               # every iteration ends at a comma: one way to split
    "BDT ?[0-9]+",
    "(?>a+)+", "a++",         # atomic and possessive: nothing is given back
    "(ab|ac)+",               # parsed as a[bc]
    "(x|y|z)+",
    r"\w+(\s\w+)*",           # the fix NESTED_FIX names for (\w+\s?)+
    r"[A-Z]{3}-\d+",
    r"([a-z]+\.)+[a-z]+",
    "(ab?)+",                 # b? may stop or take b, and the next iteration starts with a
    r"^\+?880\d{10}$",
    "(Mirpur|Uttara)",
    r"(\d{3})+",              # fixed length inside: one way
    r"(x\d+)+\d",             # the ambiguity is after the loop, not inside it: polynomial, not exponential
    "(?i)(A|a)+",             # folded into one class [Aa]
]


@pytest.mark.parametrize("pattern", sorted(REFUSED))
def test_a_choice_inside_a_repeat_that_can_take_the_same_character_is_named(pattern):
    why = ambiguous_repeat(pattern)
    assert why is not None and f"({REFUSED[pattern]})" in why, why
    with pytest.raises(ValueError, match="nests quantifiers") as caught:
        ExpectedValue(pattern=pattern)
    assert caught.value.errors()[0]["ctx"]["fix"] == NESTED_FIX


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_an_unambiguous_pattern_is_accepted_and_matches_as_re_does(pattern):
    assert ambiguous_repeat(pattern) is None
    expected = ExpectedValue(pattern=pattern)
    for value in ("aaa", "1,22,333,", "BDT 500", "ab ab", "ABC-12", "x12", "Mirpur", "+8801712345678", "www.a.bd"):
        assert expected.matches(value) == (re.fullmatch(pattern, value) is not None), value


def test_the_fix_the_message_gives_is_itself_accepted():
    for fixed in ("a+", r"\w+(\s\w+)*", "(?>a+)+"):
        assert fixed in NESTED_FIX.replace("\\\\", "\\") and ambiguous_repeat(fixed) is None


def test_only_what_follows_inside_the_loop_counts_and_characters_the_pattern_names_are_compared():
    # non-ASCII characters named by the pattern (Bangla) are in the sample: (ম+)+ is refused, (ম+র)+ is not,
    # and neither is (মি+)+: the vowel sign ি repeats, and each iteration starts with the consonant ম
    assert ambiguous_repeat("(ম+)+") is not None and ambiguous_repeat("(ম+র)+") is None
    assert ambiguous_repeat("(মি+)+") is None
    # a range named only by its ends outside the sample still meets a class holding those ends
    assert ambiguous_repeat("([\u0980-\u09ff]+[\u09e6-\u09ef]?)+") is not None
    # a backreference is taken to match anything, a lookahead to take nothing
    assert ambiguous_repeat(r"(a)(b+\1)+") is not None and ambiguous_repeat(r"(?=a)(a,)+") is None


def test_a_refused_pattern_in_a_case_names_file_line_and_field():
    from assay.core.errors import InputError
    from assay.data.cases import parse_cases
    from conftest import case
    from test_tools import CATALOGUE

    with pytest.raises(InputError) as caught:
        parse_cases("cases.jsonl", [(7, case("t1", expected_tools=[
            {"name": "check_outage", "args": {"area": {"pattern": "(a+)+$"}}}]))], tools=CATALOGUE)
    (line,) = str(caught.value).splitlines()
    assert line.startswith("cases.jsonl:7: field 'expected_tools.0.args.area.pattern': pattern '(a+)+$' nests "
                           "quantifiers: a repeat inside a repeat can take the same character ('a')"), line
    assert line.endswith(f"(fix: {NESTED_FIX})"), line
