"""The ``study:`` section of params.yaml: the settings of the receipt and the verdict.

The study's protocol (roles, split, pooling, thresholds file) lives in the study file
(:mod:`assay.study.protocol`); this section holds what the machine steps compute with.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from assay.core.records import InputModel


class StudyParams(InputModel):
    """``study:`` in params.yaml.

    ``candidate``: the mode the release would ship; the study passes when it does.
    ``resamples`` and ``seed``: the agreement receipt's bootstrap over queries; ``level`` its interval level.
    """

    model_config = ConfigDict(extra="forbid")
    candidate: Literal["lexical", "semantic", "hybrid", "reranked", "graph"] = "hybrid"
    resamples: int = Field(default=2000, ge=100)
    seed: int = 13
    level: float = Field(default=0.95, gt=0, lt=1)
