"""The generated pipeline: dvc.yaml, params.yaml and the CI example are what the templates give, every
stage depends on the library code it runs, and the template language and parts behave as documented."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from assay.core.errors import InputError
from assay.pipeline.generate import dvc_yaml
from assay.pipeline.parts import PARTS, project_parts, resolve_parts
from assay.pipeline.template import TemplateError, render
from assay.project.source import source_files
from assay.release.params_check import check_params

from conftest import ROOT


@pytest.mark.parametrize("rel", ["dvc.yaml", "params.yaml", "examples/ci/assay.yml"])
def test_the_committed_file_is_what_the_generator_writes(rel):
    """This repository is what `assay init --parts core,judge,queue,retrieval,study --example demo` writes
    (source layout); fix a difference with `make pipeline`."""
    assert (ROOT / rel).read_text(encoding="utf-8") == source_files(ROOT)[rel], f"{rel}: run `make pipeline`"


def _all_imports(script: Path) -> set[Path]:
    """Every assay module file ``script`` reaches, found by a plain walk independent of assay.pipeline.imports."""
    src = ROOT / "src"
    seen: set[Path] = set()
    todo = [script]
    while todo:
        tree = ast.parse(todo.pop().read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                if not name.startswith("assay"):
                    continue
                parts = name.split(".")
                for i in range(1, len(parts) + 1):
                    base = src.joinpath(*parts[:i])
                    for f in (base.with_suffix(".py"), base / "__init__.py"):
                        if f.exists() and f not in seen:
                            seen.add(f)
                            todo.append(f)
    return seen


def _stages():
    for name, stage in yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"].items():
        yield name, stage.get("do", stage)


IGNORED = [line.strip() for line in (ROOT / ".dvcignore").read_text(encoding="utf-8").splitlines()
           if line.startswith("src/assay/")]


@pytest.mark.parametrize("name,stage", list(_stages()), ids=[n for n, _ in _stages()])
def test_every_stage_depends_on_its_script_and_the_library_and_imports_nothing_dvc_ignores(name, stage):
    """The library is one dep (src/assay); the folders .dvcignore leaves out of it must hold nothing a stage runs."""
    script = next(d for d in stage["deps"] if d.startswith("stages/"))
    assert [d for d in stage["deps"] if d.startswith("src/assay")] == ["src/assay"], f"stage {name}: run `make pipeline`"
    used = {f.relative_to(ROOT).as_posix() + ("/" if f.is_dir() else "") for f in _all_imports(ROOT / script)}
    assert IGNORED and not [u for u in used for ignored in IGNORED if u.startswith(ignored)], f"stage {name}"


def test_the_pipeline_files_stay_short():
    total = sum(len((ROOT / f).read_text(encoding="utf-8").splitlines()) for f in ("dvc.yaml", "dvc.lock"))
    assert total <= 3084, f"dvc.yaml + dvc.lock: {total} lines (at most 40% of the 7,710 of the hand-kept pipeline)"


def test_the_installed_layout_runs_stages_from_the_package_and_depends_on_the_pin():
    text = dvc_yaml(("core",), "installed")
    assert "cmd: python -m assay.stages.plan" in text and "src/assay" not in text and "stages/" not in text
    stages = yaml.safe_load(text)["stages"]
    assert set(stages) == {"plan", "validate", "split", "leakage", "evaluate", "compare", "gate"}
    assert all("requirements.txt" in s.get("do", s)["deps"] for s in stages.values())


@pytest.mark.parametrize("parts", [("core",), ("core", "judge"), ("core", "queue"), ("core", "retrieval"),
                                   PARTS])
def test_a_part_that_is_not_chosen_has_no_stage_and_the_gate_reads_none_of_its_files(parts):
    stages = yaml.safe_load(dvc_yaml(parts, "installed"))["stages"]
    owned = {"judge": {"agreement", "judge", "probe", "calibrate", "sensitivity"}, "queue": {"review", "training"},
             "retrieval": {"retrieve", "score_retrieval"},
             "study": {"study_split", "study_pool", "study_scan", "study_check", "study_receipt", "study_bundle",
                       "study_qrels", "study_evaluate", "study_verdict"}}
    for part, names in owned.items():
        assert (names <= set(stages)) == (part in parts) and (part in parts or not names & set(stages))
    gate_deps = " ".join(stages["gate"]["deps"])
    assert ("metrics/calibration.json" in gate_deps) == ("judge" in parts)
    assert ("data/reviews" in gate_deps) == ("queue" in parts)
    assert "relevance" not in gate_deps  # the study never blocks the release gate


def test_render_keeps_the_chosen_blocks_and_refuses_malformed_templates():
    text = "a\n#@ judge,queue\nb @@x@@\n#@ end\n#@ study\nc\n#@ end\n"
    assert render(text, ["queue"], {"x": "1"}) == "a\nb 1\n"
    assert render(text, ["core"]) == "a\n"
    with pytest.raises(TemplateError, match="no value for @@x@@"):
        render(text, ["judge"])
    with pytest.raises(TemplateError, match="do not nest"):
        render("#@ a\n#@ b\n#@ end\n", [])
    with pytest.raises(TemplateError, match="not closed"):
        render("#@ a\nx\n", [])
    with pytest.raises(TemplateError, match="without an open block"):
        render("#@ end\n", [])


def test_parts_resolve_to_canonical_order_with_what_they_need_and_unknown_ones_are_refused():
    assert resolve_parts(["study", "judge"]) == ("core", "judge", "retrieval", "study")
    with pytest.raises(InputError, match="'jugde' is not a part"):
        resolve_parts(["jugde"])


def test_params_name_a_section_of_an_unchosen_part_and_a_bad_parts_value(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text("parts: [core]\nreview:\n  snapshots: []\n", encoding="utf-8")
    problems = [str(p) for p in check_params(params)]
    assert any("field 'review': section of part queue, which parts does not list" in p and "assay add queue" in p
               for p in problems), problems
    params.write_text("parts: core\n", encoding="utf-8")
    with pytest.raises(InputError, match="is not a list of part names"):
        project_parts(params)
    params.write_text("plan: {}\n", encoding="utf-8")
    assert project_parts(params) == PARTS  # a project from before parts ran every stage
