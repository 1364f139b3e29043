"""The ``judge`` section of params.yaml.

::

    judge:
      kind: fake               # fake | openai
      preset: mixed            # fake only: clean | position | verbosity | self | mixed
      prompt_version: 2        # reads <inputs.prompts>/pairwise_v<N>.md
      swap: true               # judge both orders; a flip is a tie
      min_pairs: 30            # the usability rule: fewer pairs is "too few pairs"
      min_kappa: 0.6           # ... (assay.judge.usability.UsabilityRule)
      min_slice_agreement: 0.6
      min_slice_n: 5
      max_invalid_share: 0.05
      max_flip_share: 0.2
      usability: conservative  # conservative | point
      interval: wilson         # wilson | clopper-pearson
      openai: {}               # openai only: passed to assay.judge.openai.OpenAIJudgeParams
      sensitivity_versions: [1, 2]   # the sensitivity stage labels every pair under both wordings
      duplicates: share        # share | refuse: pairs of equal content under different ids

The pairs file and the prompts folder are not here: they are ``inputs.pairs`` and ``inputs.prompts``
(:class:`assay.core.paths.InputPaths`), written once for every stage that reads them.

Kept apart from :mod:`assay.judge.factory` so that stages which only replay stored replies can read
the section without importing (and so depending on) the judge clients.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field

from assay.data.pairs import Duplicates
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
    swap: bool = True
    openai: dict | None = None
    sensitivity_versions: tuple[int, int] = (1, 2)
    #: `assay verify --rejudge N` fails when more than this share of the re-asked verdicts differ
    #: from the stored ones (:mod:`assay.judge.audit`); measure a judge's own variation first
    rejudge_tolerance: float = Field(default=0.0, ge=0, le=1)
    #: pairs of equal content under different ids: ``share`` asks the judge once and gives each the
    #: reply; ``refuse`` makes them an input error naming both lines (:func:`assay.data.pairs.same_content`)
    duplicates: Duplicates = "share"

    @property
    def rule(self) -> UsabilityRule:
        """The usability rule these params set."""
        return UsabilityRule(**self.model_dump(include=set(UsabilityRule.model_fields)))

    def prompt_file(self, prompts: str | Path, version: int | None = None) -> Path:
        """``<prompts>/pairwise_v<version>.md``, ``version`` defaulting to ``prompt_version``.

        ``prompts`` is the prompts folder, ``inputs.prompts`` (relative to the repository root, so
        join it to the root first when the working directory may be elsewhere). With the default
        version this is the only prompt file calibrate and probe read.

        >>> str(JudgeParams(prompt_version=3).prompt_file("data/prompts"))
        'data/prompts/pairwise_v3.md'
        """
        return prompt_path(prompts, self.prompt_version if version is None else version)
