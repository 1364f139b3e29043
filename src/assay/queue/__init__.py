"""Annotation queues: the review queue service, its storage, results and export.

Owns the database schema and its migrations, the locked rubric, filling a queue from a pipeline
output or a JSONL file, item leases, the blind-review web app and its JSON API, judge-versus-people
results, and the byte-stable review snapshots with their SFT/DPO training examples.
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.queue.store": ["open_store"],
    "assay.queue.rubric": ["load_rubric"],
    "assay.queue.app": ["create_app"],
    "assay.queue.sources": ["load_source"],
    "assay.queue.results": ["summarize"],
    "assay.queue.snapshot": ["ReviewParams", "read_snapshot", "write_snapshot"],
    "assay.queue.training": ["training_set"],
})
