"""Stage study_evaluate: the five retrieval modes on each split's frozen qrels.

Reads params ``relevance``, the pre-registered thresholds, and each split's manifest, queries,
qrels and every mode's pooled run (written by study_pool on the split's documents) under $ASSAY_EVIDENCE_ROOT (the sealed holdout only after
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
    from assay.study.evidence import run_names
    from assay.study.manifest import BOUND_RECEIVED, BOUND_WRITTEN
    from assay.study.evaluation import evaluate_step
    from assay.study.received import per_split
    from assay.study.records import record_step

    relevance = load_section("relevance", RelevanceParams)

    def step(study, root):
        return evaluate_step(study, root, relevance, load_thresholds(study.thresholds))

    runs = per_split(*(name for mode in relevance.modes for name in run_names(mode)))
    produced = {**BOUND_WRITTEN, "pool": BOUND_WRITTEN["pool"] + runs}
    record_step("evaluation", step, received=(*BOUND_RECEIVED, "inputs", "opening"), produced=produced)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_evaluate", main)
