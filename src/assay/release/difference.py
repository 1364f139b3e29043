"""Where two versions of an output file first differ, said in a way a person can act on.

Used by ``assay verify`` to compare a committed output with the one recomputed from the committed
inputs. For JSON files the answer is the first differing key path (keys visited in sorted order,
list items by index), for any other file the first differing line::

    key 'usable': committed 1, recomputed 0
    key 'by_kind.self.agreement': committed 0.857, recomputed 0.0
    line 7: committed '- pairs: 43', recomputed '- pairs: 42'

Values are compared as JSON, so ``1`` and ``1.0`` differ and ``true`` is not ``1``. Files whose
bytes differ but whose JSON values or lines are equal (line endings, indentation, a final
newline) are still reported, as a byte difference.
"""

from __future__ import annotations

import json
from typing import Any

SHOWN = 80  # characters of a value or line shown in a message
_ABSENT = object()


def _show(value: Any) -> str:
    if value is _ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


def _key_path(parts: tuple) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def json_difference(committed: Any, recomputed: Any, path: tuple = ()) -> tuple[tuple, Any, Any] | None:
    """The first place two JSON values differ: ``(key path, committed value, recomputed value)``, or ``None``.

    Object keys are visited in sorted order; a key present on one side only is reported with the
    other side absent. Lists are compared item by item, then by length.

    >>> json_difference({"a": 1, "b": {"c": [1, 2]}}, {"a": 1, "b": {"c": [1, 3]}})
    (('b', 'c', 1), 2, 3)
    >>> json_difference({"usable": 1}, {"usable": 1.0})
    (('usable',), 1, 1.0)
    >>> json_difference([1], [1]) is None
    True
    """
    if isinstance(committed, dict) and isinstance(recomputed, dict):
        for key in sorted(set(committed) | set(recomputed)):
            if key not in committed or key not in recomputed:
                return path + (key,), committed.get(key, _ABSENT), recomputed.get(key, _ABSENT)
            found = json_difference(committed[key], recomputed[key], path + (key,))
            if found is not None:
                return found
        return None
    if isinstance(committed, list) and isinstance(recomputed, list):
        for index, (a, b) in enumerate(zip(committed, recomputed, strict=False)):
            found = json_difference(a, b, path + (index,))
            if found is not None:
                return found
        if len(committed) == len(recomputed):
            return None
        index = min(len(committed), len(recomputed))
        return (path + (index,), committed[index] if index < len(committed) else _ABSENT,
                recomputed[index] if index < len(recomputed) else _ABSENT)
    if json.dumps(committed, sort_keys=True) == json.dumps(recomputed, sort_keys=True):
        return None
    return path, committed, recomputed


def _line(lines: list[str], index: int) -> str:
    if index >= len(lines):
        return "(end of file)"
    text = lines[index]
    return repr(text if len(text) <= SHOWN else text[:SHOWN - 3] + "...")


def line_difference(committed: str, recomputed: str) -> str | None:
    """``line N: committed '...', recomputed '...'`` for the first differing line, or ``None`` when the lines are equal.

    >>> line_difference("a\\nb\\n", "a\\nc\\n")
    "line 2: committed 'b', recomputed 'c'"
    >>> line_difference("a\\n", "a\\nb\\n")
    "line 2: committed (end of file), recomputed 'b'"
    """
    old, new = committed.splitlines(), recomputed.splitlines()
    for index in range(max(len(old), len(new))):
        if index >= len(old) or index >= len(new) or old[index] != new[index]:
            return f"line {index + 1}: committed {_line(old, index)}, recomputed {_line(new, index)}"
    return None


def first_difference(name: str, committed: bytes, recomputed: bytes) -> str | None:
    """How ``committed`` differs from ``recomputed`` (the bytes of file ``name``); ``None`` when identical.

    ``.json`` files that both parse are compared as JSON (:func:`json_difference`); everything
    else, and JSON that does not parse, line by line (:func:`line_difference`, after decoding as
    UTF-8 with replacement characters, so a binary file still gets a line number).

    >>> first_difference("metrics/calibration.json", b'{"usable": 1}', b'{"usable": 0}')
    "key 'usable': committed 1, recomputed 0"
    >>> first_difference("a.md", b"x\\r\\n", b"x\\n")
    'bytes differ, lines are equal (line endings or a final newline)'
    """
    if committed == recomputed:
        return None
    old, new = committed.decode("utf-8", "replace"), recomputed.decode("utf-8", "replace")
    if name.endswith(".json"):
        try:
            found = json_difference(json.loads(old), json.loads(new))
        except json.JSONDecodeError:
            found = None
        else:
            if found is None:
                return "bytes differ, JSON values are equal (formatting)"
            where, a, b = found
            return f"key {_key_path(where)!r}: committed {_show(a)}, recomputed {_show(b)}"
    return line_difference(old, new) or "bytes differ, lines are equal (line endings or a final newline)"
