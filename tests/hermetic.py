"""Running each DVC stage of a reproduced project alone, in a folder holding only what the stage declares.

For one stage (as the real DVC resolves it from dvc.yaml: ``foreach`` expanded, ``${...}`` filled)
:func:`check_stage` builds a scratch folder with

- every declared dependency (a folder as DVC sees it, less what ``.dvcignore`` leaves out),
- every declared params file holding only the declared keys (a whole file when the stage lists no
  key, or when the file is also a dependency),
- every declared output marked ``persist: true`` as it stands, since DVC leaves those in place
  before a stage runs (the holdout ledger and the reply stores are read back on purpose),

and nothing else: no ``.dvc``, no ``.git``, no other stage's outputs. It then runs the stage's ``cmd``
there, under the environment's ``python`` with an audit hook (:data:`AUDIT`) that logs every path
the stage opens, lists, renames or removes, and every ``os.stat`` that finds nothing, and compares every declared output with the project's,
byte for byte.

What it finds, per stage (:class:`StageCheck`):

- ``undeclared``: project files the stage opened or listed that it does not declare (a file that is
  absent from the scratch folder is listed too: the open is logged before it fails);
- ``escaped``: paths it touched in the original project instead of its own folder;
- ``differing``: declared outputs whose bytes differ from the project's (or that are missing), which
  is how a read the hook cannot see shows: a file that only ``os.stat`` looks at, or one a C library
  (pyarrow) opens;
- ``unwritten``: persisted outputs the stage did not rewrite (kept only because DVC keeps them);
- ``stray``: files it left in the folder that no output declares.

Edge cases: a path the stage looks for that the project lacks too (``requirements.txt`` in assay's
own repository, which pins nothing) is not reported; a key of a params file the stage reads without declaring is found only when its value
differs from the model's default (the scratch file lacks it, so the default is read); a stage that
fails prints its stderr into ``failure``. The audit hook sees Python's file access only (``open``,
``io.open_code``, ``os.listdir``, ``os.scandir``, ``os.rename``, ``os.remove``, and ``os.stat`` as
``os.path.exists`` and ``pathlib`` call it), not what a C library such as pyarrow opens itself.
"""

from __future__ import annotations

import filecmp
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

BIN = Path(sys.executable).parent

#: Run by ``python -c`` in place of ``python``: log file access under the scratch folder (and under
#: the original project, named by ``HERMETIC_PROJECT``) to ``HERMETIC_LOG`` at exit, then run the
#: stage as ``python SCRIPT ARGS`` or ``python -m MODULE ARGS`` would.
AUDIT = r"""
import atexit, json, os, runpy, sys
_log, _roots, _seen, _on = os.environ["HERMETIC_LOG"], (os.getcwd(), os.environ["HERMETIC_PROJECT"]), set(), [True]
_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

def _keep(kind, path):
    if isinstance(path, int) or path is None:
        return
    path = os.path.abspath(os.fsdecode(path))
    if "__editable__" in path:  # setuptools' editable-install path hook, a name on sys.path, not a file
        return
    if any(path == r or path.startswith(r + os.sep) for r in _roots):
        _seen.add((kind, path))

def _hook(event, args):
    if not _on[0]:
        return
    if event == "open":
        mode, flags = args[1], args[2]
        write = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & _WRITE)
        _keep("write" if write else "read", args[0])
    elif event in ("os.listdir", "os.scandir"):
        _keep("list", args[0] if args[0] is not None else ".")
    elif event == "os.rename":
        _keep("moved", args[0]); _keep("write", args[1])
    elif event == "os.remove":
        _keep("removed", args[0])

def _dump():
    _on[0] = False
    with open(_log, "w", encoding="utf-8") as f:
        json.dump(sorted(_seen), f)

_stat = os.stat

def _stat_logged(path, *args, **kwargs):  # no audit event: a stat that finds nothing is a look for a file
    try:
        return _stat(path, *args, **kwargs)
    except FileNotFoundError:
        callers = (sys._getframe(1).f_code, sys._getframe(2).f_code)
        if _on[0] and not any(c.co_name == "resolve" and c.co_filename.endswith("pathlib.py") for c in callers):
            _keep("read", path)  # Path.resolve stats the path it resolves: resolving is not reading
        raise

os.stat = _stat_logged
atexit.register(_dump)
sys.addaudithook(_hook)
if sys.argv[1] == "-m":
    sys.argv = sys.argv[2:]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
    runpy.run_path(sys.argv[0], run_name="__main__")
"""


