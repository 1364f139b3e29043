"""DVC stage `training`: SFT and DPO examples from every review snapshot in params ``review.snapshots``.

Writes reports/training/sft.jsonl (corrections), reports/training/dpo.jsonl (every exported
example, corrections included), both in the chat ``messages`` format with ``rejected`` and
``rejectedSource`` on the assistant turn and sorted by stable id, and metrics/training.json (counts,
including the ties without correction and the scores-only reviews left out).
"""

from __future__ import annotations


def main() -> None:
    from assay.artifacts.queue import TrainingMetrics
    from assay.artifacts.registry import TRAINING
    from assay.core.io import write_jsonl
    from assay.core.params import load_section
    from assay.queue.snapshot import ReviewParams, read_snapshot
    from assay.queue.training import training_metrics, training_set

    params = load_section("review", ReviewParams)
    ts = training_set(read_snapshot(params.path(name)) for name in sorted(params.snapshots))
    write_jsonl("reports/training/sft.jsonl", ts.rows("sft"))
    write_jsonl("reports/training/dpo.jsonl", ts.rows("dpo"))
    TRAINING.write(TrainingMetrics(**training_metrics(ts)))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("training", main)
