"""Plug-ins named ``"module:function"`` in params: importing them with errors that name the param and the fix."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

from assay.core.errors import AssayError


class PluginError(AssayError):
    """A plug-in cannot be loaded or misbehaved (bad import, wrong return type, an exception)."""


def load_callable(spec: str, param: str) -> Callable:
    """Import ``"module:function"``; the working directory is put on ``sys.path`` first.

    Raises:
        PluginError: the spec is malformed, the module does not import, the name is missing or is
            not callable. The message names ``param`` and the fix.
    """
    fix = "(fix: set it to 'package.module:function' for a module importable from the repository root or PYTHONPATH)"
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise PluginError(f"{param}: {spec!r} is not of the form 'module:function' {fix}")
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # any import-time failure of user code is reported the same way
        raise PluginError(f"{param}: module {module_name!r} could not be imported "
                          f"({type(error).__name__}: {error}) {fix}") from error
    fn = getattr(module, attr, None)
    if fn is None:
        raise PluginError(f"{param}: module {module_name!r} has no attribute {attr!r} {fix}")
    if not callable(fn):
        raise PluginError(f"{param}: {spec!r} is a {type(fn).__name__}, not a function {fix}")
    return fn
