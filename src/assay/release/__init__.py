"""The release decision: gate checks against the plan (each blocking metric on its one-sided bound at the
level the current holdout look runs at, :mod:`assay.release.rule`), input freshness (recorded input hashes
against the current inputs), judge calibration staleness, gathering it all from a repository, the
one-page summary, and verification (recomputing the pipeline in a scratch copy and comparing the
committed outputs byte for byte), and the check of the whole params file.

The functions ``gather`` and ``verify`` share their modules' names, so they are imported from
those modules (``from assay.release.gather import gather``), not from the package.
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.release.checks": ["Check", "exit_code"],
    "assay.release.gather": ["Evidence"],
    "assay.release.verify": ["Verification"],
    "assay.release.summary": ["summary_markdown"],
    "assay.release.params_check": ["check_params"],
    "assay.release.ledger": ["current_look", "read_ledger", "record_look"],
    "assay.release.rule": ["Look", "MetricDecision", "PassChances"],
})
