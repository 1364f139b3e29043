"""The received-evidence lock, and the checks a study stage runs on every evidence file it reads.

DVC cannot hash files outside the repository, so the files people hand in under the evidence root
stand in the repository as one committed lock, :data:`LOCK` (``data/relevance/received.json``),
like a ``.dvc`` file of ``dvc add``: for every received file, its path relative to the root and its
SHA-256, or ``"absent"`` when it has not been handed in. Nothing else: no root, no content. Entries
are grouped by kind (:data:`GROUPS`), so a stage depends (as DVC params) on the groups it reads
only::

    {"decisions": {"development/decisions.jsonl": "<sha256>", ...},
     "inputs": {},                                   # corpus/queries the study file puts under the root
     "judgments": {"development/judgments_A.jsonl": "<sha256>", ...},
     "opening": {"opening.json": "<sha256>"}}

``assay study intake`` rewrites the lock from the files as they are (:func:`take_in`);
``--check`` lists the files that differ (:func:`lock_differences`). A stage verifies, before it
runs, every received file it reads against the lock (:func:`require_received`; fix: run the
intake, then ``dvc repro``) and every file an earlier stage wrote under the root against the
SHA-256 in that stage's record under ``reports/relevance/study/`` (:func:`require_produced`; fix:
``dvc repro -f -s <stage>``). Every message names files as ``$ASSAY_EVIDENCE_ROOT/<path>``.

Edge cases: a missing or unreadable lock is an :class:`EvidenceChanged` naming the intake as the
fix; a file the lock records as absent must still be absent; a name the lock does not list at all
counts as changed; a record that is missing or does not list a file is a mismatch whose fix is to
re-run the stage that writes it. Study paths under the root (``$ASSAY_EVIDENCE_ROOT/queries.jsonl``)
are locked in ``inputs``; paths in the repository are not (DVC hashes those itself).
"""

from __future__ import annotations

import json
from pathlib import Path

from assay.core.errors import InputError, Problem
from assay.core.io import sha256_file, write_json
from assay.study.evidence import ANNOTATORS, OPENING, SPLITS, EvidenceRoot, judgments_name
from assay.study.formats import REPORTS
from assay.study.protocol import ROOT_PREFIX, Study

LOCK = "data/relevance/received.json"
ABSENT = "absent"
GROUPS = ("decisions", "inputs", "judgments", "opening")
INTAKE_FIX = "run `assay study intake`, then `dvc repro`"
#: the stage that writes each record (records are named after their stage, but for the evaluation)
RECORD_STAGE = {"evaluation": "study_evaluate"}


class EvidenceChanged(InputError):
    """An evidence file under the root no longer matches the lock or the record that stands for it."""

    exit_code = 2


def per_split(*names: str) -> list[str]:
    """``names`` in every split folder, as paths relative to the root.

    >>> per_split("pool.jsonl")
    ['development/pool.jsonl', 'sealed_holdout/pool.jsonl']
    """
    return [f"{split}/{name}" for split in SPLITS for name in names]


def received_names(study: Study) -> dict[str, list[str]]:
    """``{group: [relative path, ...]}`` of every file people hand in under the root, for :data:`LOCK`."""
    under_root = [value[len(ROOT_PREFIX):] for value in (study.corpus, study.queries) if value.startswith(ROOT_PREFIX)]
    return {"decisions": per_split("decisions.jsonl"), "inputs": sorted(set(under_root)),
            "judgments": per_split(*(judgments_name(a) for a in ANNOTATORS)), "opening": ["opening.json"]}


def digest(root: EvidenceRoot, name: str) -> str:
    """SHA-256 of ``<root>/<name>``, or :data:`ABSENT` when it is not a file."""
    path = root.path / name
    return sha256_file(path) if path.is_file() else ABSENT


def current_lock(study: Study, root: EvidenceRoot) -> dict[str, dict[str, str]]:
    """The lock as the received files are now (what :func:`take_in` writes)."""
    return {group: {name: digest(root, name) for name in sorted(names)}
            for group, names in received_names(study).items()}


