"""Stage study_evaluate: the five retrieval modes on each split's frozen qrels.

Reads params ``relevance``, the pre-registered thresholds, every mode's run and side file, and
each split's manifest, queries and qrels under $ASSAY_EVIDENCE_ROOT (the sealed holdout only after
its opening, each read appended to the access log). Commits ``reports/relevance/study/evaluation.json``:
per split and mode, the seven figures with intervals (summary figures only, never a per-query row).
Checks the opening, judgments and decisions against the received-evidence lock, and every file the
manifests bind against the record of the stage that wrote it, first.
"""

from __future__ import annotations


def main() -> None:
    from assay.core.params import load_section
    from assay.relevance.params import RelevanceParams
    from assay.relevance.thresholds import load_thresholds
    from assay.study.manifest import BOUND_RECEIVED, BOUND_WRITTEN
    from assay.study.outcome import evaluate_step
    from assay.study.records import record_step

    relevance = load_section("relevance", RelevanceParams)

    def step(study, root):
        return evaluate_step(study, root, relevance, load_thresholds(study.thresholds))

    record_step("evaluation", step, received=(*BOUND_RECEIVED, "inputs", "opening"), produced=BOUND_WRITTEN)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_evaluate", main)
