"""Foundations every other package stands on: errors, reading and atomic writing, row validation,
params loading, the stage runner, shared vocabularies and text helpers, and whether
the git history the history checks read is all there (``assay.core.history``: a shallow clone is refused).
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.core.errors": ["AssayError", "InputError", "MissingArtifact", "PlanProblems", "Problem",
                          "RefusedInCI", "StaleError", "raise_problems"],
    "assay.core.io": ["read_jsonl", "read_table_rows", "write_csv", "write_json", "write_jsonl", "write_text"],
    "assay.core.params": ["load_section"],
    "assay.core.stage": ["run_stage"],
    "assay.core.records": ["problems_from"],
    "assay.core.lazy": ["lazy_exports"],
})
