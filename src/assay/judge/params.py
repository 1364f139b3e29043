"""The ``judge`` section of params.yaml.

::

    judge:
      kind: fake               # fake | openai
      preset: mixed            # fake only: clean | position | verbosity | self | mixed
      prompt_version: 2        # reads <prompts_dir>/pairwise_v<N>.md
      prompts_dir: data/prompts
      pairs: data/pairs.jsonl
      swap: true               # judge both orders; a flip is a tie
      min_kappa: 0.6
      min_slice_agreement: 0.6
      bootstrap_resamples: 2000
      seed: 0
      openai: {}               # openai only: passed to assay.judge.openai.OpenAIJudgeParams
      sensitivity_versions: [1, 2]   # the sensitivity stage labels every pair under both wordings

Kept apart from :mod:`assay.judge.factory` so that stages which only replay stored replies can read
the section without importing (and so depending on) the judge clients.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.judge.prompts import prompt_path


class JudgeParams(BaseModel):
    """Params section ``judge``, read by the judge, probe, calibrate and sensitivity stages and the gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["fake", "openai"] = "fake"
    preset: Literal["clean", "position", "verbosity", "self", "mixed"] = "mixed"
    prompt_version: int = Field(default=2, ge=1)
    prompts_dir: str = "data/prompts"
    pairs: str = "data/pairs.jsonl"
    swap: bool = True
    min_kappa: float = Field(default=0.6, ge=-1, le=1)
    min_slice_agreement: float = Field(default=0.6, ge=0, le=1)
    bootstrap_resamples: int = Field(default=2000, ge=100)
    seed: int = 0
    openai: dict | None = None
    sensitivity_versions: tuple[int, int] = (1, 2)

    @property
    def prompt_file(self) -> Path:
        """``<prompts_dir>/pairwise_v<prompt_version>.md``, the only prompt file calibrate and probe read."""
        return self.prompt_path(self.prompt_version)

    def prompt_path(self, version: int) -> Path:
        """``<prompts_dir>/pairwise_v<version>.md``."""
        return prompt_path(self.prompts_dir, version)
