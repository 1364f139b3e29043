"""Pairwise judges and everything about trusting them: the judge interface and its implementations
(fake, OpenAI-compatible), versioned prompts, judging in both orders, bias probes, calibration
against human labels, wording sensitivity and per-dimension verdicts.

May import: ``assay.core``, ``assay.stats``, ``assay.artifacts``, ``assay.data``.
"""
