"""Which parts of the library a stage script runs: its import closure, by package folder.

A stage depends on the package folders (``src/assay/judge``) it reaches, not on each module: DVC
hashes a folder as one dependency, so dvc.yaml and dvc.lock stay short and a no-op ``dvc repro``
stays fast. The price: editing any module of a package re-runs every stage that imports anything
from that package.
"""

from __future__ import annotations

import ast
from pathlib import Path


def _module_file(src: Path, name: str) -> Path | None:
    base = src / Path(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def _assay_imports(src: Path, path: Path) -> set[str]:
    """Names of assay modules imported anywhere in ``path`` (inside functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names if a.name.split(".")[0] == "assay"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "assay":
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names if _module_file(src, f"{node.module}.{a.name}")}
    return names


def module_closure(script: Path, src: Path) -> set[Path]:
    """Every module file under ``src`` (the folder holding ``assay/``) that running ``script`` imports.

    Importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py`` too, so those are included.
    """
    seen: set[Path] = set()
    todo = [script]
    while todo:
        for name in _assay_imports(src, todo.pop()):
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                found = _module_file(src, ".".join(parts[:i]))
                if found is not None and found not in seen:
                    seen.add(found)
                    todo.append(found)
    return seen


def package_deps(script: Path, src: Path) -> list[str]:
    """The dependency paths of ``script`` relative to ``src``'s parent: ``src/assay/__init__.py`` and package folders.

    Sorted, so the generated dvc.yaml is byte-stable.
    """
    root = src.parent
    deps: set[str] = set()
    for module in module_closure(script, src):
        rel = module.relative_to(src / "assay")
        if len(rel.parts) == 1:
            deps.add((src / "assay" / rel).relative_to(root).as_posix())
        else:
            deps.add((src / "assay" / rel.parts[0]).relative_to(root).as_posix())
    return sorted(deps)
