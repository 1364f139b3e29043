"""Outputs that no stage declares any more: files left behind under ``metrics/`` and ``reports/``.

Renaming a RAG version leaves ``metrics/rag/<old>.json``, its report and its provenance; replacing a
review snapshot leaves ``metrics/review/<old>.json``. DVC never deletes a file it no longer tracks,
so ``dvc repro`` and ``dvc status`` stay green, and only a recomputation from scratch (``assay
verify`` in CI) finds that nothing writes them. :func:`undeclared_outputs` finds them from the
pipeline's own declaration (DVC's view of dvc.yaml, ``foreach`` expanded), so ``assay gate`` reports
them on the laptop first (exit 2) and ``assay verify`` names each with the same check.
"""

from __future__ import annotations

import os
import shlex
import warnings
from collections.abc import Iterable
from pathlib import Path

#: the folders whose files must each be written (or read) by a stage
OUTPUT_FOLDERS = ("metrics", "reports")


def _under(path: str, folders: Iterable[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def declared_paths(root: str | Path) -> tuple[set[str], set[str]]:
    """Every output and every dependency of the stages of ``root``'s dvc.yaml, repository-relative.

    Raises:
        dvc's own errors when dvc.yaml does not parse (the caller reports them).
    """
    from dvc.repo import Repo

    base = Path(root).resolve()
    with Repo(str(base), uninitialized=True) as repo, warnings.catch_warnings():  # dvc.yaml alone suffices
        warnings.simplefilter("ignore", DeprecationWarning)  # DVC's own, about its trie library

        def rel(path: str) -> str:
            return Path(os.path.relpath(path, base)).as_posix()

        stages = list(repo.index.stages)
        return ({rel(o.fs_path) for s in stages for o in s.outs}, {rel(d.fs_path) for s in stages for d in s.deps})


def undeclared_outputs(root: str | Path, files: Iterable[str] | None = None) -> list[str]:
    """Files under :data:`OUTPUT_FOLDERS` that no stage writes (as an output or inside an output
    folder) or reads, sorted; ``[]`` without a dvc.yaml.

    ``files``: the repository-relative files to consider (``assay verify`` passes what git tracks);
    ``None``: every file on disk under those folders, committed or not.
    """
    base = Path(root)
    if not (base / "dvc.yaml").is_file():
        return []
    if files is None:
        files = [p.relative_to(base).as_posix() for top in OUTPUT_FOLDERS if (base / top).is_dir()
                 for p in (base / top).rglob("*") if p.is_file() or p.is_symlink()]
    outs, deps = declared_paths(base)
    return sorted(f for f in files if _under(f, OUTPUT_FOLDERS) and not _under(f, outs) and f not in deps)


def undeclared_detail(rel: str) -> str:
    """What ``assay verify`` says of one such file, with the command that deletes it.

    >>> undeclared_detail("metrics/review/demo.json").split("(fix: ")[1]
    'delete it, `git rm -q -- metrics/review/demo.json`, and commit)'
    """
    return (f"no stage in dvc.yaml writes this file any more, so nothing vouches for it (fix: delete it, "
            f"`git rm -q -- {shlex.quote(rel)}`, and commit)")


def undeclared_message(files: list[str]) -> str:
    """The problem and its fix, naming every file and the command that deletes them.

    >>> undeclared_message(["metrics/rag/mine.json", "reports/a b.md"]).split("refuse them): ")[1]
    "metrics/rag/mine.json, reports/a b.md (fix: delete them, `rm -f -- metrics/rag/mine.json 'reports/a b.md'`, and commit the deletion)"
    """
    shown = ", ".join(files)
    return (f"{len(files)} file(s) under metrics/ or reports/ that no stage in dvc.yaml writes any more (left by a "
            f"renamed version or a replaced snapshot; CI's recomputation would refuse them): {shown} (fix: delete them, "
            f"`rm -f -- {shlex.join(files)}`, and commit the deletion)")
