"""Recomputing the pipeline from the committed inputs and comparing every committed output with it.

The gate checks that outputs are *fresh* (their recorded input hashes match the inputs), not that
they are *right*: a hand-edited metrics file followed by ``dvc commit -f`` looks fresh.
:func:`verify` closes that hole. It

1. copies the files git tracks (the working-tree version of each; a deleted one is left out) into
   a scratch folder, with the inputs DVC tracks outside git (``dvc add``) copied from the working tree;
2. deletes there every output of the stages it will run, and every tracked file under ``metrics/``
   and ``reports/`` that no stage reads, so nothing committed can stand in for a recomputed file.
   Append-only logs (:data:`APPEND_ONLY`: the holdout ledger) are history, not a function of the
   inputs: they are kept, the recomputed run must add nothing to them, and every row an earlier
   commit held must still be there (:func:`append_only_differences`);
3. runs ``dvc repro --force --single-item`` on every stage, in dependency order, with this Python's
   ``bin`` folder first on ``PATH`` (stage commands call ``python``);
4. compares, byte for byte, every output DVC stores in git (``cache: false``) and every tracked file
   under ``metrics/`` and ``reports/`` with its recomputed version
   (:mod:`assay.release.difference` says how a difference is named).

No API, key or network is needed, and no system under test is called: the replies of the systems
assay calls (:data:`REPLAY_KEPT`, see :mod:`assay.rag.reply_store`) are kept in the scratch copy and
the stages run with ``ASSAY_SYSTEM_REPLAY=only``, so a case without a stored reply fails the
recomputation instead of calling the team's system. With the fake judge the stages that ask it are
recomputed like any other; with a real judge (``judge.kind`` other than ``fake``) the committed
replies of every stage that asks it (``judge`` and ``judge_compare``, :func:`replayed_stages`) are
taken as inputs, since they are what the judge said (calibrate, probe, sensitivity and ppi are
recomputed from them). Outputs kept in the DVC cache (Parquet tables) are recomputed as inputs of
later stages but not compared: git does not hold them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.artifacts.registry import SYSTEM_REPLIES
from assay.core.errors import AssayError
from assay.core.params import load_section
from assay.judge.params import JudgeParams
from assay.judge.replay import ASKING_STAGES
from assay.rag.reply_store import REPLAY_ENV
from assay.release.difference import first_difference
from assay.release.ledger import LEDGER
from assay.release.undeclared import undeclared_detail, undeclared_outputs

COMPARED_FOLDERS = ("metrics", "reports")
#: With ``strict`` (``assay ci``): every tracked file under these is an output, removed before the run and compared.
OUTPUT_FOLDERS = (*COMPARED_FOLDERS, "data/derived")
#: Outputs that are logs: kept in the scratch copy, not recomputed from nothing.
APPEND_ONLY = (LEDGER,)
#: Stored replies of the systems under test: kept in the scratch copy and replayed (never asked again).
REPLAY_KEPT = (SYSTEM_REPLIES.relpath(version="x").rsplit("/", 1)[0],)
TAIL_LINES = 25
#: environment variables kept from the stages ``verify(strict=True)`` runs
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)


class RecomputeFailed(AssayError):
    """The pipeline could not be recomputed in the scratch copy, so nothing can be verified (exit 2)."""

    exit_code = 2


@dataclass(frozen=True)
class Difference:
    """One committed output that does not match its recomputation."""

    path: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"


@dataclass
class Verification:
    """What :func:`verify` found.

    Attributes:
        stages: the stages recomputed, in the order they ran.
        replayed: stages not re-run, whose committed outputs were used as inputs, with the reason.
        compared: every file compared (repository-relative, sorted).
        differences: the files that differ, are missing, or that no stage writes (sorted by path).
        uncommitted: tracked files whose working-tree version differs from HEAD (what was verified
            is the working tree; in CI, run verify on the fresh checkout, before anything rewrites it).
    """

    stages: list[str] = field(default_factory=list)
    replayed: dict[str, str] = field(default_factory=dict)
    compared: list[str] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    uncommitted: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every compared file matches its recomputation."""
        return not self.differences


