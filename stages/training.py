"""DVC stage `training`: SFT and DPO examples from every review snapshot in params ``review.snapshots``.

Writes reports/training/sft.jsonl (corrections), reports/training/dpo.jsonl (every exported
example, corrections included), both in the chat ``messages`` format with ``rejected`` and
``rejectedSource`` on the assistant turn, reports/training/dpo_trl.jsonl (the DPO examples in TRL's
conversational preference format: ``prompt``, ``chosen``, ``rejected``), all sorted by stable id
and naming their snapshot, and metrics/training.json (counts, including the ties without
correction, the scores-only reviews and the synthetic snapshots left out). When any listed snapshot
is real, the synthetic ones (such as ``demo``) are left out, with a note on stderr. It also writes
metrics/review/.snapshots.json (the listed snapshots), so the folder the gate depends on exists while
the list is empty.
"""

from __future__ import annotations


def main() -> None:
    import sys

    from assay.artifacts.queue import ReviewIndex
    from assay.artifacts.registry import REVIEW_INDEX, TRAINING, TRAINING_PREFERENCES, TRAINING_ROWS
    from assay.core.params import load_section
    from assay.queue.snapshot import ReviewParams, read_snapshot
    from assay.queue.training import training_metrics, training_set

    params = load_section("review", ReviewParams)
    ts = training_set((name, read_snapshot(params.path(name))) for name in sorted(params.snapshots))
    if ts.synthetic_left_out:
        print(f"training: left out the synthetic snapshot(s) {', '.join(ts.synthetic_left_out)}: real snapshots are listed "
              "in review.snapshots, and synthetic reviews are never mixed into real training data; remove them from "
              "review.snapshots to silence this note", file=sys.stderr)
    TRAINING_ROWS.write(ts.examples("sft"), kind="sft")
    TRAINING_ROWS.write(ts.examples("dpo"), kind="dpo")
    TRAINING_PREFERENCES.write(ts.preferences())
    TRAINING.write(training_metrics(ts))
    REVIEW_INDEX.write(ReviewIndex(snapshots=len(params.snapshots)))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("training", main)
