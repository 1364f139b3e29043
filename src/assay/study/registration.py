"""The opening registered once: the received-evidence lock's opening hash against git history.

The sealed holdout is opened once. The first commit of the lock (:data:`assay.study.received.LOCK`)
whose ``opening`` entry is a hash (not ``absent``) registers it; the working tree's lock must still
hold that hash, or the thresholds could be re-registered by rewriting ``opening.json`` and
re-locking it. Git history is the witness. Read by ``assay verify`` (:mod:`assay.release.verify`),
``assay study verdict`` and the ``study_verdict`` stage (:func:`require_registered_opening`).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from assay.core.history import git_env, require_history
from assay.study.opening import HoldoutRefused
from assay.study.received import LOCK


@dataclass(frozen=True)
class OpeningHistory:
    """What git says about the lock's opening hash.

    ``unavailable`` is why git history could not be read (no ``git`` program, not a work tree), or
    ``""``. ``commit`` and ``registered`` are the first commit holding an opening hash and that
    hash (``None`` when no commit has one: the holdout was never opened in a commit). ``current``
    is the working tree's hash (``None`` when absent).
    """

    rel: str
    unavailable: str = ""
    commit: str | None = None
    registered: str | None = None
    current: str | None = None

    @property
    def changed(self) -> bool:
        """True when an opening was registered and the working tree's lock holds another (or none)."""
        return self.commit is not None and self.current != self.registered

    def problem(self) -> str:
        """The refusal's text: the file, the registering commit and the fix (meaningful when :attr:`changed`)."""
        commit, registered = self.commit or "", self.registered or ""
        return (f"the opening record's hash is {self.current or 'absent'}, but commit {commit[:12]} registered "
                f"{registered[:12]}... when the holdout was opened; an opening is recorded once, so its "
                f"thresholds cannot be re-registered (fix: restore the opening record and the lock, "
                f"`git show {commit[:12]}:{self.rel}`)")


def _opening_of(text: str) -> str | None:
    from assay.core.io import parse_json_line

    data, why = parse_json_line(" ".join(text.split()))
    entry = data.get("opening", {}).get("opening.json") if why is None and isinstance(data, dict) else None
    return entry if isinstance(entry, str) and entry != "absent" else None


def opening_history(root: str | Path = ".", rel: str = LOCK) -> OpeningHistory:
    """The registered opening of the lock ``rel`` under ``root`` and the working tree's (see the module).

    A missing git or repository is not an error: :attr:`OpeningHistory.unavailable` says why. A lock
    git never held, or whose commits all say ``absent``, gives ``commit=None`` (nothing registered).

    Raises:
        HistoryMissing: ``root`` is a shallow clone, whose one commit would register whatever the
            lock holds now (:func:`assay.core.history.require_history`).
    """
    root = Path(root)
    require_history(root, f"the opening registration check of {rel}")
    try:
        log = subprocess.run(["git", "log", "--reverse", "--format=%H", "--", rel], cwd=root, env=git_env(),
                             capture_output=True, text=True)
    except OSError as error:
        return OpeningHistory(rel, unavailable=f"git cannot be run ({error.strerror or error})")
    if log.returncode != 0:
        return OpeningHistory(rel, unavailable=f"git history cannot be read ({log.stderr.strip() or 'git log failed'})")
    for commit in log.stdout.split():
        shown = subprocess.run(["git", "show", f"{commit}:{rel}"], cwd=root, env=git_env(), capture_output=True, text=True)
        first = _opening_of(shown.stdout) if shown.returncode == 0 else None
        if first is None:
            continue
        now = _opening_of((root / rel).read_text(encoding="utf-8")) if (root / rel).is_file() else None
        return OpeningHistory(rel, commit=commit, registered=first, current=now)
    return OpeningHistory(rel)


def require_registered_opening(root: str | Path = ".", rel: str = LOCK) -> str:
    """Refuse when the lock's opening hash differs from the one registered at the first opening.

    Returns ``""`` when the check ran (nothing registered yet, or the same hash), or a note saying
    it could not run because git is unavailable (the caller prints it and goes on as before: the
    thresholds are still checked against the opening record).

    Raises:
        HoldoutRefused: the opening was re-registered (exit 2), naming ``rel`` and the first commit.
        HistoryMissing: ``root`` is a shallow clone (exit 2, naming ``fetch-depth: 0``).
    """
    history = opening_history(root, rel)
    if history.unavailable:
        return (f"(opening history not checked: {history.unavailable}; the thresholds are checked against "
                f"the opening record only)")
    if history.changed:
        raise HoldoutRefused(f"{rel}: {history.problem()}")
    return ""
