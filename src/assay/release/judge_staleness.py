"""Is a judge calibration record still about the prompt, judge settings and labels in use now?

Used by ``assay calibration-status`` and by the gate. The prompt folder and the pairs file are the
``inputs`` section's paths (``inputs.prompts``, ``inputs.pairs``), relative to the repository root
given here, never to the working directory. Needs no API key and no network: the judge's identity
is computed from params (``assay.judge.factory.judge_identity``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.judge.calibration_record import CalibrationIdentity, JudgeSettings
    from assay.judge.prompts import PromptVersion


def current_state(root: str | Path = ".", params_file: str | Path = "params.yaml",
                  labels: Callable[[], str] | None = None) -> tuple[PromptVersion, JudgeSettings, str]:
    """``(prompt, settings, labels_sha)`` as they are now in the repository at ``root``.

    Args:
        root: the repository root; the ``inputs`` paths are joined to it.
        params_file: the params file, relative to ``root`` (an absolute path is used as it is).
        labels: gives the label set's hash when the caller knows it already (the gate's freshness
            checks); ``None`` reads and validates the pairs file.

    Raises:
        InputError: bad params, a missing or bad prompt file, or bad pairs.
    """
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.data.pairs import load_pairs, pair_kinds
    from assay.judge.calibration import judge_settings, labels_hash
    from assay.judge.factory import JudgeParams, judge_identity
    from assay.judge.prompts import load_prompt

    base = Path(root)
    where = base / params_file
    params = load_section("judge", JudgeParams, where)
    paths = input_paths(where)
    prompt = load_prompt(params.prompt_file(base / paths.prompts))
    settings = judge_settings(judge_identity(params, where=str(where)), swap=params.swap, rule=params.rule)
    labels_sha = labels() if labels is not None else labels_hash(load_pairs(base / paths.pairs, pair_kinds(where)))
    return prompt, settings, labels_sha


def current_staleness(record: CalibrationIdentity, root: str | Path = ".", params_file: str | Path = "params.yaml",
                      labels: Callable[[], str] | None = None) -> list[str]:
    """What changed since ``record`` was written (empty when current); see :func:`assay.judge.calibration.staleness`.

    ``labels``: as for :func:`current_state`.
    """
    from assay.judge.calibration import staleness

    prompt, settings, labels_sha = current_state(root, params_file, labels)
    return staleness(record, prompt, settings, labels_sha)
