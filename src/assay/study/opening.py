"""Opening the sealed holdout: one explicit recorded decision, a log of every later read, and the
pre-registration that binds the thresholds to the moment of opening (docs/relevance-study.md,
"Open the sealed holdout, once").

``<root>/opening.json`` is written once by ``assay study open-holdout``: who decided (a
pseudonym), why, when (UTC), and the SHA-256 and values of the thresholds file at that moment;
that hash is the pre-registration. Opening twice is refused. ``<root>/access.log`` gets one JSON
line per read of sealed data after opening (the time, what read it and which file), appended,
never rewritten. Both live under the evidence root, so their times never reach the repository.

:func:`check_preregistration` refuses (exit 2) once the thresholds file no longer has the hash
recorded at opening: thresholds may not change after the holdout is opened, and a different set
needs a new pre-registration before a new holdout is opened. :func:`note_sealed_read` is how every
stage logs its reads of the sealed holdout.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path

from assay.core.errors import AssayError
from assay.core.io import sha256_file, write_json
from assay.study.evidence import ACCESS_LOG, OPENING, SEALED, EvidenceRoot
from assay.study.protocol import PSEUDONYM


class HoldoutRefused(AssayError):
    """The sealed holdout may not be read or opened this way (not opened, opened twice, thresholds changed)."""

    exit_code = 2


def _now(now: dt.datetime | None) -> str:
    return (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC).isoformat(timespec="seconds")


def read_opening(root: EvidenceRoot) -> dict | None:
    """The opening record, or None while the holdout is sealed."""
    path = root.path / OPENING
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise HoldoutRefused(f"{root.show(path)} is not JSON: the opening record is broken; restore it") from None
    if not isinstance(record, dict) or not isinstance(record.get("thresholds_sha256"), str):
        raise HoldoutRefused(f"{root.show(path)} has no thresholds_sha256: the opening record is broken; restore it")
    return record


def open_holdout(root: EvidenceRoot, decided_by: str, reason: str, thresholds: str | Path,
                 now: dt.datetime | None = None, coordinator: str | None = None) -> dict:
    """Record the decision to open the sealed holdout and pre-register the thresholds' hash.

    ``coordinator`` is the study's coordinator pseudonym (``roles.coordinator`` in study.yaml): when
    given, only that pseudonym may decide; an annotator's or the arbiter's is refused.

    Raises:
        HoldoutRefused: already opened (naming when and by whom), a pseudonym that does not look
            like ``ANN-A01``, a pseudonym other than the coordinator's, or an empty reason.
        InputError: the thresholds file is missing or invalid.
    """
    from assay.relevance.thresholds import load_thresholds

    previous = read_opening(root)
    if previous is not None:
        raise HoldoutRefused(f"the sealed holdout was already opened on {previous.get('opened_at')} by "
                             f"{previous.get('decided_by')}; an opening is recorded once")
    if not re.match(PSEUDONYM, decided_by):
        raise HoldoutRefused(f"--decided-by {decided_by!r} is not a pseudonym like ANN-A01: record who decided "
                             "by pseudonym, never by name")
    if coordinator is not None and decided_by != coordinator:
        raise HoldoutRefused(f"--decided-by {decided_by!r} is not the study's coordinator ({coordinator}, roles.coordinator "
                             "in data/relevance/study.yaml): only the coordinator opens the holdout (fix: "
                             f"--decided-by {coordinator})")
    if not reason.strip():
        raise HoldoutRefused("--reason is empty: say why the holdout is opened now (for example, the release "
                             "candidate is frozen)")
    values = {key: {"direction": t.direction, "value": t.value} for key, t in load_thresholds(thresholds).items()}
    record = {"decision": "open the sealed holdout", "decided_by": decided_by, "reason": reason.strip(),
              "opened_at": _now(now), "thresholds_sha256": sha256_file(thresholds), "thresholds": values}
    write_json(root.path / OPENING, record)
    record_access(root, "open-holdout", OPENING, now)
    return record


def record_access(root: EvidenceRoot, what: str, file: str, now: dt.datetime | None = None) -> None:
    """Append one line to ``<root>/access.log``: time, what read sealed data, and the file (relative name)."""
    line = json.dumps({"time": _now(now), "by": what, "file": file}, sort_keys=True)
    with open(root.path / ACCESS_LOG, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def require_open(root: EvidenceRoot, what: str) -> dict:
    """The opening record, or refuse: ``what`` may read sealed data only after an explicit opening.

    Raises:
        HoldoutRefused: the holdout has not been opened.
    """
    record = read_opening(root)
    if record is None:
        raise HoldoutRefused(f"{what}: the sealed holdout has not been opened; opening it is an explicit recorded "
                             "decision: `assay study open-holdout --decided-by PSEUDONYM --reason ...`")
    return record


def check_preregistration(root: EvidenceRoot, thresholds: str | Path) -> dict | None:
    """The opening record when the thresholds file still has the hash recorded at opening; None before opening.

    Raises:
        HoldoutRefused: the thresholds changed after the holdout was opened.
    """
    record = read_opening(root)
    if record is None:
        return None
    if sha256_file(thresholds) != record["thresholds_sha256"]:
        raise HoldoutRefused(f"{thresholds} changed after the sealed holdout was opened on {record.get('opened_at')}: "
                             "thresholds are fixed at opening, so a new pre-registration is needed (restore the "
                             "pre-registered file, or pre-register the new thresholds before opening a new holdout)")
    return record


def sealed_folders(paths: list[Path], root: EvidenceRoot | None) -> list[Path]:
    """The real paths of every ``sealed_holdout`` folder that could hold one of ``paths``.

    Looked for in the evidence root (when set) and in every folder above each path, both as written
    and with symlinks followed: a ``sealed_holdout`` that is a symlink to a folder of another name
    (``sealed_holdout -> vault``) makes ``vault`` sealed too.
    """
    places = {root.path.absolute()} if root is not None else set()
    for p in paths:
        for form in (Path(os.path.abspath(p)), p.resolve()):
            places.update(form.parents)
    return sorted({(place / SEALED).resolve() for place in places if (place / SEALED).is_dir()})


def sealed_name(path: str | Path, folders: list[Path]) -> str | None:
    """``sealed_holdout/<name>`` when ``path`` is sealed-holdout data, else ``None``.

    Sealed means: a ``sealed_holdout`` folder in the path as written or with symlinks followed, or
    the real path inside one of ``folders`` (:func:`sealed_folders`: a folder reached through a
    symlink or under another name is still sealed).
    """
    written, real = Path(os.path.abspath(path)), Path(path).resolve()
    for folder in folders:
        if real == folder or folder in real.parents:
            return Path(SEALED, real.relative_to(folder)).as_posix()
    for form in (written, real):
        if SEALED in form.parts:
            return Path(*form.parts[len(form.parts) - form.parts[::-1].index(SEALED) - 1:]).as_posix()
    return None


def guard_sealed_reads(paths: list[str | Path], what: str, allow_sealed: bool, environ: dict | None = None,
                       require_opening: bool = True) -> EvidenceRoot | None:
    """Refuse or log a command's reads of sealed-holdout files; the evidence root (for redaction) when set.

    A path counts as sealed by :func:`sealed_name`: a ``sealed_holdout`` folder in it as written or
    with symlinks followed, or its real path inside the real folder a ``sealed_holdout`` (of the
    evidence root, or of a folder above it) names, so a sealed folder reached through a symlink or
    renamed is still sealed. Reading one needs ``allow_sealed`` (the command's ``--allow-sealed``),
    ``ASSAY_EVIDENCE_ROOT`` naming the root the file lies under, and a recorded opening
    (:func:`require_open`; ``require_opening=False`` for the protocol's own checks before the
    opening, such as an annotator's completeness check); each read is then appended to
    ``<root>/access.log`` under its ``sealed_holdout/...`` name. Messages show paths as
    ``$ASSAY_EVIDENCE_ROOT/...``, never the root's value.

    Raises:
        HoldoutRefused: a sealed path without ``allow_sealed``, outside the evidence root, or read
            before the opening.
        EvidenceRootError: ``ASSAY_EVIDENCE_ROOT`` is set but names no folder.
    """
    from assay.study.evidence import ENV, EvidenceRootError

    env = os.environ if environ is None else environ
    try:
        root = EvidenceRoot.from_env(env) if env.get(ENV, "").strip() else None
        broken = None
    except EvidenceRootError as error:
        root, broken = None, error
    folders = sealed_folders([Path(p) for p in paths], root)
    sealed = [(Path(p), name) for p in paths if (name := sealed_name(p, folders)) is not None]
    if not sealed:
        return root  # nothing sealed is read: a broken variable is not this command's concern
    if broken is not None:
        raise broken
    first, first_name = sealed[0]
    shown = root.show(first) if root is not None else f"<{SEALED}>/{first.name}"
    if not allow_sealed:
        raise HoldoutRefused(f"{what}: {shown} is sealed-holdout data; reading it is an explicit decision: pass "
                             "--allow-sealed, after `assay study open-holdout` (every read is logged)")
    own = (root.path / SEALED).resolve() if root is not None else None
    if root is None or own is None or any(not (own == p.resolve() or own in p.resolve().parents) for p, _ in sealed):
        raise HoldoutRefused(f"{what}: {shown} lies outside the evidence root, so its opening cannot be checked nor "
                             f"the read logged (fix: set {ENV} to the study's evidence folder, and read the files there)")
    if require_opening:
        require_open(root, what)
    for _, name in sealed:
        record_access(root, what, name)
    return root


def note_sealed_read(root: EvidenceRoot, split: str, what: str, name: str) -> None:
    """Log a read of sealed data once the holdout is open (before opening only the coordinator reads it)."""
    if split == SEALED and read_opening(root) is not None:
        record_access(root, what, f"{split}/{name}")
