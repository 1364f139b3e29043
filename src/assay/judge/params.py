"""The ``judge`` section of params.yaml.

::

    judge:
      kind: fake               # fake | openai
      preset: mixed            # fake only: clean | position | verbosity | self | mixed
      prompt_version: 2        # reads <prompts_dir>/pairwise_v<N>.md
      prompts_dir: data/prompts
      pairs: data/pairs.jsonl
      swap: true               # judge both orders; a flip is a tie
      min_kappa: 0.6           # the usability rule (assay.judge.usability.UsabilityRule)
      min_slice_agreement: 0.6
      min_slice_n: 5
      max_invalid_share: 0.05
      max_flip_share: 0.2
      usability: conservative  # conservative | point
      interval: wilson         # wilson | clopper-pearson
      openai: {}               # openai only: passed to assay.judge.openai.OpenAIJudgeParams
      sensitivity_versions: [1, 2]   # the sensitivity stage labels every pair under both wordings

Kept apart from :mod:`assay.judge.factory` so that stages which only replay stored replies can read
the section without importing (and so depending on) the judge clients.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field

from assay.judge.prompts import prompt_path
from assay.judge.usability import UsabilityRule


class JudgeParams(UsabilityRule):
    """Params section ``judge``, read by the judge, probe, calibrate and sensitivity stages and the gate.

    It holds the usability rule's fields (:class:`~assay.judge.usability.UsabilityRule`) beside the
    judge's own settings; :attr:`rule` gives them as a rule.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["fake", "openai"] = "fake"
    preset: Literal["clean", "position", "verbosity", "self", "mixed"] = "mixed"
    prompt_version: int = Field(default=2, ge=1)
    prompts_dir: str = "data/prompts"
    pairs: str = "data/pairs.jsonl"
    swap: bool = True
    openai: dict | None = None
    sensitivity_versions: tuple[int, int] = (1, 2)

    @property
    def rule(self) -> UsabilityRule:
        """The usability rule these params set."""
        return UsabilityRule(**self.model_dump(include=set(UsabilityRule.model_fields)))

    @property
    def prompt_file(self) -> Path:
        """``<prompts_dir>/pairwise_v<prompt_version>.md``, the only prompt file calibrate and probe read."""
        return self.prompt_path(self.prompt_version)

    def prompt_path(self, version: int) -> Path:
        """``<prompts_dir>/pairwise_v<version>.md``."""
        return prompt_path(self.prompts_dir, version)
