"""Pairwise judges and everything about trusting them: the judge interface and its implementations
(fake, OpenAI-compatible, and a replay of the replies the ``judge`` stage stored), versioned
prompts, judging in both orders, bias probes, calibration against human labels, wording
sensitivity and per-dimension verdicts.

May import: ``assay.core``, ``assay.stats``, ``assay.artifacts``, ``assay.data``.
"""
