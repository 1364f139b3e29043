"""Statistics with no knowledge of the pipeline: intervals for proportions and means, agreement
between raters (Cohen's kappa), tests for paired outcomes.

May import: ``assay.core``. Imported by every domain package.
"""
