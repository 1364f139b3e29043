"""Annotation queues: the review queue service, its storage, results and export.

Owns the database schema and its migrations, the locked rubric, filling a queue from a pipeline
output or a JSONL file, item leases, the blind-review web app and its JSON API, judge-versus-people
results, and the byte-stable review snapshots with their SFT/DPO training examples.

May import: ``assay.core``, ``assay.stats``, ``assay.data``, ``assay.judge``.
"""
