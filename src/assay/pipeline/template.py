"""The template language of the generated files: part blocks and named substitutions.

A line ``#@ judge`` (or ``#@ judge,queue``) opens a block kept only when one of those parts is
chosen, ``#@ judge+queue`` one kept only when all of them are; ``#@ end`` closes it; blocks do not
nest. ``@@name@@`` is replaced by ``values[name]``. Everything else is copied as it is, so comments
and layout survive and the output is byte-stable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

SUBSTITUTION = re.compile(r"@@([a-z_]+)@@")


class TemplateError(ValueError):
    """A template is malformed (a block left open, an ``end`` without a block, an unknown name)."""


def render(text: str, parts: Iterable[str], values: Mapping[str, str] | None = None) -> str:
    """Keep the blocks of the chosen ``parts``, drop the markers, fill ``@@name@@`` from ``values``.

    >>> render("a\\n#@ judge\\nb\\n#@ end\\nc @@x@@\\n", ["core"], {"x": "1"})
    'a\\nc 1\\n'
    >>> render("#@ judge+queue\\nboth\\n#@ end\\n", ["judge"]), render("#@ judge+queue\\nboth\\n#@ end\\n", ["judge", "queue"])
    ('', 'both\\n')

    Raises:
        TemplateError: nested or unclosed blocks, or a name ``values`` lacks.
    """
    chosen = set(parts)
    values = values or {}
    out: list[str] = []
    block: set[str] | None = None
    every = False  # the open block needs all its parts (``+``), not one of them (``,``)
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        marker = line.strip()
        if marker.startswith("#@ "):
            word = marker[3:].strip()
            if word == "end":
                if block is None:
                    raise TemplateError(f"line {number}: '#@ end' without an open block")
                block = None
            elif block is not None:
                raise TemplateError(f"line {number}: blocks do not nest")
            else:
                every = "+" in word
                block = {w.strip() for w in re.split(r"[,+]", word)}
            continue
        if block is not None and not (block <= chosen if every else block & chosen):
            continue

        def fill(match: re.Match[str], number: int = number) -> str:
            if match.group(1) not in values:
                raise TemplateError(f"line {number}: no value for @@{match.group(1)}@@")
            return values[match.group(1)]

        out.append(SUBSTITUTION.sub(fill, line))
    if block is not None:
        raise TemplateError("a '#@' block is not closed")
    return "".join(out)
