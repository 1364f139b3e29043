"""docs/commands.md's command tables are what the parsers say, as sqlite-utils checks its CLI reference with cog."""

from __future__ import annotations

import argparse

import pytest
from cogapp import Cog

import cli_reference
from assay.cli import COMMANDS
from conftest import ROOT

PAGE = ROOT / "docs" / "commands.md"
FIX = "run `make docs` (cog -r -I tests docs/commands.md) and commit docs/commands.md"


def test_the_command_tables_are_what_the_parsers_say():
    text = PAGE.read_text(encoding="utf-8")
    assert "[[[cog" in text and "[[[end]]]" in text
    regenerated = Cog().process_string(text, fname=str(PAGE))
    assert regenerated == text, f"docs/commands.md differs from what the parsers say: {FIX}"


def test_every_command_is_in_one_table():
    text = PAGE.read_text(encoding="utf-8")
    tops = {name.replace("_", "-") for name in COMMANDS}
    calls = [name for line in text.splitlines() if "cli_reference.table(" in line for name in cli_reference.listed(line)]
    assert sorted(calls) == sorted(tops), f"docs/commands.md: list each of {sorted(tops)} in exactly one table() call"


def _toy() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assay")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    queue = sub.add_parser("queue", help="review  queues")
    inner = queue.add_subparsers(dest="what", metavar="SUBCOMMAND")
    create = inner.add_parser("create", help="create a queue", description="Copy items into a new queue.")
    create.add_argument("name", metavar="NAME", help="its name")
    create.add_argument("--fill", choices=["random", "hard"], required=True, help="sample")
    create.add_argument("-n", "--n", type=int, metavar="N", help="how many")
    create.add_argument("--json", action="store_true", help="as JSON")
    create.add_argument("extra", nargs="?", help="optional positional")
    create.add_argument("kind", choices=["a", "b"], help="a positional with choices")
    sub.add_parser("study", aliases=["relevance"], help="the | study")
    return parser


def test_rows_spell_every_argument_as_its_help_lists_it_and_aliases_once():
    rows = cli_reference.rows(_toy())
    assert [r.name for r in rows] == ["assay queue", "assay queue create", "assay study"]
    create = rows[1]
    # positional by metavar; a required option unbracketed, its choices joined by |; the long spelling of
    # an option with two; a flag without a value; an optional positional bracketed
    assert create.synopsis == "assay queue create NAME --fill random|hard [--n N] [--json] [EXTRA] KIND"
    assert rows[0].synopsis == "assay queue SUBCOMMAND" and rows[0].help == "review queues"  # blanks folded
    assert create.help == "Copy items into a new queue."  # the description, when the parser has one


def test_a_table_escapes_pipes_and_refuses_a_command_the_parser_lost(monkeypatch):
    monkeypatch.setattr(cli_reference, "build_parser", _toy)
    table = cli_reference.table("queue")
    assert "| `assay queue create NAME --fill random\\|hard [--n N] [--json] [EXTRA] KIND` | Copy items into a new queue. |" \
        in table.splitlines()
    assert cli_reference.table("study").splitlines()[2:] == ["| `assay study` | the \\| study |"]  # aliases once
    with pytest.raises(KeyError, match=r"assay queues is not a command \(known: assay queue, assay queue create, assay study\)"):
        cli_reference.table("queues")