@dataclass
class Declared:
    """What one stage declares, as repository-relative POSIX paths."""

    name: str
    cmd: str
    deps: list[str]
    params: dict[str, list[str]]
    outs: list[str]
    persist: list[str]


@dataclass
class StageCheck:
    """One stage's run in its scratch folder (see the module docstring for each list)."""

    name: str
    failure: str | None = None
    undeclared: list[str] = field(default_factory=list)
    escaped: list[str] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """One line per finding, each naming the stage; empty when the stage is hermetic."""
        lines = [f"{self.name}: failed in its scratch folder: {self.failure}"] if self.failure else []
        for label, paths in (("reads undeclared", self.undeclared), ("touches the original project", self.escaped),
                             ("writes an output that differs", self.differing),
                             ("does not rewrite its persisted output", self.unwritten),
                             ("leaves an undeclared file", self.stray)):
            lines += [f"{self.name}: {label}: {p}" for p in sorted(set(paths))]
        return lines


def declared_stages(root: Path) -> list[Declared]:
    """Every stage of ``root``'s dvc.yaml as the real DVC resolves it, in dvc.yaml's order."""
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        stages = []
        for stage in repo.index.stages:
            deps, params = [], {}
            for dep in stage.deps:
                if type(dep).__name__ == "ParamsDependency":
                    params[dep.def_path] = list(dep.params or [])
                else:
                    deps.append(dep.def_path)
            outs = [o.def_path for o in stage.outs]
            stages.append(Declared(stage.name, stage.cmd, deps, params, outs,
                                   [o.def_path for o in stage.outs if o.persist]))
        return stages


def dvc_ignore(root: Path) -> Any:
    """``root``'s .dvcignore as DVC reads it (what a folder dep leaves out); build it once per project."""
    from dvc.repo import Repo

    return Repo(str(root)).dvcignore


def _copy(root: Path, rel: str, dest: Path, ignore: Any) -> None:
    source = root / rel
    if source.is_file():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest / rel)
        return
    for folder, _, files in ignore.walk(ignore.fs, str(source)):
        for name in files:
            if name.endswith(".pyc"):
                continue
            target = dest / Path(folder).relative_to(root) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(folder) / name, target)


