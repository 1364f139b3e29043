"""Whether the git history the checks read is all there: a shallow clone is refused, not passed.

Four checks read earlier commits: the append-only holdout ledger
(:func:`assay.release.verify.append_only_differences`), the opening registration
(:func:`assay.study.registration.opening_history`, read by ``assay verify``, ``assay study verdict``
and the ``study_verdict`` stage) and ``assay ci --base`` (:mod:`assay.release.policy`). In a shallow
clone (``actions/checkout``'s default ``fetch-depth: 1``) they would see one commit, find nothing
deleted or re-registered, and pass; each calls :func:`require_history` first, which refuses instead
(exit 2), naming the fix. A folder that is not a git work tree, or a machine without git, is not
shallow: those checks say for themselves that history could not be read.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from assay.core.errors import AssayError

#: what the refusal names as the fix; also in docs/ci.md
HISTORY_CHECKS = "the history check (append-only ledger, opening registration, --base)"
FIX = "check out with `fetch-depth: 0` in actions/checkout, or run `git fetch --unshallow`"


class HistoryMissing(AssayError):
    """The repository is a shallow clone, so the checks that read history cannot pass (exit 2)."""

    exit_code = 2


def git_env() -> dict[str, str]:
    """The environment for git: this one without ``GIT_*`` variables, so the repository is the one at ``cwd``."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def is_shallow(root: str | Path = ".") -> bool:
    """True when ``root`` is inside a shallow git clone.

    False for a full clone, for a folder outside any git work tree, and when git cannot be run
    (the history checks then report for themselves that history is unavailable).
    """
    try:
        proc = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=root, env=git_env(),
                              capture_output=True, text=True)
    except OSError:
        return False
    return proc.returncode == 0 and proc.stdout.strip() == "true"


def require_history(root: str | Path = ".", what: str = HISTORY_CHECKS) -> None:
    """Refuse a shallow clone, before any check reads history there.

    Args:
        root: a folder inside the repository.
        what: the check that reads history, for the message.

    Raises:
        HistoryMissing: ``root`` is shallow; the message names ``fetch-depth: 0``.
    """
    if is_shallow(root):
        raise HistoryMissing(f"this is a shallow clone: {what} reads earlier commits, which are not here, so it "
                             f"would find nothing wrong and pass (fix: {FIX})")
