"""The pin of the assay version a project runs on and of its whole dependency set, and the check that
the installed environment matches them.

A project made by ``assay init`` holds :data:`PIN_FILE` (requirements.txt) with one assay line: either
``assay-eval==X.Y.Z`` (from an index, or from a wheel under ``wheels/`` found through a
``--find-links`` line) or ``assay-eval @ git+URL@COMMIT`` (a git URL at a commit). It also holds
:data:`CONSTRAINTS_FILE`, every other distribution of the environment ``assay init`` ran in, pinned
with ``==`` (requirements.txt applies it with ``-c``). Every stage depends on both files, so changing
a pin re-runs every stage; a stage run under another environment would mix two environments' results
under one lock, so :func:`check_pin` refuses it. assay's own repository pins no assay line (its stages
depend on the library's source instead) and is not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

from assay import DISTRIBUTION
from assay.core.errors import AssayError

PIN_FILE = "requirements.txt"
CONSTRAINTS_FILE = "constraints.txt"
PIN = re.compile(rf"^\s*{re.escape(DISTRIBUTION)}\s*==\s*([^\s;#]+)", re.MULTILINE | re.IGNORECASE)
VCS_PIN = re.compile(rf"^\s*{re.escape(DISTRIBUTION)}\s*@\s*git\+\S+?@([0-9a-fA-F]{{7,64}})\s*(?:[;#].*)?$",
                     re.MULTILINE | re.IGNORECASE)
CONSTRAINT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;#]+)")
#: at most this many differing distributions are named in one message
SHOWN = 5


class VersionMismatch(AssayError):
    """The installed environment is not the one the project pins (exit 2: nothing computed would be trusted)."""

    exit_code = 2


def canonical(name: str) -> str:
    """A distribution name as PEP 503 compares it.

    >>> canonical("ruamel.yaml_Clib")
    'ruamel-yaml-clib'
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def _pin_text(root: str | Path) -> str | None:
    path = Path(root) / PIN_FILE
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None


def pinned_version(root: str | Path = ".") -> str | None:
    """The version ``root/requirements.txt`` pins with ``assay-eval==``; ``None`` without such a line or file.

    A git pin (``assay-eval @ git+URL@COMMIT``) pins a commit, not a version: ``None`` here, see
    :func:`pinned_commit`.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / PIN_FILE).write_text("# x\\nassay-eval==1.2.0\\n")
    >>> pinned_version(d)
    '1.2.0'
    """
    text = _pin_text(root)
    found = PIN.search(text) if text else None
    return found.group(1) if found else None


def pinned_commit(root: str | Path = ".") -> str | None:
    """The commit of a git pin ``assay-eval @ git+URL@COMMIT`` in ``root/requirements.txt``; ``None`` without one.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / PIN_FILE).write_text("assay-eval @ git+https://example.org/assay.git@0123abcd\\n")
    >>> pinned_commit(d), pinned_version(d)
    ('0123abcd', None)
    """
    text = _pin_text(root)
    found = VCS_PIN.search(text) if text else None
    return found.group(1) if found else None


def constraints(root: str | Path = ".") -> dict[str, str]:
    """``root/constraints.txt`` as canonical name -> pinned version (``name==version`` lines; others ignored).

    An absent file gives an empty mapping.
    """
    path = Path(root) / CONSTRAINTS_FILE
    if not path.is_file():
        return {}
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        found = CONSTRAINT.match(line)
        if found:
            out[canonical(found.group(1))] = found.group(2)
    return out


def installed_versions() -> dict[str, str]:
    """Every distribution importable now, canonical name -> version (the first on ``sys.path`` wins, as for import).

    Read from the ``NAME-VERSION.dist-info`` folder names, which PEP 427/376 make exact, rather than
    from each METADATA file: every stage runs this check, and parsing ~180 METADATA files costs about
    0.25 s where listing the folders costs a few milliseconds. Other layouts (``.egg-info``) fall back
    to the metadata.
    """
    import os
    import sys
    from importlib.metadata import Distribution

    out: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for folder in names:
            stem = folder[: -len(".dist-info")]
            if folder.endswith(".dist-info") and stem.count("-") == 1:
                name, version = stem.split("-")
            elif folder.endswith((".dist-info", ".egg-info")):
                dist = Distribution.at(Path(entry or ".") / folder)
                name, version = dist.metadata["Name"] or "", dist.version
            else:
                continue
            if name:
                out.setdefault(canonical(name), version)
    return out


def _constraint_problem(root: str | Path) -> str | None:
    pinned = constraints(root)
    if not pinned:
        return None
    have = installed_versions()
    differ = sorted(f"{name}=={version} ({have[name]} installed)" for name, version in pinned.items()
                    if name in have and have[name] != version and name != canonical(DISTRIBUTION))
    if not differ:
        return None
    more = f" and {len(differ) - SHOWN} more" if len(differ) > SHOWN else ""
    return (f"{CONSTRAINTS_FILE} pins {', '.join(differ[:SHOWN])}{more} (fix: `pip install -r {PIN_FILE}`, which "
            f"applies {CONSTRAINTS_FILE}; or, to move the whole project to this environment, "
            f"`pip freeze --exclude {DISTRIBUTION} > {CONSTRAINTS_FILE}`: every stage then runs again)")


def check_pin(root: str | Path = ".", installed: str | None = None, installed_commit: str | None = None) -> None:
    """Refuse to run when ``root`` pins another assay (version or git commit) or another dependency set.

    Args:
        root: the project folder.
        installed: the running assay's version (default: the installed distribution's).
        installed_commit: the commit the running assay was installed from (default: its ``direct_url.json``).

    Raises:
        VersionMismatch: naming what is pinned, what is installed and the ways out (install the pin, or
            move the pin).
    """
    from assay import __version__

    pinned = pinned_version(root)
    running = installed or __version__
    if pinned is not None and pinned != running:
        raise VersionMismatch(f"{PIN_FILE} pins {DISTRIBUTION}=={pinned} but assay {running} is installed "
                              f"(fix: `pip install -r {PIN_FILE}`, or change the pin to {running} to upgrade: "
                              "every stage then runs again)")
    commit = pinned_commit(root)
    if commit is not None:
        if installed_commit is None:
            from assay.core.install import installed_source

            installed_commit = installed_source().commit or "none (not installed from git)"
        if not installed_commit.startswith(commit) and not commit.startswith(installed_commit):
            raise VersionMismatch(f"{PIN_FILE} pins {DISTRIBUTION} at git commit {commit} but the installed assay "
                                  f"comes from commit {installed_commit} (fix: `pip install -r {PIN_FILE}`, or "
                                  "change the pin's commit to upgrade: every stage then runs again)")
    if pinned is not None or commit is not None:
        problem = _constraint_problem(root)
        if problem:
            raise VersionMismatch(problem)
