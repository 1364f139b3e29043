"""Loading one section of params.yaml into a pydantic model, so a mistyped key fails loudly.

Each stage reads only its own section (``plan``, ``split``, ``leakage``, ...) and each concept
module defines the model for its section; this module only loads and validates.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from assay.core.errors import InputError, Problem
from assay.core.io import read_yaml
from assay.core.records import problems_from

M = TypeVar("M", bound=BaseModel)

PARAMS_FILE = "params.yaml"


def load_section(name: str, model: type[M], path: str | Path = PARAMS_FILE) -> M:
    """Validate ``params.yaml``'s top-level section ``name`` into ``model``.

    Paths and names are judged against the folder of ``path`` as the repository root
    (:mod:`assay.core.confinement`). A missing section validates ``{}`` (so a model with defaults works without it). Unknown keys,
    wrong types and bad values raise :class:`~assay.core.errors.InputError` naming ``name.field``.
    """
    data = read_yaml(path) or {}
    if not isinstance(data, dict):
        raise InputError([Problem(str(path), None, None, "expected a mapping of sections", "see params.yaml in the README")])
    section = data.get(name, {})
    try:
        return model.model_validate(section or {}, context={"root": Path(path).parent})
    except ValidationError as error:
        raise InputError(problems_from(error, str(path), None, model, prefix=name)) from None
