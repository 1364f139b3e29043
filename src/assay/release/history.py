"""Whether the git history the checks read is all there: a shallow clone is refused, not passed.

The append-only holdout ledger (:func:`assay.release.verify.append_only_differences`), the opening
registration (:func:`assay.study.registration.opening_history`) and ``assay ci --base`` read earlier
commits. In a shallow clone (``actions/checkout``'s default ``fetch-depth: 1``) they would see no
history and report nothing, so :func:`require_history` refuses instead (exit 2), naming the fix.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from assay.core.errors import AssayError


class HistoryMissing(AssayError):
    """The repository is a shallow clone, so the checks that read history cannot pass (exit 2)."""

    exit_code = 2


def is_shallow(root: str | Path = ".") -> bool:
    """True when ``root`` is a shallow git clone; False for a full clone or when git cannot say."""
    from assay.release.verify import _env

    proc = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=root, env=_env(), capture_output=True,
                          text=True)
    return proc.returncode == 0 and proc.stdout.strip() == "true"


def require_history(root: str | Path = ".") -> None:
    """Refuse a shallow clone.

    Raises:
        HistoryMissing: ``root`` is shallow; the message names ``fetch-depth: 0``.
    """
    if is_shallow(root):
        raise HistoryMissing("this is a shallow clone: the append-only ledger, the opening registration and --base "
                             "need the full git history, and would see nothing here (fix: check out with "
                             "`fetch-depth: 0` in actions/checkout, or run `git fetch --unshallow`)")
