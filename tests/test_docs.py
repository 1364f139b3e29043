"""The docs are tested like code: README.md and docs/*.md.

- Every `assay` subcommand and argument has help text and is documented (the model is
  sqlite-utils' docs test): a subcommand's full spelling (`assay queue create`) appears in the docs,
  and each of its arguments (an option string such as `--lease-seconds`, or a positional's
  metavar such as `NAME`) appears on a line that spells that subcommand.
- Every relative link resolves, to a file and, for `page.md#anchor`, to a heading of that page.
- Every ```console block is run: a line `$ assay ...` is a command and the lines after it, up to
  the next `$ ` line or the end of the block, are its exact output (stdout, then stderr), run in
  this process from the repository root. Console blocks hold cheap, deterministic commands on
  committed files only; expensive ones (`dvc repro`, `make exp`) go in sh or text blocks.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from assay.cli import build_parser, main
from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# pages another change adds; a link to one is accepted while the page does not exist yet
PENDING: set[Path] = set()


@dataclass(frozen=True)
class Argument:
    command: str  # "assay queue create"
    name: str  # "--lease-seconds", or a positional's metavar: "NAME"
    help: str | None


@dataclass(frozen=True)
class Command:
    name: str  # "assay queue create"
    help: str | None
    arguments: tuple[Argument, ...]


def _positional_name(action: argparse.Action) -> str:
    metavar = action.metavar if isinstance(action.metavar, str) else None
    return metavar or action.dest.upper()


def _commands(parser: argparse.ArgumentParser, prefix: str) -> list[Command]:
    """Every subcommand under ``parser`` (aliases once, by their first name), depth first."""
    found: list[Command] = []
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help for choice in action._choices_actions}
        seen: set[int] = set()
        for name, sub in action.choices.items():
            if id(sub) in seen:
                continue
            seen.add(id(sub))
            full = f"{prefix} {name}"
            args = tuple(Argument(full, a.option_strings[-1] if a.option_strings else _positional_name(a), a.help)
                         for a in sub._actions
                         if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction))
            found.append(Command(full, helps.get(name), args))
            found += _commands(sub, full)
    return found


COMMANDS = _commands(build_parser(), "assay")
TEXT = {page: page.read_text(encoding="utf-8") for page in PAGES}
LINES = [line for text in TEXT.values() for line in text.splitlines()]


def test_the_parser_walk_finds_nested_commands_and_their_arguments():
    names = {c.name for c in COMMANDS}
    assert {"assay validate", "assay queue", "assay queue create", "assay study verdict"} <= names
    create = next(c for c in COMMANDS if c.name == "assay queue create")
    assert {"NAME", "--from", "--lease-seconds"} & {a.name for a in create.arguments} == {"NAME", "--from"}


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_every_command_and_argument_has_help_text(command):
    assert command.help, f"`{command.name}` has no help text: give its add_parser(...) a help="
    missing = [a.name for a in command.arguments if not a.help or a.help == argparse.SUPPRESS]
    assert not missing, f"`{command.name}`: no help text for {missing}: give each add_argument(...) a help="


def _spells(line: str, command: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(command)}(?![\w-])", line) is not None


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_every_command_and_argument_is_documented(command):
    lines = [line for line in LINES if _spells(line, command.name)]
    assert lines, f"`{command.name}` is mentioned nowhere in README.md or docs/: add it to docs/commands.md"
    undocumented = [a.name for a in command.arguments
                    if not any(re.search(rf"(?<![\w-]){re.escape(a.name)}(?![\w-])", line) for line in lines)]
    assert not undocumented, (f"`{command.name}`: {undocumented} appear on no line that spells `{command.name}`; "
                              f"add them to its line in docs/commands.md")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation other than - and _ dropped, spaces to -."""
    text = re.sub(r"`", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    outside_code = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return {_slug(m) for m in re.findall(r"^#{1,6} (.+)$", outside_code, flags=re.M)}


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _links() -> list[tuple[Path, str]]:
    found = []
    for page, text in TEXT.items():
        prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
        found += [(page, target) for target in LINK.findall(prose) if not re.match(r"[a-z]+:", target)]
    return found


def test_the_link_check_sees_links():
    assert (ROOT / "README.md", "docs/rag-change.md") in _links()
    assert _slug("## 1. Measure how well two people agree".lstrip("# ")) == "1-measure-how-well-two-people-agree"
    assert _slug("The study's stages") == "the-studys-stages"


@pytest.mark.parametrize("page, target", _links(), ids=lambda x: x if isinstance(x, str) else x.name)
def test_every_relative_link_resolves(page, target):
    path, _, anchor = target.partition("#")
    dest = (page.parent / path).resolve() if path else page
    if dest in PENDING and not dest.exists():
        return
    assert dest.exists(), f"{page.relative_to(ROOT)}: link {target!r}: {dest} does not exist"
    if anchor and dest.suffix == ".md":
        anchors = _anchors(dest.read_text(encoding="utf-8"))
        assert anchor in anchors, f"{page.relative_to(ROOT)}: link {target!r}: no heading with anchor {anchor!r}"


@dataclass(frozen=True)
class Shown:
    page: str
    command: str
    output: str


def _console_blocks() -> list[Shown]:
    shown = []
    for page, text in TEXT.items():
        for block in re.findall(r"^```console\n(.*?)^```", text, flags=re.M | re.S):
            command, output = None, []
            for line in block.splitlines():
                if line.startswith("$ "):
                    if command is not None:
                        shown.append(Shown(page.name, command, "".join(output)))
                    command, output = line[2:], []
                else:
                    assert command is not None, f"{page.name}: a console block must start with a `$ ` line"
                    output.append(line + "\n")
            assert command is not None, f"{page.name}: an empty console block"
            shown.append(Shown(page.name, command, "".join(output)))
    return shown


SHOWN = _console_blocks()


def test_console_blocks_are_found():
    assert {s.command for s in SHOWN} >= {"assay --help", "assay validate params.yaml"}


@pytest.mark.parametrize("shown", SHOWN, ids=lambda s: f"{s.page}: {s.command}")
def test_every_console_block_prints_what_it_shows(shown, capsys, monkeypatch):
    argv = shlex.split(shown.command)
    assert argv[0] == "assay", f"{shown.page}: console blocks run `assay` commands only, not {shown.command!r}"
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps help text at the terminal width
    for name in ("ASSAY_EVIDENCE_ROOT", "ASSAY_QUEUE_DB", "ASSAY_DASK_SCHEDULER"):
        monkeypatch.delenv(name, raising=False)
    with contextlib.suppress(SystemExit):  # --help
        main(argv[1:])
    out, err = capsys.readouterr()
    assert out + err == shown.output, f"{shown.page}: `{shown.command}` printed something else"


def test_the_readme_is_short_and_starts_with_the_two_commands():
    readme = TEXT[ROOT / "README.md"]
    assert len(readme.encode("utf-8")) <= 12 * 1024, "README.md is over 12 KB: move detail to a page in docs/"
    first_block = re.search(r"^```\w*\n(.*?)^```", readme, flags=re.M | re.S).group(1)
    assert [line.split()[:2] for line in first_block.splitlines()] == [["make", "repro"], ["make", "test"]]
