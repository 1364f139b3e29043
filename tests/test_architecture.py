"""What the package layering's one declaration, pyproject.toml's ``[tool.importlinter]``, cannot say itself.

import-linter (`lint-imports`, run by `make test`) checks the contracts: packages import only down
the layers, every package is in a layer, and the narrower ``forbidden`` rules. These tests keep the
other places that speak of the layering from drifting away from it: the order docs/development.md
and README.md spell, and no package docstring keeping a "May import" list of its own. (dvc.yaml's outputs against
the artifacts registry: tests/test_artifact_homes.py.)
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "assay"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]


def contract(id_: str) -> dict:
    return next(c for c in CONFIG["contracts"] if c["id"] == id_)


#: Lowest first, as the layers contract lists them highest first.
ORDER = tuple(reversed(contract("layers")["layers"]))


def test_the_layers_contract_covers_every_package_and_counts_every_import():
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert set(ORDER) == packages
    layers = contract("layers")
    assert layers["containers"] == ["assay"] and layers["exhaustive"] is True  # a new package must find its layer
    assert CONFIG["exclude_type_checking_imports"] is False  # an import under TYPE_CHECKING is an import


def test_every_forbidden_rule_only_narrows_the_order():
    """A forbidden contract names packages below its sources (one above is already the layers' business)."""
    for c in CONFIG["contracts"]:
        if c["type"] == "forbidden":
            for source in c["source_modules"]:
                for forbidden in c["forbidden_modules"]:
                    here, there = source.split(".")[1], forbidden.split(".")[1]
                    assert ORDER.index(there) < ORDER.index(here), f"{c['id']}: {forbidden} is not below {source}"


def test_the_guides_spell_the_contracts_order():
    for page in (ROOT / "docs" / "development.md", ROOT / "README.md"):
        text = page.read_text(encoding="utf-8")
        spelled = re.search(r"the order ((?:`\w+`\s+<\s+)+`\w+`)", text)
        assert spelled, f"{page.name}: say the order as `core` < `pipeline` < ..."
        assert tuple(re.findall(r"`(\w+)`", spelled.group(1))) == ORDER, f"{page.name} spells another order than pyproject.toml"


def test_no_package_docstring_keeps_its_own_list_of_imports():
    for init in sorted(SRC.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "May import" not in doc, f"{init.relative_to(ROOT)}: the layering lives in pyproject.toml's [tool.importlinter]"
