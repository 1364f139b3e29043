"""Is a judge calibration record still about the prompt, judge settings and labels in use now?

Used by ``assay calibration-status`` and by the gate. Paths in the ``judge`` params section are
relative to the working directory (the repository root). Needs no API key and no network: the
judge's identity is computed from params (``assay.judge.factory.judge_identity``).
"""

from __future__ import annotations


def current_state(params_path: str = "params.yaml") -> tuple:
    """``(prompt, settings, labels_sha)`` as they are now, from the params file's ``judge`` section."""
    from assay.judge.calibration import judge_settings, labels_hash
    from assay.judge.factory import JudgeParams, judge_identity
    from assay.data.pairs import load_pairs
    from assay.core.params import load_section
    from assay.judge.prompts import load_prompt

    params = load_section("judge", JudgeParams, params_path)
    prompt = load_prompt(params.prompt_file)
    settings = judge_settings(judge_identity(params, where=params_path), swap=params.swap, rule=params.rule)
    return prompt, settings, labels_hash(load_pairs(params.pairs))


def current_staleness(record: dict, params_path: str = "params.yaml") -> list[str]:
    """What changed since ``record`` was written (empty when current); see :func:`assay.judge.calibration.staleness`."""
    from assay.judge.calibration import staleness

    prompt, settings, labels_sha = current_state(params_path)
    return staleness(record, prompt, settings, labels_sha)