def _env(strict: bool = False) -> dict[str, str]:
    """The environment for git and dvc in the scratch copy: this Python first on PATH, no GIT_* overrides.

    With ``strict``, no ``PYTHONPATH`` and ``PYTHONSAFEPATH=1``: a stage's ``python -m assay.stages.X``
    does not put the scratch copy first on ``sys.path``, so a committed ``assay/`` folder (or
    ``numpy.py``) cannot stand in for the installed library; and no variable whose name looks like a
    secret (:data:`SECRET_NAME`), so no stage of the change can send the judge's key anywhere
    (recomputation replays stored replies and needs none).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["DVC_NO_ANALYTICS"] = "1"
    env[REPLAY_ENV] = "only"  # the stages replay the systems' stored replies; none is called
    if strict:
        env = {k: v for k, v in env.items() if k != "PYTHONPATH" and not SECRET_NAME.search(k)}
        env["PYTHONSAFEPATH"] = "1"
    return env


def _dvc() -> str:
    return shutil.which("dvc", path=_env()["PATH"]) or str(Path(sys.executable).parent / "dvc")


def tracked_files(root: Path) -> list[str]:
    """Paths git tracks under ``root`` (the index, so a file added but not yet committed counts).

    Raises:
        RecomputeFailed: ``root`` is not inside a git work tree.
    """
    proc = subprocess.run(["git", "ls-files", "-z"], cwd=root, env=_env(), capture_output=True)
    if proc.returncode != 0:
        raise RecomputeFailed(f"verify: {root} is not a git work tree ({proc.stderr.decode(errors='replace').strip()}) "
                              "(fix: run assay verify in the repository)")
    return sorted(p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p)


def append_only_differences(root: Path, rel: str = LEDGER) -> list[Difference]:
    """One Difference per row of ``rel`` that some earlier commit held and the working tree no longer does.

    Every commit of HEAD's history that touched ``rel`` is read (``git log`` and ``git show``); a row
    it held that the current file lacks was deleted or rewritten, and is named with that commit.
    A file git never held, or a git history that cannot be read, gives ``[]`` (the comparison of
    outputs still runs).

    Raises:
        HistoryMissing: ``root`` is a shallow clone, whose one commit would show no row lost.
    """
    from assay.core.history import require_history
    from assay.core.io import parse_json_line
    from assay.release.ledger import lost_rows, read_ledger, row_key

    require_history(root, f"the append-only check of {rel}")
    log = subprocess.run(["git", "log", "--format=%H", "--", rel], cwd=root, env=_env(), capture_output=True, text=True)
    if log.returncode != 0:
        return []
    try:
        now = read_ledger(root / rel)
    except AssayError as error:
        return [Difference(rel, f"cannot be read ({error}); it is append-only (fix: restore it from git)")]
    lost: dict[str, str] = {}  # row -> the newest commit that still held it
    for commit in log.stdout.split():
        shown = subprocess.run(["git", "show", f"{commit}:{rel}"], cwd=root, env=_env(), capture_output=True, text=True)
        if shown.returncode != 0:
            continue  # the commit deleted the file
        parsed = [parse_json_line(line) for line in shown.stdout.splitlines() if line.strip()]
        rows = [row for row, why in parsed if why is None and isinstance(row, dict)]
        for row in lost_rows(rows, now):
            lost.setdefault(row_key(row), commit)
    return [Difference(rel, f"row {key} of commit {commit[:12]} is gone; the holdout ledger is append-only, so every "
                            f"look stays counted (fix: restore it, `git show {commit[:12]}:{rel}`)")
            for key, commit in sorted(lost.items(), key=lambda kv: kv[0])]


def opening_differences(root: Path, rel: str = "data/relevance/received.json") -> list[Difference]:
    """A Difference when the opening hash in the received-evidence lock differs from the first one git recorded.

    The check is :func:`assay.study.registration.opening_history` (shared with the verdict). ``[]``
    when the holdout was never opened in a commit, or without git (no program, not a work tree).

    Raises:
        HistoryMissing: ``root`` is a shallow clone.
    """
    from assay.study.registration import opening_history

    history = opening_history(root, rel)
    return [Difference(rel, history.problem())] if history.changed else []


def uncommitted_files(root: Path) -> list[str]:
    """Tracked files whose working-tree version differs from HEAD (all of them before the first commit)."""
    proc = subprocess.run(["git", "status", "--porcelain", "-z", "--untracked-files=no"], cwd=root, env=_env(),
                          capture_output=True)
    entries = iter(proc.stdout.decode("utf-8", "surrogateescape").split("\0") if proc.returncode == 0 else [])
    paths = []
    for entry in entries:  # "XY path"; a rename or copy is followed by its source path
        if len(entry) > 3:
            paths.append(entry[3:])
            if "R" in entry[:2] or "C" in entry[:2]:
                next(entries, None)
    return sorted(paths)


def _copy(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir() and not src.is_symlink():
        shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)
    else:
        shutil.copy2(src, dest, follow_symlinks=False)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def replayed_stages(root: Path) -> dict[str, str]:
    """Stages whose committed outputs are inputs to verification, with the reason.

    Every stage that asks the judge (:data:`assay.judge.replay.ASKING_STAGES`: ``judge`` and
    ``judge_compare``), unless the configured judge is the deterministic fake (or there is no
    params.yaml, or no ``judge`` section: a project without the judge part). The stages after them
    replay the stored replies, so verification needs no key and sends no request; a stored reply
    missing for the current inputs fails the replaying stage, naming the case. A stage the pipeline
    does not have is ignored.
    """
    from assay.core.io import read_yaml

    params_file = root / "params.yaml"
    if not params_file.is_file() or "judge" not in (read_yaml(params_file) or {}):
        return {}
    params = load_section("judge", JudgeParams, params_file)
    if params.kind == "fake":
        return {}
    return {stage: f"judge.kind {params.kind}: its replies are what the judge said, taken as committed"
            for stage in ASKING_STAGES}


@dataclass(frozen=True)
class _Plan:
    order: list[str]            # stages to run, dependencies first
    skipped: list[str]          # stages not run (their committed outputs are inputs)
    deps: set[str]              # every path a stage reads
    run_outs: list[str]         # outputs of the stages to run
    git_outs: list[str]         # outputs stored in git (cache: false), of every stage
    sources: list[str]          # outputs of `dvc add` files: inputs outside git


def _plan(scratch: Path, skip: set[str]) -> _Plan:
    """Stage order and outputs from DVC's own view of the pipeline in ``scratch``."""
    import networkx as nx
    from dvc.repo import Repo

    with Repo(str(scratch)) as repo, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # DVC's own, about its trie library
        graph = repo.index.graph  # edges point from a stage to the stages it depends on

        def rel(path: str) -> str:
            return Path(os.path.relpath(path, repo.root_dir)).as_posix()

        def address(stage: Any) -> str:  # a dvc.stage.Stage (DVC ships no types)  # what `dvc repro` run in the scratch root accepts
            name = getattr(stage, "name", None)
            if not name:
                return rel(stage.path)
            return name if rel(stage.path) == "dvc.yaml" else f"{rel(stage.path)}:{name}"

        stages = list(nx.lexicographical_topological_sort(graph.reverse(), key=address))
        run = [s for s in stages if not s.is_data_source and address(s) not in skip]
        return _Plan(order=[address(s) for s in run],
                     skipped=sorted(address(s) for s in stages if address(s) in skip),
                     deps={rel(d.fs_path) for s in stages for d in s.deps},
                     run_outs=[rel(o.fs_path) for s in run for o in s.outs],
                     git_outs=[rel(o.fs_path) for s in stages if not s.is_data_source for o in s.outs if not o.use_cache],
                     sources=[rel(o.fs_path) for s in stages if s.is_data_source for o in s.outs])


