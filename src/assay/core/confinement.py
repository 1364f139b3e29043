"""Keeping every path assay reads or writes inside the repository.

Two pydantic types, used by every params section, the plan and the stages, so no field checks
paths on its own:

- :data:`PlainName`: a name that becomes part of a file name (a review snapshot, a queue, a mode,
  a RAG version). One path component of letters, digits, ``_``, ``-`` and ``.``: no ``/`` or
  ``\\``, no ``..``, no NUL or other control character, no leading dot, at most 100 characters.
- :data:`ProjectPath`: a repository-relative path (file or folder, existing or not) that resolves,
  symlinks followed, inside the repository root. An absolute path is accepted only when it resolves
  inside the root too; ``../x``, ``/etc/passwd`` and a symlink whose target is outside are refused.

The repository root is the validation context's ``root`` (``model_validate(data, context={"root":
folder})``, which :func:`assay.core.params.load_section` and ``assay validate`` pass as the folder
of params.yaml), else the current directory (where DVC runs every stage).

:func:`confined_file` checks one file found by listing a folder (corpus documents, sources): a
symlink among them that leads out of the repository is an error naming the file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, ValidationInfo
from pydantic_core import PydanticCustomError

from assay.core.errors import Problem

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def project_root(context: Any = None) -> Path:
    """The repository root: ``context["root"]`` when given, else the current directory; resolved."""
    root = context.get("root") if isinstance(context, dict) else None
    return Path(root if root is not None else os.getcwd()).resolve()


def name_problem(value: str) -> str | None:
    """Why ``value`` is not a plain name, or ``None`` when it is one.

    >>> name_problem("demo") is None
    True
    >>> name_problem("../evil")
    "'../evil' contains a path separator"
    """
    if "\0" in value or any(ord(c) < 32 or ord(c) == 127 for c in value):
        return f"{value!r} contains a NUL or control character"
    if "/" in value or "\\" in value:
        return f"{value!r} contains a path separator"
    if value in ("", ".", ".."):
        return f"{value!r} is not a name"
    if value.startswith("."):
        return f"{value!r} starts with a dot (a hidden file)"
    if not _PLAIN.fullmatch(value):
        return f"{value!r} is not a plain name (letters, digits, '_', '-', '.'; at most 100 characters)"
    return None


def _plain(value: str) -> str:
    why = name_problem(value)
    if why is not None:
        raise PydanticCustomError("plain_name", "{why}; it names a file, so it must be one plain name",
                                  {"why": why, "fix": "use letters, digits, '_', '-' and '.' only, starting with a letter or digit"})
    return value


def outside_problem(value: str | os.PathLike, root: Path) -> str | None:
    """Why ``value`` (relative to ``root``) does not stay inside ``root``, or ``None`` when it does.

    Symlinks are followed (``Path.resolve``), so a link inside the repository pointing out of it is
    outside. A path that does not exist yet is judged by the parts that do.
    """
    text = os.fspath(value)
    if "\0" in text:
        return f"{text!r} contains a NUL character"
    if not text.strip():
        return "is empty"
    resolved = (root / text).resolve()
    if resolved != root and root not in resolved.parents:
        lexical = Path(os.path.normpath(root / text))
        via = " through a symbolic link" if lexical == root or root in lexical.parents else ""
        return f"{text!r} leads outside the repository{via}"
    return None


def _inside(value: str, info: ValidationInfo) -> str:
    why = outside_problem(value, project_root(info.context))
    if why is not None:
        raise PydanticCustomError("outside_repository", "{why}",
                                  {"why": why, "fix": "name a path inside the repository, relative to its root "
                                                      "(copy the file in; no '..', no absolute path, no symlink out)"})
    return value


PlainName = Annotated[str, AfterValidator(_plain)]
"""One file-name component: no separator, ``..``, NUL, control character or leading dot (see the module)."""

ProjectPath = Annotated[str, AfterValidator(_inside)]
"""A path that resolves, symlinks followed, inside the repository root (see the module)."""


def confined_file(path: Path, root: Path | None = None) -> Problem | None:
    """A Problem when ``path`` (found by listing a folder) is a symlink leading outside ``root``, else ``None``.

    ``root`` defaults to :func:`project_root` (the current directory). Only symlinks are judged: a
    plain file is wherever its folder is, and the folder itself was checked as a :data:`ProjectPath`.
    """
    if not path.is_symlink():
        return None
    base = (root or project_root()).resolve()
    target = path.resolve()
    if target == base or base in target.parents:
        return None
    return Problem(str(path), None, None, "is a symbolic link to a file outside the repository",
                   "copy the file into the repository instead of linking to it")


def require_plain_name(value: str, where: str, field: str) -> str:
    """``value`` when it is a plain name, else an InputError naming ``where``, ``field`` and the fix.

    For names given on the command line (``assay queue create NAME``) that later build a path.
    """
    from assay.core.errors import InputError

    why = name_problem(value)
    if why is not None:
        raise InputError([Problem(where, None, field, f"{why}; it names a file, so it must be one plain name",
                                  "use letters, digits, '_', '-' and '.' only, starting with a letter or digit")])
    return value


def require_inside(value: str, where: str, field: str, root: Path | None = None) -> str:
    """``value`` when it resolves inside ``root`` (default: the current directory), else an InputError with the fix."""
    from assay.core.errors import InputError

    why = outside_problem(value, (root or project_root()).resolve())
    if why is not None:
        raise InputError([Problem(where, None, field, why, "name a path inside the repository, relative to its root")])
    return value
