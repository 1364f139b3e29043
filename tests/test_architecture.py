"""The package layout holds: imports only go down the declared order, and dvc.yaml's outputs are
exactly the files the artifacts registry declares (plus the reports each stage writes)."""

from __future__ import annotations

import ast
from pathlib import Path

import yaml

from assay.artifacts.registry import (GATE, HEADLINE, JUDGE, JUDGE_COMPARE, METRICS, MODE_COMPARISON, PROVENANCE, RAG, RELEVANCE_VERDICT,
                                      RETRIEVAL_MODE, REVIEW,
                                      TRAINING, provenance_stage)

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


def _declared_outputs() -> set[str]:
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    out = set()
    for name, stage in stages.items():
        if "foreach" in stage:
            section, key_name = stage["foreach"].strip("${}").split(".")
            keys = params[section][key_name]
            text = yaml.safe_dump(stage["do"])
            bodies = [(f"{name}@{key}", yaml.safe_load(text.replace("${key}", key).replace("${item}", key))) for key in keys]
        else:
            bodies = [(name, stage)]
        for _, body in bodies:
            for kind in ("outs", "metrics", "plots"):
                for entry in body.get(kind) or []:
                    out.add(next(iter(entry)) if isinstance(entry, dict) else entry)
    return out


def test_dvc_yaml_declares_every_registered_metrics_and_provenance_file():
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    declared = _declared_outputs()
    expected = set()
    for artifact in (*METRICS, GATE, JUDGE, JUDGE_COMPARE, HEADLINE, RELEVANCE_VERDICT):
        fields = [{"version": v} for v in params["rag"]["versions"]] if artifact is RAG else [{}]
        for f in fields:
            expected.add(artifact.relpath(**f))
            expected.add(PROVENANCE.relpath(stage=provenance_stage(artifact, **f)))
    expected |= {PROVENANCE.relpath(stage=provenance_stage(REVIEW, name=n)) for n in params["review"]["snapshots"]}
    assert expected - declared == set()
    metrics_declared = {p for p in declared if p.startswith("metrics/")}
    registered = {p for p in expected if p.startswith("metrics/")} | {TRAINING.relpath()}
    registered |= {REVIEW.relpath(name=n) for n in params["review"]["snapshots"]}
    registered |= {RETRIEVAL_MODE.relpath(mode=m) for m in params["relevance"]["modes"]} | {MODE_COMPARISON.relpath()}
    assert metrics_declared - registered == set(), "a metrics file in dvc.yaml has no typed home in the registry"
