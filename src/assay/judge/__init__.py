"""Pairwise judges: the shared interface (``assay.judge.base``) and its implementations."""
