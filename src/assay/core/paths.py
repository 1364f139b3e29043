"""Where the pipeline's inputs live: params.yaml section ``inputs``, the one place a path is written.

dvc.yaml templates its deps from these keys (``${inputs.cases}``) and every stage and the gate read
them through :func:`input_paths`, so moving a file is a one-line change in params.yaml.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict


class InputPaths(BaseModel):
    """params.yaml section ``inputs``: repository-relative paths of every input file or folder."""

    model_config = ConfigDict(extra="forbid")
    plan: str = "data/plan.yaml"
    cases: str = "data/cases.jsonl"
    corpus: str = "data/corpus"
    sources: str = "data/sources"
    pairs: str = "data/pairs.jsonl"
    guidelines: str = "data/guidelines.md"
    prompts: str = "data/prompts"


def input_paths(params_file: str | Path = "params.yaml") -> InputPaths:
    """The ``inputs`` section of ``params_file`` (defaults for keys it omits; unknown keys are an error)."""
    from assay.core.params import load_section

    return load_section("inputs", InputPaths, params_file)
