"""Provenance blocks: every metrics file names the hashes of the inputs it came from."""

from __future__ import annotations

import assay


def provenance(**inputs: str) -> dict:
    """``{"assay_version": ..., "inputs": {name: hash}}`` with the given input hashes (sorted on write)."""
    return {"assay_version": assay.__version__, "inputs": dict(inputs)}
