"""Validating rows of input files against pydantic models, with errors a person can act on.

:func:`validate_rows` turns pydantic's errors into :class:`~assay.core.errors.Problem` rows that name
file, line, field, the bad value and the fix, collects them for every row, and fails once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar, get_args

from pydantic import BaseModel, ValidationError

from assay.core.errors import InputError, Problem

M = TypeVar("M", bound=BaseModel)


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
    if kind == "extra_forbidden":
        allowed = ", ".join(model.model_fields)
        return "unknown field", f"remove it or use one of {allowed}"
    if kind == "missing":
        return "is required but missing", "add the field"
    if kind == "value_error":
        msg = str(ctx.get("error", error["msg"]))
        return msg, "make the row consistent as described"
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


def validate_rows(path: str, rows: Iterable[tuple[int, dict]], model: type[M],
                  key: str | None = "id") -> list[tuple[int, M]]:
    """Validate ``(line, dict)`` rows into ``model`` instances, or raise one InputError for all bad rows.

    Args:
        path: the file name used in messages.
        rows: ``(line_number, mapping)`` pairs, as from :func:`assay.core.io.read_jsonl`.
        model: a pydantic model, normally with ``extra="forbid"``.
        key: a field whose values must be unique (a repeated value is reported at its second line,
            naming the first); ``None`` skips the check.

    Returns:
        ``(line, record)`` pairs in file order.
    """
    good: list[tuple[int, M]] = []
    problems: list[Problem] = []
    seen: dict[object, int] = {}
    for line, raw in rows:
        try:
            record = model.model_validate(raw)
        except ValidationError as error:
            problems.extend(problems_from(error, path, line, model))
            continue
        if key is not None:
            value = getattr(record, key)
            if value in seen:
                problems.append(Problem(path, line, key, f"duplicate {key} {value!r} (first on line {seen[value]})",
                                        f"give every row a unique {key}"))
                continue
            seen[value] = line
        good.append((line, record))
    if problems:
        raise InputError(problems)
    return good
