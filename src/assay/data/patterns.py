"""Argument patterns that backtrack exponentially: a repeat (or alternation) inside a repeat that can take the same character.

A case's expected argument may be a ``pattern`` (:class:`assay.data.tools.ExpectedValue`). A
pattern such as ``(a+)+$`` makes a backtracking engine try every way of splitting a run of ``a``
between the inner and the outer repeat before it fails: 2**n ways for n characters, so a
33-character argument hangs the evaluate stage. :func:`ambiguous_repeat` finds such patterns
before anything runs (``assay validate`` refuses them, naming file, line and field); matching
keeps its time limit as well (:data:`assay.data.tools.PATTERN_TIMEOUT_S`).

The check reads Python's own parse of the pattern (``re._parser``), not the pattern's text. Inside
every repeat that can run more than once (the *loop*), each choice the engine can revisit is
checked:

- a repeat of variable length (``+``, ``*``, ``?``, ``{1,3}``): taking one more iteration and
  stopping must not be able to start with the same character. In ``(a+)+`` the inner ``a+`` can
  take another ``a`` or stop and let the loop's next iteration take it; in ``(\\d+,)+`` it cannot
  (a digit or a comma), so that pattern is accepted;
- an alternation: no two branches may start with the same character, counting what follows an
  empty branch (``(a|a)*`` and ``(a|aa)+``, which Python parses as ``a(?:|a)``, are refused;
  ``(ab|ac)+`` becomes ``a[bc]`` and is accepted).

"What follows" a choice inside the loop is the rest of the loop's body and then, wrapping round,
the start of its next iteration; what follows the outermost loop is not counted (an ambiguity there
costs polynomial, not exponential, time). Possessive repeats (``a++``) and atomic groups
(``(?>...)``) never give back what they took, so nothing inside them is a choice. Characters are
compared on a sample: all of ASCII, every character the pattern names (literals and range ends) and
a few non-ASCII letters, digits and spaces, plus one stand-in for "any other character" (in ``.``
and in negated classes). Edge cases: a backreference is taken to match anything; lookarounds are
zero-width and not looked into; a pattern-wide ``(?i)`` compares letters in either case (a ``(?i:...)``
group does not). What it cannot see: an
ambiguity made only of characters outside the sample in two different non-negated classes (the
time limit still stops those).
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]  # Python's own regex parser (3.11+)
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

#: stands for every character outside the sample (matched by ``.`` and by negated classes only)
OTHER = ""
_SAMPLE = [chr(c) for c in range(128)] + list("éßΩЖমা١٣中\u00a0\u2028\u3000")
_CATEGORY = {sre.CATEGORY_DIGIT: re.compile(r"\d"), sre.CATEGORY_WORD: re.compile(r"\w"),
             sre.CATEGORY_SPACE: re.compile(r"\s"), sre.CATEGORY_LINEBREAK: re.compile(r"\n"),
             sre.CATEGORY_NOT_DIGIT: re.compile(r"\D"), sre.CATEGORY_NOT_WORD: re.compile(r"\W"),
             sre.CATEGORY_NOT_SPACE: re.compile(r"\S"), sre.CATEGORY_NOT_LINEBREAK: re.compile(r"[^\n]")}
_NEGATED_CATEGORIES = {sre.CATEGORY_NOT_DIGIT, sre.CATEGORY_NOT_WORD, sre.CATEGORY_NOT_SPACE, sre.CATEGORY_NOT_LINEBREAK}
_REPEATS = {sre.MAX_REPEAT, sre.MIN_REPEAT}
_ZERO_WIDTH = {sre.AT, sre.ASSERT, sre.ASSERT_NOT}


class _Sets:
    """First-character sets and nullability of parsed nodes, over one pattern's sample alphabet."""

    def __init__(self, alphabet: list[str], fold: bool):
        self.alphabet = alphabet
        self.fold = fold
        self.everything = frozenset([*alphabet, OTHER])

    def _chars(self, test: Any) -> frozenset[str]:
        if self.fold:  # a letter stands for its other case too (one-character case forms only: not 'ß' -> 'SS')
            return frozenset(c for c in self.alphabet if any(test(v) for v in {c, c.lower(), c.upper()} if len(v) == 1))
        return frozenset(c for c in self.alphabet if test(c))

    def _class(self, items: list) -> frozenset[str]:
        """The characters of a ``[...]`` class (``IN``)."""
        negate = any(op is sre.NEGATE for op, _ in items)
        chars: set[str] = set()
        other = False
        for op, av in items:
            if op is sre.LITERAL:
                chars |= self._chars(lambda c, av=av: ord(c) == av)
            elif op is sre.RANGE:
                chars |= self._chars(lambda c, av=av: av[0] <= ord(c) <= av[1])
            elif op is sre.CATEGORY:
                chars |= self._chars(lambda c, av=av: _CATEGORY[av].match(c) is not None)
                other = other or av in _NEGATED_CATEGORIES
            elif op is not sre.NEGATE:  # a class item this check does not know: assume it takes anything
                return self.everything
        found = frozenset(chars | ({OTHER} if other else set()))
        return self.everything - found if negate else found

    def node(self, op: Any, av: Any) -> tuple[frozenset[str], bool]:
        """``(first characters, can match empty)`` of one parsed node."""
        if op is sre.LITERAL:
            return self._chars(lambda c: ord(c) == av), False
        if op is sre.NOT_LITERAL:
            return self.everything - self._chars(lambda c: ord(c) == av), False
        if op is sre.ANY:
            return self.everything, False
        if op is sre.IN:
            return self._class(av), False
        if op in _ZERO_WIDTH:
            return frozenset(), True
        if op is sre.SUBPATTERN:
            return self.seq(av[3])
        if op is sre.ATOMIC_GROUP:
            return self.seq(av)
        if op in _REPEATS or op is sre.POSSESSIVE_REPEAT:
            first, empty = self.seq(av[2])
            return first, empty or av[0] == 0
        if op is sre.BRANCH:
            found = [self.seq(branch) for branch in av[1]]
            return frozenset().union(*(f for f, _ in found)), any(e for _, e in found)
        if op is sre.GROUPREF_EXISTS:
            found = [self.seq(part) for part in av[1:] if part is not None]
            return frozenset().union(*(f for f, _ in found)), len(found) < 2 or any(e for _, e in found)
        return self.everything, True  # a backreference, or anything unknown: it may take anything, or nothing

    def seq(self, nodes: Any, start: int = 0, after: frozenset[str] = frozenset()) -> tuple[frozenset[str], bool]:
        """``(first characters, can match empty)`` of ``nodes[start:]`` followed by a part starting with ``after``."""
        first: set[str] = set()
        for op, av in list(nodes)[start:]:
            chars, empty = self.node(op, av)
            first |= chars
            if not empty:
                return frozenset(first), False
        return frozenset(first | after), True


