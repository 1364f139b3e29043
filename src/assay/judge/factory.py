"""The ``judge`` section of params.yaml and building a judge from it.

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
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, ValidationError

from assay.core.errors import InputError

from assay.judge.base import Judge
from assay.judge.fake import FakeJudge
from assay.judge.prompts import prompt_path
from assay.judge.usability import UsabilityRule
from assay.core.records import problems_from


class JudgeParams(UsabilityRule):
    """Params section ``judge``, read by the probe and calibrate stages and ``assay calibration-status``.

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

    # Transitional: assay.release.judge_staleness still reads these two and passes them to
    # judge_settings, which ignores them. Calibration no longer bootstraps, so they are not params
    # (a params.yaml that sets them fails as an unknown key). Remove once that call passes ``rule``.
    @property
    def bootstrap_resamples(self) -> None:
        """Always None: calibration intervals are score intervals now (see the note above)."""
        return None

    @property
    def seed(self) -> None:
        """Always None (see :attr:`bootstrap_resamples`)."""
        return None

    @property
    def prompt_file(self) -> Path:
        """``<prompts_dir>/pairwise_v<prompt_version>.md``, the only prompt file the stages read."""
        return self.prompt_path(self.prompt_version)

    def prompt_path(self, version: int) -> Path:
        """``<prompts_dir>/pairwise_v<version>.md``."""
        return prompt_path(self.prompts_dir, version)


def make_judge(params: JudgeParams, where: str = "params.yaml") -> Judge:
    """The judge the params describe.

    ``fake`` gives the preset :class:`~assay.judge.fake.FakeJudge`. ``openai`` imports
    ``assay.judge.openai`` only now (so the fake path never loads an HTTP client) and builds
    ``OpenAIJudge(OpenAIJudgeParams.model_validate(params.openai or {}))``.

    Raises:
        InputError: bad ``judge.openai`` settings, named as ``judge.openai.<field>`` in ``where``.
    """
    if params.kind == "fake":
        return FakeJudge.from_preset(params.preset)
    from assay.judge.openai import OpenAIJudge, OpenAIJudgeParams

    try:
        settings = OpenAIJudgeParams.model_validate(params.openai or {})
    except ValidationError as error:
        raise InputError(problems_from(error, where, None, OpenAIJudgeParams, prefix="judge.openai")) from None
    return OpenAIJudge(settings)
