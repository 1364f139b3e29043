"""Errors assay raises on bad input or a stale pipeline.

Every error is an :class:`AssayError`; the CLI prints its message without a traceback and exits
non-zero. Input errors collect every bad row (up to a cap) before failing once, and each row names
file, line, field, the bad value and the fix::

    data/cases.jsonl:42: field 'task': 'lookups' is not one of lookup, exact_term, ... (fix: ...)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MAX_PROBLEMS = 20
#: The most characters of one problem's message (and of its fix) that are printed.
MESSAGE_LIMIT = 600
# exit code and message of a run stopped with ctrl-c (128 + SIGINT, what shells report); every file is
# written through a temporary file and renamed, so an interruption leaves no output half-written
INTERRUPTED_EXIT = 130
INTERRUPTED = "interrupted (ctrl-c); no file is left half-written; run the command again to finish"
#: exit code of a command that stopped on an error assay did not raise on purpose (a bug), where the
#: command's own codes must keep their meaning (``assay gate``: 1 is "threshold unmet", 2 "input problem")
INTERNAL_EXIT = 3


def shorten(text: str, limit: int = 200) -> str:
    """``text`` cut to about ``limit`` characters for a message, saying how much was left out.

    >>> shorten("abc"), shorten("x" * 30, 10)
    ('abc', 'xxxxxxxxxx... (20 more characters)')
    """
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more characters)"


def shown(value: object, limit: int = 200) -> str:
    """``repr(value)`` for a message, cut to about ``limit`` characters (a 5000-digit number or a
    megabyte string is quoted by its start, not whole).

    >>> shown("ab"), shown(10 ** 30, 8)
    ("'ab'", '10000000... (23 more characters)')
    """
    return shorten(repr(value), limit)


class AssayError(Exception):
    """Base class of every error assay raises on purpose; the CLI prints ``str(error)``."""

    exit_code = 1


@dataclass(frozen=True)
class Problem:
    """One bad row or value: where it is, which field, what is wrong and how to fix it.

    ``line`` is 1-based; ``None`` for a whole-file problem. ``field`` is a dotted path or ``None``.
    """

    path: str
    line: int | None
    field: str | None
    message: str
    fix: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        what = f"field '{shorten(self.field, 100)}': {self.message}" if self.field else self.message
        # the cap catches a value quoted whole somewhere no one thought of (a validator's repr of a list)
        return f"{where}: {shorten(what, MESSAGE_LIMIT)}" + (f" (fix: {shorten(self.fix, MESSAGE_LIMIT)})" if self.fix else "")


class InputError(AssayError):
    """One or more bad rows in an input file; the message lists them, capped at ``MAX_PROBLEMS``."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        shown = [str(p) for p in self.problems[:MAX_PROBLEMS]]
        more = len(self.problems) - len(shown)
        if more > 0:
            shown.append(f"... and {more} more problem(s) not shown")
        super().__init__("\n".join(shown))


def raise_problems(problems: list[Problem]) -> None:
    """Raise one InputError listing ``problems`` sorted by file and line (whole-file problems first); no-op when empty."""
    if problems:
        raise InputError(sorted(problems, key=lambda p: (p.path, p.line or 0)))


class PlanProblems(AssayError):
    """The evaluation plan is valid data but leaves failures unguarded (raised in strict mode)."""


class StaleError(AssayError):
    """A recorded artifact no longer matches its inputs (a changed prompt, judge, label or case)."""

    exit_code = 2


class RefusedInCI(AssayError):
    """An option that weakens a check was given where ``CI=true``: CI must run every check."""

    exit_code = 2


class MissingArtifact(AssayError):
    """A metrics or report file the command needs does not exist; run ``dvc repro`` first."""

    exit_code = 2


def internal_error_line(command: str, error: BaseException) -> str:
    """One line naming an unexpected error: its type, message and the assay frame it came from.

    >>> internal_error_line("gate", KeyError("x"))
    "assay gate: internal error: KeyError: 'x' (a bug in assay, not in your inputs: report this line; exit 3)"
    """
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    where = ""
    for frame in reversed(frames):  # the innermost frame in assay's own code
        parts = Path(frame.tb_frame.f_code.co_filename).parts
        if "assay" in parts:
            where = f" at {'/'.join(parts[parts.index('assay'):])}:{frame.tb_lineno}"
            break
    message = " ".join(str(error).split())[:300]
    return (f"assay {command}: internal error: {type(error).__name__}: {message}{where} "
            f"(a bug in assay, not in your inputs: report this line; exit {INTERNAL_EXIT})")


def exits_on_internal_error(command: str, run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``run`` with every exception that is not an :class:`AssayError` printed as one line on stderr
    (:func:`internal_error_line`, no traceback) and turned into exit :data:`INTERNAL_EXIT`.

    An :class:`AssayError` passes through (the CLI prints it with its own exit code), and so do
    ``KeyboardInterrupt`` and ``SystemExit``.
    """
    def guarded(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except AssayError:
            raise
        except Exception as error:  # noqa: BLE001 (the point: no traceback, a code of its own)
            print(internal_error_line(command, error), file=sys.stderr)
            return INTERNAL_EXIT
    guarded.__doc__ = run.__doc__
    return guarded
