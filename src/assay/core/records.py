"""Validating rows of input files against pydantic models, with errors a person can act on.

:func:`validate_rows` turns pydantic's errors into :class:`~assay.core.errors.Problem` rows that name
file, line, field, the bad value and the fix, collects them for every row, and fails once.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Annotated, TypeVar, get_args

from pydantic import AfterValidator, BaseModel, ValidationError
from pydantic_core import PydanticCustomError

from assay.core.errors import InputError, Problem

M = TypeVar("M", bound=BaseModel)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank_string", "is empty or only whitespace", {"fix": "write the text, or remove the row"})
    return value


NonBlank = Annotated[str, AfterValidator(_not_blank)]
"""A string with at least one non-whitespace character (``""`` and ``"   "`` are refused as ``blank_string``)."""


def suggest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest in spelling to ``name`` (difflib ratio at least 0.6), or ``None``.

    >>> suggest("treshold", ["threshold", "sources"])
    'threshold'
    >>> suggest("zzz", ["threshold"]) is None
    True
    """
    close = difflib.get_close_matches(str(name), list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_name(name: str, known: Iterable[str], what: str = "field") -> tuple[str, str]:
    """Message and fix for an unknown key: the spelling suggestion (when one is close) and the known names."""
    known = list(known)
    close = suggest(name, known)
    message = f"unknown {what}" + (f"; did you mean {close!r}?" if close else "")
    fix = f"rename it to {close!r} (known: {', '.join(known)})" if close else f"remove it or use one of {', '.join(known)}"
    return message, fix


def _field_name(loc: tuple) -> str | None:
    parts = [str(p) for p in loc if not (isinstance(p, str) and p.startswith("function-after"))]
    return ".".join(parts) if parts else None


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel]:
    """The (nested) model that owns the field at ``loc``, following model, list and dict annotations."""
    current = model
    for part in loc:
        if not isinstance(part, str) or part not in getattr(current, "model_fields", {}):
            continue
        candidates = [current.model_fields[part].annotation]
        while candidates:
            ann = candidates.pop()
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                current = ann
                break
            candidates.extend(get_args(ann))
    return current


def describe(error: dict, model: type[BaseModel]) -> tuple[str, str]:
    """Message and fix for one pydantic error dict, repeating the bad value and the valid set."""
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    model = _model_at(model, tuple(error["loc"])[:-1])
    if kind == "literal_error":
        allowed = ctx.get("expected", "").replace("'", "").replace(" or ", ", ")
        return f"{value!r} is not one of {allowed}", f"use one of {allowed}"
    if "fix" in ctx:  # a PydanticCustomError raised by an assay validator carries its own fix
        return error["msg"], str(ctx["fix"])
    if kind == "extra_forbidden":
        return unknown_name(str(error["loc"][-1]), model.model_fields)
    if kind == "missing":
        return "is required but missing", "add the field"
    if kind == "value_error":
        msg = str(ctx.get("error", error["msg"]))
        return msg, "make the row consistent as described"
    if kind.startswith("date_"):
        return f"{value!r} is not valid: {error['msg'].lower()}", "write a real date as YYYY-MM-DD"
    if kind.endswith("_type") or kind.endswith("_parsing"):
        return f"{value!r} is not valid: {error['msg'].lower()}", "give a value of the right type"
    return f"{value!r}: {error['msg']}", "correct the value"


def problems_from(error: ValidationError, path: str, line: int | None, model: type[BaseModel],
                  prefix: str = "") -> list[Problem]:
    """Convert a pydantic ValidationError into Problems located at ``path:line``."""
    out = []
    for e in error.errors(include_url=False):
        message, fix = describe(e, model)
        field = _field_name(tuple(e["loc"]))
        if prefix:
            field = f"{prefix}.{field}" if field else prefix
        out.append(Problem(path, line, field, message, fix))
    return out


def check_rows(path: str, rows: Iterable[tuple[int, dict]], model: type[M],
               key: str | None = "id") -> tuple[list[tuple[int, M]], list[Problem]]:
    """Validate every ``(line, dict)`` row into ``model``; return the good rows and the Problems of the rest.

    Every row is checked, so one run reports all of a file's problems. The uniqueness check on
    ``key`` runs on every row that has a string or integer ``key``, including rows that fail the
    schema for another reason; a repeated value is reported at its later line, naming the first.

    Returns:
        ``(line, record)`` pairs in file order (a duplicate is not among them), and the Problems in
        line order.
    """
    good: list[tuple[int, M]] = []
    problems: list[Problem] = []
    seen: dict[object, int] = {}
    for line, raw in rows:
        value = raw.get(key) if key is not None else None
        duplicate = isinstance(value, (str, int)) and value in seen
        if duplicate:
            problems.append(Problem(path, line, key, f"duplicate {key} {value!r} (first on line {seen[value]})",
                                    f"give every row a unique {key}"))
        elif isinstance(value, (str, int)):
            seen[value] = line
        try:
            record = model.model_validate(raw)
        except ValidationError as error:
            problems.extend(problems_from(error, path, line, model))
            continue
        if not duplicate:
            good.append((line, record))
    return good, problems


def validate_rows(path: str, rows: Iterable[tuple[int, dict]], model: type[M],
                  key: str | None = "id") -> list[tuple[int, M]]:
    """Validate ``(line, dict)`` rows into ``model`` instances, or raise one InputError for all bad rows.

    Args:
        path: the file name used in messages.
        rows: ``(line_number, mapping)`` pairs, as from :func:`assay.core.io.read_jsonl`.
        model: a pydantic model, normally with ``extra="forbid"``.
        key: a field whose values must be unique (see :func:`check_rows`); ``None`` skips the check.

    Returns:
        ``(line, record)`` pairs in file order.
    """
    good, problems = check_rows(path, rows, model, key)
    if problems:
        raise InputError(problems)
    return good
