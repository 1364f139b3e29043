"""dvc.yaml lists, for every stage, exactly the library modules its script imports (transitively).

A stage whose deps miss a module it uses would not re-run when that module changes (a stale result
that looks fresh); a listed module it does not use re-runs it for nothing.
"""

import ast
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def module_file(name: str) -> Path | None:
    base = SRC / Path(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def assay_imports(path: Path) -> set[str]:
    """Names of assay modules imported anywhere in ``path`` (including inside functions)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names if a.name.split(".")[0] == "assay"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "assay":
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names if module_file(f"{node.module}.{a.name}")}
    return names


def closure(script: Path) -> set[str]:
    """Repository-relative paths of every assay module reachable from ``script``."""
    seen: set[Path] = set()
    todo = [script]
    while todo:
        for name in assay_imports(todo.pop()):
            f = module_file(name)
            parts = name.split(".")
            for i in range(1, len(parts)):  # importing a.b.c runs a/__init__ and a/b/__init__
                parent = module_file(".".join(parts[:i]))
                if parent and parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
            if f and f not in seen:
                seen.add(f)
                todo.append(f)
    return {p.relative_to(ROOT).as_posix() for p in seen}


def stages():
    data = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    for name, stage in data.items():
        body = stage.get("do", stage)
        yield name, body


@pytest.mark.parametrize("name,stage", list(stages()), ids=[n for n, _ in stages()])
def test_stage_deps_list_exactly_the_modules_it_imports(name, stage):
    script = next(d for d in stage["deps"] if d.startswith("stages/"))
    listed = {d for d in stage["deps"] if d.startswith("src/assay/")}
    assert listed == closure(ROOT / script), f"stage {name}: fix the src/assay deps in dvc.yaml"


if __name__ == "__main__":  # print the deps each stage should list
    for name, stage in stages():
        script = next(d for d in stage["deps"] if d.startswith("stages/"))
        print(name, sorted(closure(ROOT / script)))
