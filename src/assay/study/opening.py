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
                 now: dt.datetime | None = None) -> dict:
    """Record the decision to open the sealed holdout and pre-register the thresholds' hash.

    Raises:
        HoldoutRefused: already opened (naming when and by whom), a pseudonym that does not look
            like ``ANN-A01``, or an empty reason.
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


def guard_sealed_reads(paths: list[str | Path], what: str, allow_sealed: bool, environ: dict | None = None,
                       require_opening: bool = True) -> EvidenceRoot | None:
    """Refuse or log a command's reads of sealed-holdout files; the evidence root (for redaction) when set.

    A path counts as sealed when, symlinks followed, it has a ``sealed_holdout`` folder in it. Reading
    one needs ``allow_sealed`` (the command's ``--allow-sealed``), ``ASSAY_EVIDENCE_ROOT`` naming
    the root the file lies under, and a recorded opening (:func:`require_open`; ``require_opening=False``
    for the protocol's own checks before the opening, such as an annotator's completeness check);
    each read is then appended to ``<root>/access.log``. Messages show paths as ``$ASSAY_EVIDENCE_ROOT/...``, never
    the root's value.

    Raises:
        HoldoutRefused: a sealed path without ``allow_sealed``, outside the evidence root, or read
            before the opening.
        EvidenceRootError: ``ASSAY_EVIDENCE_ROOT`` is set but names no folder.
    """
    import os

    from assay.study.evidence import ENV, SEALED, EvidenceRootError

    env = os.environ if environ is None else environ
    sealed = [Path(p).resolve() for p in paths if SEALED in Path(p).resolve().parts]
    try:
        root = EvidenceRoot.from_env(env) if env.get(ENV, "").strip() else None
    except EvidenceRootError:
        if sealed:
            raise
        root = None  # nothing sealed is read: a broken variable is not this command's concern
    if not sealed:
        return root
    shown = root.show(sealed[0]) if root is not None else f"<{SEALED}>/{sealed[0].name}"
    if not allow_sealed:
        raise HoldoutRefused(f"{what}: {shown} is sealed-holdout data; reading it is an explicit decision: pass "
                             "--allow-sealed, after `assay study open-holdout` (every read is logged)")
    base = root.path.resolve() if root is not None else None
    if root is None or base is None or any(base not in p.parents for p in sealed):
        raise HoldoutRefused(f"{what}: {shown} lies outside the evidence root, so its opening cannot be checked nor "
                             f"the read logged (fix: set {ENV} to the study's evidence folder, and read the files there)")
    if require_opening:
        require_open(root, what)
    for p in sealed:
        record_access(root, what, p.relative_to(base).as_posix())
    return root


def note_sealed_read(root: EvidenceRoot, split: str, what: str, name: str) -> None:
    """Log a read of sealed data once the holdout is open (before opening only the coordinator reads it)."""
    if split == SEALED and read_opening(root) is not None:
        record_access(root, what, f"{split}/{name}")
