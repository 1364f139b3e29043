"""The record `assay verify` leaves in the workspace, so the gate in CI passes only what was recomputed.

The gate checks that outputs are fresh; only ``assay verify`` shows they are what the inputs give.
When every committed output matches its recomputation, verify writes :data:`WITNESS`
(``.assay/verified.json``, ignored by git, never committed) holding :func:`workspace_key`: the
SHA-256 over the path and bytes of every file git tracks, as the working tree has them. Under
``CI=true`` the gate refuses to *pass* (exit 2, not 0) unless that record exists and its key is
the workspace's key now, so the same inputs and outputs were recomputed in this very workspace.
A failing gate stays a failure (exit 1) either way: refusing a failure needs no proof.

What it cannot prove: that verify ran on a clean checkout (it reports files that differ from HEAD),
or anything about files git does not track (the DVC cache; a real judge's replies are committed
and replayed, not re-asked).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from assay.core.io import sha256_file, write_json

WITNESS = ".assay/verified.json"


def workspace_key(root: str | Path = ".") -> str:
    """SHA-256 over ``path NUL sha256`` of every file git tracks under ``root`` (``deleted`` for one that is gone), sorted.

    Raises:
        RecomputeFailed: ``root`` is not a git work tree.
    """
    from assay.release.verify import tracked_files

    base = Path(root)
    h = hashlib.sha256()
    for rel in tracked_files(base):
        path = base / rel
        digest = sha256_file(path) if path.is_file() else "deleted"
        h.update(f"{rel}\0{digest}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def write_witness(root: str | Path, key: str, stages: list[str], compared: int) -> None:
    """Record that the workspace with ``key`` was verified (``stages`` recomputed, ``compared`` files matched)."""
    write_json(Path(root) / WITNESS, {"workspace": key, "stages": stages, "compared": compared})


def witness_problem(root: str | Path = ".") -> str | None:
    """Why the workspace at ``root`` has no valid verify record (missing, unreadable, another workspace), else ``None``."""
    path = Path(root) / WITNESS
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"{WITNESS} not found: `assay verify` has not recomputed the committed outputs in this workspace"
    except (OSError, ValueError):
        return f"{WITNESS} cannot be read"
    if not isinstance(record, dict) or record.get("workspace") != workspace_key(root):
        return (f"{WITNESS} was written for other files: something tracked changed after `assay verify` ran "
                "(or the record was copied from elsewhere)")
    return None
