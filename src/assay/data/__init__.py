"""The evaluation's data and its checks: cases, corpus, labelled pairs, the plan, the split, leakage.

May import: ``assay.core``, ``assay.stats``, ``assay.artifacts``.
"""