def read_lock(path: str | Path = LOCK) -> dict[str, dict[str, str]]:
    """The committed lock.

    Raises:
        EvidenceChanged: the lock is missing, not JSON, or not ``{group: {path: sha256}}``.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvidenceChanged([Problem(str(path), None, None, "not found: no received evidence is locked yet",
                                       INTAKE_FIX)]) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise EvidenceChanged([Problem(str(path), None, None, f"unreadable ({type(error).__name__})",
                                       INTAKE_FIX)]) from None
    if not (isinstance(data, dict) and all(isinstance(v, dict) for v in data.values())):
        raise EvidenceChanged([Problem(str(path), None, None, "expected {group: {path: sha256}}", INTAKE_FIX)])
    return data


def _flat(lock: dict[str, dict[str, str]]) -> dict[str, str]:
    return {name: value for entries in lock.values() for name, value in entries.items()}


def lock_differences(locked: dict, now: dict) -> list[str]:
    """Relative paths whose entry differs between two locks (added, removed or changed), sorted.

    >>> lock_differences({"judgments": {"a": "1", "b": "2"}}, {"judgments": {"a": "1", "b": "3", "c": "absent"}})
    ['b', 'c']
    """
    old, new = _flat(locked), _flat(now)
    return sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))


def take_in(study: Study, root: EvidenceRoot, path: str | Path = LOCK) -> tuple[dict, list[str]]:
    """Rewrite the lock from the received files as they are now; return it and the paths that changed.

    A missing or broken previous lock counts as empty (every path is reported as changed).
    The file is written with sorted keys, so the same files give the same bytes.

    Opening is once: when the previous lock holds the opening record's hash, an opening record
    that now differs (or is gone) is refused and nothing is written, since a rewritten
    ``opening.json`` would re-register other thresholds after the holdout was seen.

    Raises:
        EvidenceChanged: the locked opening record changed or is gone (exit 2).
    """
    try:
        before = read_lock(path)
    except EvidenceChanged:
        before = {}
    now = current_lock(study, root)
    locked_opening = before.get("opening", {}).get(OPENING, ABSENT)
    if locked_opening != ABSENT and now.get("opening", {}).get(OPENING) != locked_opening:
        raise EvidenceChanged([Problem(root.show(root.path / OPENING), None, None,
                                       f"differs from the opening locked in {path} (sha256 {locked_opening[:12]}...): the "
                                       "holdout is opened once and its pre-registered thresholds are fixed then, so a "
                                       "rewritten opening record is refused and nothing was written",
                                       f"restore the opening record; its locked hash is in {path} and in git history")])
    write_json(path, now)
    return now, lock_differences(before, now)


def update_entry(root: EvidenceRoot, group: str, name: str, path: str | Path = LOCK) -> bool:
    """Set one entry of an existing lock to the file as it is now; False (nothing written) when there is no lock."""
    try:
        lock = read_lock(path)
    except EvidenceChanged:
        return False
    lock.setdefault(group, {})[name] = digest(root, name)
    write_json(path, lock)
    return True


def _why(locked: str | None, now: str, what: str) -> str:
    if locked is None:
        return f"is not listed in {what}"
    if now == ABSENT:
        return f"is missing, but {what} records its SHA-256"
    if locked == ABSENT:
        return f"exists, but {what} records it as absent"
    return f"differs from the SHA-256 in {what}"


def require_received(study: Study, root: EvidenceRoot, groups: tuple[str, ...], path: str | Path = LOCK) -> None:
    """Check every received file of ``groups`` (the study's names) against the lock; a stage calls this before reading.

    Raises:
        EvidenceChanged: one problem per file that differs or that the lock does not list, named
            ``$ASSAY_EVIDENCE_ROOT/<path>``, with the fix: run the intake, then ``dvc repro``.
    """
    lock = read_lock(path)
    expected = received_names(study)
    problems = []
    for group in groups:
        for name in expected[group]:
            locked, now = lock.get(group, {}).get(name), digest(root, name)
            if now != locked:
                problems.append(Problem(root.show(root.path / name), None, None, _why(locked, now, str(path)),
                                        INTAKE_FIX))
    if problems:
        raise EvidenceChanged(sorted(problems, key=lambda p: p.path))


def require_produced(root: EvidenceRoot, produced: dict[str, list[str]], records: str | Path = REPORTS) -> None:
    """Check files earlier stages wrote under the root against their records: ``{record: [relative path]}``.

    ``record`` names ``<records>/<record>.json``, whose ``evidence`` maps relative paths to SHA-256
    (``null`` for a file that was absent).

    Raises:
        EvidenceChanged: one problem per file that differs or record that is missing, with the fix
            ``dvc repro -f -s <stage>`` (the stage that wrote it).
    """
    problems = []
    for record, names in produced.items():
        stage = RECORD_STAGE.get(record, f"study_{record}")
        fix = f"write it again: `dvc repro -f -s {stage}`"
        shown = f"{Path(records).as_posix()}/{record}.json"
        try:
            evidence = json.loads(Path(shown).read_text(encoding="utf-8")).get("evidence", {})
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            problems.append(Problem(shown, None, None, "missing or unreadable", fix))
            continue
        for name in names:
            locked = (evidence[name] or ABSENT) if name in evidence else None
            now = digest(root, name)
            if now != locked:
                problems.append(Problem(root.show(root.path / name), None, None, _why(locked, now, shown), fix))
    if problems:
        raise EvidenceChanged(sorted(problems, key=lambda p: p.path))
