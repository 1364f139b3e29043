"""Where the pipeline's inputs live: params.yaml section ``inputs``, the one place a path is written.

dvc.yaml templates its deps from these keys (``${inputs.cases}``) and every stage and the gate read
them through :func:`input_paths`, so moving a file is a one-line change in params.yaml.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from assay.core.confinement import ProjectPath


class InputPaths(BaseModel):
    """params.yaml section ``inputs``: repository-relative paths of every input file or folder.

    Each must resolve, symlinks followed, inside the repository (:data:`~assay.core.confinement.ProjectPath`).
    """

    model_config = ConfigDict(extra="forbid")
    plan: ProjectPath = "data/plan.yaml"
    cases: ProjectPath = "data/cases.jsonl"
    corpus: ProjectPath = "data/corpus"
    sources: ProjectPath = "data/sources"
    pairs: ProjectPath = "data/pairs.jsonl"
    guidelines: ProjectPath = "data/guidelines.md"
    prompts: ProjectPath = "data/prompts"
    tools: ProjectPath | None = None  # the tool catalogue (assay.data.tools); None: no case may expect tools


def input_paths(params_file: str | Path = "params.yaml") -> InputPaths:
    """The ``inputs`` section of ``params_file`` (defaults for keys it omits; unknown keys are an error)."""
    from assay.core.params import load_section

    return load_section("inputs", InputPaths, params_file)