def _shown(chars: frozenset[str]) -> str:
    c = min(chars, key=lambda ch: (ch == OTHER, not ch.isalpha(), not ch.isalnum(), ch))
    return "any other character" if c == OTHER else repr(c)


def _walk(sets: _Sets, nodes: Any, after: frozenset[str], in_loop: bool) -> str | None:
    """The first ambiguous choice in ``nodes`` (followed by ``after``), described; ``None`` when there is none."""
    nodes = list(nodes)
    for k, (op, av) in enumerate(nodes):
        follow = sets.seq(nodes, k + 1, after)[0]
        if op in _REPEATS:
            found = _repeat(sets, av, follow, in_loop)
        elif op is sre.BRANCH:
            found = _branch(sets, av[1], follow, in_loop)
        elif op is sre.SUBPATTERN:
            found = _walk(sets, av[3], follow, in_loop)
        elif op is sre.GROUPREF_EXISTS:
            found = next((f for part in av[1:] if part is not None
                          and (f := _walk(sets, part, follow, in_loop)) is not None), None)
        else:  # atomic groups, possessive repeats and lookarounds: nothing inside is revisited
            found = None
        if found is not None:
            return found
    return None


def _repeat(sets: _Sets, av: Any, follow: frozenset[str], in_loop: bool) -> str | None:
    """A repeat ``(low, high, body)`` followed by ``follow``: ambiguous itself, or holding an ambiguous choice."""
    low, high, body = av
    first = sets.seq(body)[0]
    if in_loop and high > low and (both := first & follow):
        return (f"a repeat inside a repeat can take the same character ({_shown(both)}) as what follows it, "
                "so a failing match tries every way of splitting a run between them")
    loops = high > 1  # inside, what follows the body is its next iteration (and, inside a loop, what follows)
    inner_after = (first | (follow if in_loop else frozenset())) if loops else follow
    return _walk(sets, body, inner_after, in_loop or loops)


def _branch(sets: _Sets, branches: list, follow: frozenset[str], in_loop: bool) -> str | None:
    """An alternation followed by ``follow``: two branches that can start alike inside a loop, or a choice inside one."""
    if in_loop:
        starts = [sets.seq(branch, 0, follow)[0] for branch in branches]
        for i, one in enumerate(starts):
            for other in starts[i + 1:]:
                if both := one & other:
                    return (f"an alternation inside a repeat has two branches that can start with the same "
                            f"character ({_shown(both)}), so a failing match tries every way of choosing")
    return next((f for branch in branches if (f := _walk(sets, branch, follow, in_loop)) is not None), None)


def _named_chars(nodes: Any) -> set[str]:
    """Every character a parsed pattern names: literals and the ends of ranges, at any depth."""
    out: set[str] = set()
    stack = [nodes]
    while stack:
        item = stack.pop()
        if isinstance(item, sre_parse.SubPattern):
            stack.extend(item.data)
        elif isinstance(item, (list, tuple)):
            if len(item) == 2 and item[0] in (sre.LITERAL, sre.NOT_LITERAL) and isinstance(item[1], int):
                out.add(chr(item[1]))
            elif len(item) == 2 and item[0] is sre.RANGE:
                out |= {chr(item[1][0]), chr(item[1][1])}
            else:
                stack.extend(item)
    return out


def ambiguous_repeat(pattern: str) -> str | None:
    """Why ``pattern`` can backtrack exponentially (see the module), or ``None`` when it cannot.

    ``pattern`` must compile with :mod:`re` (the caller checks that first); a pattern Python cannot
    parse gives ``None``.

    >>> ambiguous_repeat("(a+)+$") is not None, ambiguous_repeat("(a|a)*") is not None
    (True, True)
    >>> ambiguous_repeat(r"(\\d+,)+"), ambiguous_repeat("BDT ?[0-9]+"), ambiguous_repeat("(?>a+)+")
    (None, None, None)
    """
    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError):
        return None
    alphabet = sorted(set(_SAMPLE) | _named_chars(parsed))
    sets = _Sets(alphabet, fold=bool(parsed.state.flags & sre.SRE_FLAG_IGNORECASE))
    try:
        return _walk(sets, parsed, frozenset(), in_loop=False)
    except RecursionError:
        return "it nests groups too deeply to be checked"
