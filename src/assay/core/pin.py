"""The pin of the assay version a project runs on, and the check that the installed one matches it.

A project made by ``assay init`` holds :data:`PIN_FILE` with a line ``assay-eval==X.Y.Z``; every stage
depends on that file, so changing the pin re-runs every stage. A stage run under another installed
version would mix two versions' results under one lock, so :func:`check_pin` refuses it. assay's own
repository has no pin file (its stages depend on the library's source instead) and is not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

from assay.core.errors import AssayError

PIN_FILE = "requirements.txt"
DISTRIBUTION = "assay-eval"
PIN = re.compile(rf"^\s*{re.escape(DISTRIBUTION)}\s*==\s*([^\s;#]+)", re.MULTILINE | re.IGNORECASE)


class VersionMismatch(AssayError):
    """The installed assay is not the version the project pins (exit 2: nothing computed would be trusted)."""

    exit_code = 2


def pinned_version(root: str | Path = ".") -> str | None:
    """The version ``root/requirements.txt`` pins with ``assay-eval==``; ``None`` without such a line or file.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / PIN_FILE).write_text("# x\\nassay-eval==1.2.0\\n")
    >>> pinned_version(d)
    '1.2.0'
    """
    path = Path(root) / PIN_FILE
    if not path.is_file():
        return None
    found = PIN.search(path.read_text(encoding="utf-8", errors="replace"))
    return found.group(1) if found else None


def check_pin(root: str | Path = ".", installed: str | None = None) -> None:
    """Refuse to run when ``root`` pins another assay version than the one installed.

    Raises:
        VersionMismatch: naming both versions and the two ways out (install the pin, or move the pin).
    """
    from assay import __version__

    pinned = pinned_version(root)
    running = installed or __version__
    if pinned is not None and pinned != running:
        raise VersionMismatch(f"{PIN_FILE} pins {DISTRIBUTION}=={pinned} but assay {running} is installed "
                              f"(fix: `pip install -r {PIN_FILE}`, or change the pin to {running} to upgrade: "
                              "every stage then runs again)")
