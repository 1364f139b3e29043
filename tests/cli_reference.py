"""docs/commands.md's command tables, written from the argparse parsers (run by cog; see docs/development.md).

One row per command: its synopsis (every argument, by the spelling ``assay COMMAND --help`` shows in
its option list) and its description. ``docs/commands.md`` holds the prose and a cog block per group that
calls :func:`table`; ``cog -r -I tests docs/commands.md`` (``make docs``) rewrites the rows and
``tests/test_commands_doc.py`` fails while they differ from what the parsers say.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass

from assay.cli import build_parser


@dataclass(frozen=True)
class Row:
    """One command: ``assay queue create``, its synopsis and what it does (its parser's description, else
    the one-line help its parent lists), blanks folded to single spaces."""

    name: str
    synopsis: str
    help: str


def _argument(action: argparse.Action) -> str:
    """How one argument is spelled in a synopsis: ``NAME``, ``--fill random|hard``, ``[--json]``.

    A positional is its metavar (or its upper-cased name), bracketed when ``nargs`` is ``?`` or ``*``;
    an option is its last (long) spelling with its choices joined by ``|`` or its metavar, bracketed
    unless it is required.
    """
    if not action.option_strings:  # a positional by its metavar, as tests/test_docs.py looks for it
        value = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
        return f"[{value}]" if action.nargs in ("?", "*") else value
    if action.choices is not None:
        value = "|".join(str(c) for c in action.choices)
    elif isinstance(action.metavar, str):
        value = action.metavar
    else:
        value = action.dest.upper()
    spelled = action.option_strings[-1] if action.nargs == 0 else f"{action.option_strings[-1]} {value}"
    return spelled if action.required else f"[{spelled}]"


def _children(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser, str]]:
    """``(name, parser, help)`` of each subcommand of ``parser``, aliases once under their first name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            seen: set[int] = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:
                    seen.add(id(sub))
                    yield name, sub, helps.get(name, "")


def rows(parser: argparse.ArgumentParser | None = None, prefix: str = "assay") -> list[Row]:
    """Every command under ``parser`` (the full ``assay`` parser by default), depth first.

    A command with subcommands is listed as ``assay queue SUBCOMMAND``, then each subcommand.
    """
    found: list[Row] = []
    for name, sub, help_ in _children(parser or build_parser()):
        full = f"{prefix} {name}"
        arguments = [_argument(a) for a in sub._actions if not isinstance(a, argparse._HelpAction)]
        found.append(Row(full, " ".join([full, *arguments]), " ".join((sub.description or help_).split())))
        found += rows(sub, full)
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table(*commands: str) -> str:
    """A Markdown table of ``commands`` (top-level names such as ``"queue"``) and all their subcommands.

    Raises:
        KeyError: a name that is not an ``assay`` command (the doc names a command the parser lost).
    """
    every = rows()
    known = {r.name for r in every}
    lines = ["| command | what it does |", "|---|---|"]
    for command in commands:
        if f"assay {command}" not in known:
            raise KeyError(f"assay {command} is not a command (known: {', '.join(sorted(known))})")
        for r in every:
            if r.name == f"assay {command}" or r.name.startswith(f"assay {command} "):
                lines.append(f"| `{_cell(r.synopsis)}` | {_cell(r.help)} |")
    return "\n".join(lines)


def listed(text: str) -> set[str]:
    """The top-level command names a page's cog blocks pass to :func:`table` (``table("init", "add")``)."""
    import re

    return {name for call in re.findall(r"table\(([^)]*)\)", text) for name in re.findall(r'"([^"]+)"', call)}
