"""The byte-level checks of a TREC file's lines: length, UTF-8, NUL and control characters.

:func:`check_lines` runs every check over the file's bytes a window of a megabyte at a time, with
numpy and C-level ``bytes`` methods (no Python step per line: about 0.1 CPU-s instead of 1 for a
million lines, see ``benchmarks/bench_ir.py``). When a check fails, it finds the first bad line's start in bulk and
:func:`line_problems` reads from there, line by line, naming every bad line (up to
:data:`~assay.core.errors.MAX_PROBLEMS`) exactly as a reader going line by line from the top would:
the lines before the first bad one are good, so skipping them changes no message.

A line is the bytes up to ``\\n`` (a ``\\r`` before it belongs to the line). One problem per line, the
first that applies: longer than ``max_line_bytes`` (not counting ``\\n``), not UTF-8, a NUL or control
character (every C0 control but tab, LF and CR, and DEL). A UTF-8 byte-order mark opening the file
is dropped.
"""

from __future__ import annotations

import re

import numpy as np

from assay.core.errors import MAX_PROBLEMS, InputError, Problem
from assay.core.io import utf8_problem

#: the longest line read (bytes, line end not included): a TREC line is a few hundred bytes; a longer
#: one is an error at its line
MAX_LINE_BYTES = 65_536
#: bytes checked at once: small enough that the temporaries stay in reused memory, large enough for numpy
WINDOW = 1 << 20

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # NUL and the other control characters but tab, LF, CR
# the same characters as bytes: in UTF-8 they are single bytes that never occur inside a longer sequence
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
_CONTROL_BYTE = re.compile(b"[" + re.escape(_CONTROL_BYTES) + b"]")
# a data line: after any blanks, a character that is neither a blank nor '#' (str.strip and str.split agree);
# on ASCII the bytes pattern finds the same lines (the blanks it does not know are control characters)
_DATA_LINE = re.compile(r"^[^\S\n]*[^\s#]", re.MULTILINE)
_DATA_LINE_ASCII = re.compile(rb"^[^\S\n]*[^\s#]", re.MULTILINE)


def first_bad_line(data: bytes, max_line_bytes: int = MAX_LINE_BYTES, window: int = WINDOW) -> int | None:
    """The byte offset where the first line failing a check starts; None when every line passes.

    Scans ``window`` bytes at a time (small temporaries, reused), stopping at the window that
    holds the first problem. A file that is not pure ASCII is decoded whole once, for the UTF-8 check.

    >>> first_bad_line(b"q1 0 d1 1\\nq1 0 d\\x002 1\\nq1 0 d3 1\\n")
    10
    >>> first_bad_line(b"q1 0 d1 1\\n" + b"x" * 12 + b"\\n", max_line_bytes=11)
    10
    >>> first_bad_line("q1 0 d\\u00e91 1\\n".encode()) is None
    True
    """
    found: list[int] = []
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            found.append(error.start)
    view = np.frombuffer(data, dtype=np.uint8)
    line_start = 0  # where the line running into the next window starts
    for lo in range(0, len(data), window):
        chunk = data[lo:lo + window]
        if len(chunk.translate(None, _CONTROL_BYTES)) != len(chunk):  # C speed; the search only on a hit
            match = _CONTROL_BYTE.search(chunk)
            found.append(lo + (match.start() if match else 0))
        ends = lo + np.flatnonzero(view[lo:lo + window] == 0x0A)  # the \n of every line ending in this window
        starts = np.concatenate(([line_start], ends[:-1] + 1))[:ends.size]
        long = np.flatnonzero(ends - starts > max_line_bytes)
        if long.size:
            found.append(int(starts[long[0]]))
        if ends.size:
            line_start = int(ends[-1]) + 1
        if lo + len(chunk) - line_start > max_line_bytes:  # the line running on is too long already
            found.append(line_start)
        if found and min(found) < lo + window:  # what later windows find starts on this line or after it
            break
    if not found:
        return None
    return data.rfind(b"\n", 0, min(found)) + 1


def line_problems(path: str, max_line_bytes: int = MAX_LINE_BYTES, offset: int = 0, first_line: int = 1) -> list[Problem]:
    """The problem of every bad line of ``path`` from byte ``offset`` (the start of line ``first_line``) on.

    Reads at most ``max_line_bytes`` of a line at once, so a 10 MB line costs no more memory than
    that; stops after :data:`~assay.core.errors.MAX_PROBLEMS` problems.
    """
    problems: list[Problem] = []
    with open(path, "rb") as fh:
        fh.seek(offset)
        number = first_line - 1
        while len(problems) < MAX_PROBLEMS:
            raw = fh.readline(max_line_bytes + 1)
            if not raw:
                break
            number += 1
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                while (rest := fh.readline(1 << 16)) and not rest.endswith(b"\n"):
                    pass  # skip the rest of the long line without keeping it
                problems.append(Problem(path, number, None, f"line is longer than {max_line_bytes} bytes",
                                        "write one short 'qid ... docno ...' line per judgment or retrieved document"))
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                problems.append(utf8_problem(path, raw, error, number))
                continue
            if number == 1:
                line = line.removeprefix("\ufeff")
            bad = _CONTROL.search(line)
            if bad is not None:
                problems.append(Problem(path, number, None, f"holds a NUL or control character ({bad.group()!r}) at "
                                        f"character {bad.start() + 1}", "remove it: ids and docnos are plain text"))
    return problems


def check_lines(path: str, data: bytes, max_line_bytes: int = MAX_LINE_BYTES) -> bool:
    """Check every line of ``data`` (the bytes of ``path``); True when one is a data line.

    A data line is one that is neither blank nor a comment (its first non-blank character ``#``).

    Raises:
        InputError: every line that is too long, not UTF-8 or holds a NUL or control character
            (up to :data:`~assay.core.errors.MAX_PROBLEMS`), each at its ``file:line``.
    """
    start = first_bad_line(data, max_line_bytes)
    if start is not None:
        problems = line_problems(path, max_line_bytes, start, data.count(b"\n", 0, start) + 1)
        if problems:  # always, unless the file changed since it was read
            raise InputError(problems)
    if data.isascii():
        return _DATA_LINE_ASCII.search(data) is not None
    return _DATA_LINE.search(data.decode("utf-8", errors="replace").removeprefix("\ufeff")) is not None