def _subset(data: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    """The declared keys of a params mapping (dotted keys name nested ones); a key it lacks is left out."""
    out: dict[str, Any] = {}
    for key in keys:
        node, parts = data, key.split(".")
        for part in parts:
            if not isinstance(node, dict) or part not in node:
                break
            node = node[part]
        else:
            target = out
            for part in parts[:-1]:
                target = target.setdefault(part, {})
            target[parts[-1]] = node
    return out


def _write_params(root: Path, rel: str, keys: list[str], dest: Path) -> None:
    text = (root / rel).read_text(encoding="utf-8")
    json_file = rel.endswith(".json")
    data = json.loads(text) if json_file else yaml.safe_load(text) or {}
    kept = _subset(data, keys) if keys else data
    (dest / rel).parent.mkdir(parents=True, exist_ok=True)
    (dest / rel).write_text(json.dumps(kept, indent=2, sort_keys=True) + "\n" if json_file
                            else yaml.safe_dump(kept, sort_keys=False, allow_unicode=True), encoding="utf-8")


def build_scratch(root: Path, stage: Declared, dest: Path, ignore: Any = None) -> None:
    """Fill ``dest`` with what ``stage`` declares (see the module docstring)."""
    ignore = ignore if ignore is not None else dvc_ignore(root)
    dest.mkdir(parents=True)
    for rel in stage.deps + [p for p in stage.persist if (root / p).exists()]:
        _copy(root, rel, dest, ignore)
    for rel, keys in stage.params.items():
        if rel not in stage.deps:
            _write_params(root, rel, keys, dest)


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def _within(path: str, bases: list[str]) -> bool:
    return any(path == b or path.startswith(b.rstrip("/") + "/") for b in bases)


def _same(a: Path, b: Path) -> bool:
    if a.is_file() and b.is_file():
        return filecmp.cmp(a, b, shallow=False)
    if a.is_dir() and b.is_dir():
        return _files(a) == _files(b) and all(filecmp.cmp(a / f, b / f, shallow=False) for f in _files(a))
    return False


def run_audited(cmd: str, cwd: Path, project: Path, log: Path, env: dict[str, str] | None = None
                ) -> subprocess.CompletedProcess[str]:
    """Run a stage's ``python ...`` command in ``cwd`` under :data:`AUDIT`, logging to ``log``."""
    argv = shlex.split(cmd)
    if argv[0] != "python":
        raise ValueError(f"run_audited: cmd {cmd!r} does not start with python; only Python stages can be audited")
    environment = {**os.environ, **(env or {}), "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                   "PYTHONDONTWRITEBYTECODE": "1", "HERMETIC_LOG": str(log), "HERMETIC_PROJECT": str(project),
                   "PYTHONPATH": str(cwd / "src") if (cwd / "src").is_dir() else ""}
    return subprocess.run([sys.executable, "-c", AUDIT, *argv[1:]], cwd=cwd, env=environment,
                          capture_output=True, text=True)


def check_stage(root: Path, stage: Declared, scratch: Path, env: dict[str, str] | None = None,
                ignore: Any = None) -> StageCheck:
    """Run ``stage`` of the reproduced project ``root`` alone in ``scratch`` and say what it did wrong."""
    root, scratch = root.resolve(), scratch.resolve()
    build_scratch(root, stage, scratch, ignore)
    before = _files(scratch)
    log = scratch.with_suffix(".audit.json")
    proc = run_audited(stage.cmd, scratch, root, log, env)
    result = StageCheck(stage.name)
    if proc.returncode != 0:
        result.failure = f"exit {proc.returncode}: {proc.stderr.strip()[-2000:]}"
    seen = [(kind, Path(p)) for kind, p in json.loads(log.read_text())] if log.exists() else []
    written = _sort_out(seen, root, scratch, stage, result)
    if result.failure is None:
        result.differing = [o for o in stage.outs if not _same(scratch / o, root / o)]
        result.unwritten = [o for o in stage.persist if (root / o).exists() and not _within_any(o, written)]
    result.stray = [f for f in _files(scratch) - before if not _within(f, stage.outs)]
    return result


def _sort_out(seen: list[tuple[str, Path]], root: Path, scratch: Path, stage: Declared, result: StageCheck) -> list[str]:
    """File ``seen``'s undeclared reads and escapes into ``result``; return the paths written, scratch-relative.

    Listing or opening a folder above a declared path (the import system lists ``src``, an atomic
    write's folder) is not a read; neither is looking for a file the project lacks too.
    """
    declared = stage.deps + list(stage.params) + stage.outs
    ancestors = {"."} | {q.as_posix() for p in stage.outs + stage.deps for q in Path(p).parents}
    written = []
    for kind, path in seen:
        if not path.is_relative_to(scratch):
            result.escaped.append(f"{kind} {path.relative_to(root).as_posix()}")
            continue
        rel = path.relative_to(scratch).as_posix()
        if kind == "write":
            written.append(rel)
        undeclared = kind in ("read", "list") and not _within(rel, declared) and not (path.is_dir() and rel in ancestors)
        if undeclared and (path.exists() or (root / rel).exists()):
            result.undeclared.append(rel + ("" if path.exists() else " (absent: not declared)"))
    return written


def _within_any(out: str, written: list[str]) -> bool:
    return any(_within(w, [out]) for w in written)
