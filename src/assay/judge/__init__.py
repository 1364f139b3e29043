"""Pairwise judges and everything about trusting them: the judge interface and its implementations
(fake, OpenAI-compatible, and a replay of the replies the ``judge`` stage stored), versioned
prompts, judging in both orders, bias probes, calibration against human labels, wording
sensitivity and per-dimension verdicts.
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.judge.factory": ["JudgeParams", "make_judge"],
    "assay.judge.prompts": ["load_prompt"],
    "assay.judge.replay": ["ReplayJudge"],
    "assay.judge.openai": ["OpenAIJudgeParams"],
    "assay.judge.calibration": ["calibration_run"],
    "assay.judge.sensitivity": ["wording_sensitivity"],
    "assay.judge.probe": ["bias_probes"],
    "assay.judge.checkup": ["run_checkup"],
    "assay.judge.audit": ["rejudge"],
})
