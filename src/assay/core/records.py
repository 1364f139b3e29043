"""Validating rows of input files against pydantic models, with errors a person can act on.

:func:`validate_rows` turns pydantic's errors into :class:`~assay.core.errors.Problem` rows that name
file, line, field, the bad value and the fix, collects them for every row, and fails once.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Callable, Iterable
import types
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin, overload

from pydantic import AfterValidator, BaseModel, Strict, ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

from assay.core.errors import InputError, Problem, shown

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank_string", "is empty or only whitespace", {"fix": "write the text, or remove the row"})
    return value


NonBlank = Annotated[str, AfterValidator(_not_blank)]
"""A string with at least one non-whitespace character (``""`` and ``"   "`` are refused as ``blank_string``)."""


def _is_number(annotation: object) -> bool:
    """``int``, ``float``, or a union holding one of them (``int | None``); not a container of numbers."""
    if annotation in (int, float):
        return True
    return get_origin(annotation) in (Union, types.UnionType) and any(_is_number(a) for a in get_args(annotation))


class InputModel(BaseModel):
    """Base of the models people write by hand (params sections, the plan, rubrics, cases, pairs): numbers are strict.

    Every ``int`` or ``float`` field (or ``int | None`` ...) refuses a boolean (``max_holdout_looks:
    true`` would otherwise be 1) and a string (``"0.6"``); a float field still takes an integer.
    Subclasses need nothing else: the fields are made strict when the class is created.
    """

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        changed = False
        for info in cls.model_fields.values():
            if _is_number(info.annotation) and not any(isinstance(m, Strict) for m in info.metadata):
                info.metadata.append(Strict())
                changed = True
        if changed:
            cls.model_rebuild(force=True, raise_errors=False)


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


def describe(error: ErrorDetails, model: type[BaseModel]) -> tuple[str, str]:
    """Message and fix for one pydantic error dict, repeating the bad value and the valid set."""
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    model = _model_at(model, tuple(error["loc"])[:-1])
    if kind == "literal_error":
        allowed = ctx.get("expected", "").replace("'", "").replace(" or ", ", ")
        return f"{shown(value)} is not one of {allowed}", f"use one of {allowed}"
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
        return f"{shown(value)} is not valid: {error['msg'].lower()}", "write a real date as YYYY-MM-DD"
    if kind in ("int_type", "float_type") and isinstance(value, bool):
        return f"{shown(value)} is a boolean, not a number", "write the number itself (true is not 1)"
    if kind.endswith("_type") or kind.endswith("_parsing"):
        return f"{shown(value)} is not valid: {error['msg'].lower()}", "give a value of the right type"
    return f"{shown(value)}: {error['msg']}", "correct the value"


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


def id_key(value: object) -> object:
    """What two ids must differ in to count as different: NFKC form, case-folded, surrounding blanks removed.

    ``g01``, ``G01``, `` g01 `` and ``g\uff101`` (a full-width digit) all give ``'g01'``; a non-string is itself.

    >>> id_key(" G\uff101 ")
    'g01'
    """
    if not isinstance(value, str):
        return value
    return unicodedata.normalize("NFKC", value).casefold().strip()


def unsafe_id(value: object) -> str | None:
    """Why a string id cannot be used (a NUL or control character, a path separator, blanks around it), else ``None``."""
    if not isinstance(value, str):
        return None
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in value):
        return "contains a NUL, control or invisible formatting character"
    if "/" in value or "\\" in value:
        return "contains a path separator ('/' or '\\')"
    if value != value.strip():
        return "has blanks before or after it"
    return None


@overload
def check_rows(path: str, rows: Iterable[tuple[int, dict]], model: type[M],
               key: str | None = "id", keep: None = None) -> tuple[list[tuple[int, M]], list[Problem]]: ...


@overload
def check_rows(path: str, rows: Iterable[tuple[int, dict]], model: type[M],
               key: str | None, keep: Callable[[int, M], T]) -> tuple[list[tuple[int, T]], list[Problem]]: ...


def check_rows(path: str, rows: Iterable[tuple[int, dict]], model: type[M],
               key: str | None = "id", keep: Callable[[int, M], Any] | None = None) -> tuple[list[tuple[int, Any]], list[Problem]]:
    """Validate every ``(line, dict)`` row into ``model``; return the good rows and the Problems of the rest.

    ``keep(line, record)``, when given, is what is kept of each good row instead of the record (for
    example a few of its fields), so memory holds only that; ``rows`` may be a generator.

    Every row is checked, so one run reports all of a file's problems. The uniqueness check on
    ``key`` runs on every row that has a string or integer ``key``, including rows that fail the
    schema for another reason; a repeated value is reported at its later line, naming the first.
    Two ids that differ only in case, surrounding blanks or Unicode width (``g01``, ``G01``,
    ``g\uff101``; see :func:`id_key`) are a repeat too, and a string id with a NUL, control
    character, path separator or surrounding blanks (:func:`unsafe_id`) is an error.

    Returns:
        ``(line, record)`` pairs in file order (a duplicate is not among them), and the Problems in
        line order.
    """
    good: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    seen: dict[object, tuple[int, object]] = {}
    for line, raw in rows:
        value = raw.get(key) if key is not None else None
        folded = id_key(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
        duplicate = folded is not None and folded in seen
        unsafe = unsafe_id(value)
        if unsafe is not None:
            problems.append(Problem(path, line, key, f"{shown(value)} {unsafe}",
                                    f"write the {key} with letters, digits, '-', '_' or '.' only"))
        if duplicate:
            first_line, first = seen[folded]
            same = "" if first == value else f" (the same as {first!r} when case, blanks and width are ignored)"
            problems.append(Problem(path, line, key, f"duplicate {key} {shown(value)}{same} (first on line {first_line})",
                                    f"give every row a unique {key}"))
        elif folded is not None:
            seen[folded] = (line, value)
        try:
            record = model.model_validate(raw)
        except ValidationError as error:
            problems.extend(problems_from(error, path, line, model))
            continue
        if not duplicate:
            good.append((line, record if keep is None else keep(line, record)))
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