def _files_under(base: Path, rel: str) -> set[str]:
    top = base / rel
    if top.is_dir():
        return {p.relative_to(base).as_posix() for p in top.rglob("*") if p.is_file()}
    return {rel} if top.is_file() else set()


def _under(path: str, folders: tuple[str, ...] | list[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _git_init(scratch: Path) -> None:
    proc = subprocess.run(["git", "init", "-q"], cwd=scratch, env=_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RecomputeFailed(f"verify: git init failed in the scratch copy: {proc.stderr.strip()}")


def _reproduce(scratch: Path, order: list[str], strict: bool = False) -> None:
    proc = subprocess.run([_dvc(), "repro", "--force", "--single-item", *order], cwd=scratch, env=_env(strict),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-TAIL_LINES:])
        raise RecomputeFailed(f"verify: `dvc repro` failed in the scratch copy, so the committed outputs cannot be "
                              f"checked against their inputs:\n{tail}\n(fix: run `dvc repro` here, fix what fails, "
                              "and commit the inputs and outputs)")


def verify(root: str | Path = ".", scratch: str | Path | None = None, strict: bool = False) -> Verification:
    """Recompute every stage from the committed inputs in a scratch copy and compare the outputs.

    Args:
        root: the repository (its working tree is what gets copied; run it on a clean checkout in CI).
        scratch: an empty or absent folder to work in, kept afterwards; ``None`` uses a temporary
            folder that is deleted.
        strict: what ``assay ci`` asks: every tracked file under :data:`OUTPUT_FOLDERS` is removed
            before the run whether or not a stage lists it as a dependency (only the outputs of
            replayed stages and :data:`APPEND_ONLY` logs stay), and all of them are compared; a
            stage that reads a removed file no stage writes then fails the run. Stages run with
            :func:`_env` ``(strict=True)``.

    Returns:
        A :class:`Verification`; ``ok`` only when every compared file matches. A tracked file under
        metrics/ or reports/ that no stage declares any more is a difference named by the check
        ``assay gate`` runs (:func:`assay.release.undeclared.undeclared_outputs`).

    Raises:
        RecomputeFailed: not a git work tree, or a stage failed in the scratch copy (the message
            ends with dvc's last lines).
        HistoryMissing: ``root`` is a shallow clone: the append-only ledger and the opening
            registration read earlier commits (refused before anything is recomputed).
        InputError: params.yaml has a bad ``judge`` section.
    """
    from assay.core.history import require_history

    root = Path(root).resolve()
    tracked = tracked_files(root)
    require_history(root, "the check of the append-only ledger and the opening registration")  # before minutes of work
    skip = replayed_stages(root)
    if scratch is None:
        with tempfile.TemporaryDirectory(prefix="assay-verify-") as tmp:
            return _verify(root, Path(tmp), tracked, skip, strict)
    folder = Path(scratch).resolve()
    if folder.exists() and any(folder.iterdir()):
        raise RecomputeFailed(f"verify: scratch folder {folder} is not empty (fix: give an empty or new folder)")
    return _verify(root, folder, tracked, skip, strict)


def _compare_file(root: Path, scratch: Path, rel: str, tracked: set[str]) -> Difference | None:
    """How the committed ``rel`` differs from the one recomputed in ``scratch``; ``None`` when byte-identical."""
    committed, recomputed = root / rel, scratch / rel
    if rel not in tracked or not committed.is_file():
        what = "not committed to git" if rel not in tracked else "deleted from the working tree"
        return Difference(rel, f"committed file missing ({what}); the pipeline writes it "
                               "(fix: run `dvc repro` and commit its outputs)")
    if not recomputed.is_file():
        return Difference(rel, "no stage writes this file, so nothing vouches for it "
                               "(fix: delete it, or make it a stage output)")
    if (detail := first_difference(rel, committed.read_bytes(), recomputed.read_bytes())) is not None:
        return Difference(rel, detail)
    return None


def _outputs_to_remove(tracked: list[str], plan: _Plan, strict: bool) -> list[str]:
    """What is deleted in the scratch copy before the run (see :func:`verify`): never the
    :data:`APPEND_ONLY` logs nor the systems' stored replies (:data:`REPLAY_KEPT`), which are replayed."""
    skipped_outs = [o for o in plan.git_outs if o not in plan.run_outs]
    if strict:
        stray = [t for t in tracked if _under(t, OUTPUT_FOLDERS) and not _under(t, skipped_outs)
                 and Path(t).name != ".gitignore"]
    else:
        stray = [t for t in tracked if _under(t, COMPARED_FOLDERS) and t not in plan.deps and not _under(t, skipped_outs)]
    return [rel for rel in plan.run_outs + stray if rel not in APPEND_ONLY and not _under(rel, REPLAY_KEPT)]


def _verify(root: Path, scratch: Path, tracked: list[str], skip: dict[str, str], strict: bool = False) -> Verification:
    for rel in tracked:
        if (root / rel).exists() or (root / rel).is_symlink():
            _copy(root / rel, scratch / rel)
    _git_init(scratch)  # DVC wants a git work tree (it need not have a commit)
    plan = _plan(scratch, set(skip))
    for rel in plan.sources:  # `dvc add`-ed inputs live outside git
        if (root / rel).exists():
            _copy(root / rel, scratch / rel)
    for rel in _outputs_to_remove(tracked, plan, strict):
        _remove(scratch / rel)
    _reproduce(scratch, plan.order, strict)

    tracked_set = set(tracked)
    folders = OUTPUT_FOLDERS if strict else COMPARED_FOLDERS
    names: set[str] = {t for t in tracked if _under(t, folders) and not (strict and Path(t).name == ".gitignore")}
    for out in plan.git_outs:
        names |= {t for t in tracked if _under(t, [out])} | _files_under(scratch, out)
    result = Verification(stages=plan.order, replayed={s: skip[s] for s in plan.skipped}, compared=sorted(names),
                          uncommitted=uncommitted_files(root))
    left = set(undeclared_outputs(root, tracked))  # the gate's check: no stage writes or reads them
    for rel in result.compared:
        if rel in left:
            result.differences.append(Difference(rel, undeclared_detail(rel)))
        elif (found := _compare_file(root, scratch, rel, tracked_set)) is not None:
            result.differences.append(found)
    for rel in APPEND_ONLY:
        result.differences += append_only_differences(root, rel)
    result.differences += opening_differences(root)
    result.differences.sort(key=lambda d: d.path)
    return result
