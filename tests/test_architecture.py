"""The package layout holds: imports only go down the declared order (dvc.yaml's outputs against the
artifacts registry: tests/test_artifact_homes.py)."""

from __future__ import annotations

import ast
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "assay"

#: Lowest first: a package may import only packages before it (and itself).
ORDER = ("core", "pipeline", "stats", "artifacts", "data", "judge", "rag", "relevance", "study", "queue", "release",
         "project", "cli")


def package_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "assay" else None


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_every_package_is_in_the_declared_order_and_top_level_holds_no_concept_module():
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(ORDER), packages - set(ORDER)
    assert [p.name for p in SRC.glob("*.py")] == ["__init__.py"]


def test_imports_only_go_down():
    upward = []
    for f in SRC.rglob("*.py"):
        here = f.relative_to(SRC).parts[0]
        if here == "__init__.py":
            continue
        for name in imports(f):
            there = package_of(name)
            if there is not None and there in ORDER and ORDER.index(there) > ORDER.index(here):
                upward.append(f"{f.relative_to(ROOT)} imports {name} ({here} may not import {there})")
    assert upward == []


def test_every_package_says_what_it_owns_and_may_import():
    for package in ORDER:
        init = SRC / package / "__init__.py"
        if init.exists():
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
            assert "import" in doc, f"{init.relative_to(ROOT)}: say what the package may import"
