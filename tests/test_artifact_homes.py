"""Every written file has one typed home (:mod:`assay.artifacts.registry`): no path under ``metrics/``,
``reports/`` or ``data/derived/`` is spelled outside the registry's modules, and dvc.yaml's outputs
are exactly the registry's DVC outputs.

What counts as a spelled path (found with ``ast``, not grep): a string constant that starts with
``metrics/``, ``reports/`` or ``data/derived/`` (in an f-string, a literal part that starts so, or
starts so after a ``/``), and ``"metrics"``, ``"reports"`` or ``"data/derived"`` as an argument of
``Path(...)`` or an operand of ``/`` (a join). Docstrings are allowed: they describe the files for a
reader and are not used as paths. A path named in the middle of a sentence (a CLI help text, a
message) is prose and not counted.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

from assay.artifacts.registry import DECLARED

ROOT = Path(__file__).resolve().parents[1]
#: The registry's modules: the only places a path may be spelled.
HOMES = {ROOT / "src/assay/artifacts/registry.py", ROOT / "src/assay/artifacts/outputs.py"}
FOLDERS = ("metrics", "reports", "data/derived")
_PATH = re.compile(r"^/?(metrics|reports|data/derived)/")


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def _is_folder(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in FOLDERS


def spelled_paths(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of every path under the three folders spelled in ``source`` (see the module docstring)."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    in_fstring = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            # after a formatted value (f"{root}/metrics/...") the literal part starts with "/"
            if _PATH.match(node.value) and (id(node) in in_fstring or not node.value.startswith("/")):
                found.append((node.lineno, node.value))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("Path", "PurePath"):
            found += [(a.lineno, a.value) for a in node.args if _is_folder(a)]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            found += [(side.lineno, side.value) for side in (node.left, node.right) if _is_folder(side)]
    return sorted(found)


def test_the_detector_finds_literals_fstrings_and_joins_and_skips_docstrings():
    source = '''"""Writes metrics/x.json (a docstring: allowed)."""
from pathlib import Path
A = "metrics/a.json"
B = f"reports/review/{name}.md"
C = Path("data/derived") / "runs"
D = root / "reports" / "x.md"
E = f"{root}/data/derived/split.parquet"
F = {"metrics": 1}
G = "see reports/summary.md"
def f():
    """reports/plan.md: a function's docstring."""
    return "reports/plan.md"
'''
    assert spelled_paths(source) == [(3, "metrics/a.json"), (4, "reports/review/"), (5, "data/derived"),
                                      (6, "reports"), (7, "/data/derived/split.parquet"), (12, "reports/plan.md")]


def test_no_output_path_is_spelled_outside_the_registry():
    spelled = []
    for folder in ("src", "stages"):
        for f in sorted((ROOT / folder).rglob("*.py")):
            if f not in HOMES:
                spelled += [f"{f.relative_to(ROOT)}:{line}: {text!r}" for line, text in spelled_paths(f.read_text(encoding="utf-8"))]
    assert spelled == [], "declare the file in assay.artifacts.outputs (or registry) and use the declaration:\n" + "\n".join(spelled)


# dvc.yaml against the registry


def _stage_bodies(name: str, stage: dict, params: dict) -> list[tuple[str, dict]]:
    """A stage's bodies with the foreach values filled in: ``[(stage name, body)]`` (``evaluate@baseline``)."""
    if "foreach" not in stage:
        return [(name, stage)]
    section, key = stage["foreach"].strip("${}").split(".")
    values = params[section][key]
    text = yaml.safe_dump(stage["do"])
    return [(f"{name}@{v}", yaml.safe_load(text.replace("${key}", str(v)).replace("${item}", str(v)))) for v in values]


def dvc_outputs() -> set[tuple[str, str]]:
    """``(stage, path)`` of every out, metric and plot of dvc.yaml (foreach filled by params.yaml), and
    ``("", path)`` of the files the top-level plots read."""
    pipeline = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    out = set()
    for name, stage in pipeline["stages"].items():
        for stage_name, body in _stage_bodies(name, stage, params):
            for kind in ("outs", "metrics", "plots"):
                for entry in body.get(kind) or []:
                    out.add((stage_name, next(iter(entry)) if isinstance(entry, dict) else entry))
    for plot in pipeline.get("plots") or []:
        for spec in plot.values():
            y = spec.get("y") if isinstance(spec, dict) else None
            out |= {("", path) for path in (y if isinstance(y, dict) else {})}
    return out


def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>[^/]+)" for i, p in enumerate(parts)) + "$")


def _declares(declaration, stage: str, path: str) -> bool:
    """Whether ``declaration`` is the file ``path`` written by dvc stage ``stage`` (``""``: any stage)."""
    match = _pattern(declaration.template).match(path)
    if match is None:
        return False
    written_by = declaration.stage.format(**match.groupdict())
    return stage == "" or written_by.replace("@", "_") == stage.replace("@", "_")


def test_every_dvc_output_has_a_declaration_with_its_stage():
    homeless = sorted(f"{stage}: {path}" for stage, path in dvc_outputs()
                      if not any(_declares(d, stage, path) for d in DECLARED))
    assert homeless == [], "declare these outputs in assay.artifacts.outputs (or registry):\n" + "\n".join(homeless)


def test_every_declared_dvc_output_is_in_dvc_yaml():
    outputs = dvc_outputs()
    absent = sorted(d.template for d in DECLARED
                    if d.dvc and not any(_declares(d, stage, path) for stage, path in outputs if stage))
    assert absent == [], "in the registry but no stage of dvc.yaml outputs them (or mark them dvc=False):\n" + "\n".join(absent)


def test_files_not_in_dvc_yaml_are_inside_a_declared_output_folder_or_not_committed():
    folders = [d.template for d in DECLARED if type(d).__name__ == "Folder"]
    for d in DECLARED:
        if not d.dvc and type(d).__name__ != "Folder":
            assert d.template.startswith(".assay/") or any(d.template.startswith(f + "/") for f in folders), d.template


def test_templates_are_unique_and_every_stage_field_is_a_path_field():
    templates = [d.template for d in DECLARED]
    assert len(templates) == len(set(templates))
    for d in DECLARED:
        path_fields = set(re.findall(r"\{(\w+)\}", d.template))
        assert set(re.findall(r"\{(\w+)\}", d.stage)) <= path_fields, d.template
