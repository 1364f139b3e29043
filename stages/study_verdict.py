"""Stage study_verdict: the human relevance study's verdict.

Refuses (exit 2) when the thresholds changed after the sealed holdout was opened, or when the
opening hash in data/relevance/received.json differs from the one registered at the first commit
that held one (git history is the witness; without git it says so and checks the record only; a shallow clone is
refused). While judgments
are not handed in yet, writes a verdict that says it waits (``waiting`` 1) and succeeds. Checks the
opening, judgments and decisions against the received-evidence lock and every file the manifests
bind against its stage's record, re-checks the evidence conditions under $ASSAY_EVIDENCE_ROOT,
then writes ``metrics/relevance/verdict.json`` (numbers only), ``reports/relevance/verdict.md``
(every figure with its interval and every unmet threshold, per mode) and
``reports/provenance/study_verdict.json``.
"""

from __future__ import annotations

def main() -> None:
    import sys
    from pathlib import Path

    from assay.artifacts.provenance import provenance
    from assay.artifacts.base import BrokenArtifact
    from assay.artifacts.registry import RELEVANCE_VERDICT, STUDY_RECORD, VERDICT_PAGE, write_record
    from assay.artifacts.study import VerdictMetrics
    from assay.core.params import load_section
    from assay.relevance.params import RelevanceParams
    from assay.study.evidence import redacting
    from assay.study.manifest import BOUND_RECEIVED, BOUND_WRITTEN
    from assay.study.verdict import verdict_step
    from assay.study.params import StudyParams
    from assay.study.protocol import STUDY_FILE, evidence_root, load_study
    from assay.study.received import require_produced, require_received
    from assay.study.status import current_inputs

    from assay.study.waiting import waiting_for, waiting_verdict

    params = load_section("study", StudyParams)
    level = load_section("relevance", RelevanceParams).level
    study = load_study(STUDY_FILE)
    waiting = waiting_for()
    if waiting:  # judgments not handed in yet: a state, not an error
        metrics, page = waiting_verdict(waiting, study.synthetic)
        write_record(RELEVANCE_VERDICT, metrics, provenance(settings={"candidate": params.candidate},
                                                            details={"waiting": waiting},
                                                            **current_inputs(Path("."), study.thresholds, STUDY_FILE)))
        VERDICT_PAGE.write(page)
        return
    root = evidence_root(study)
    with redacting(root):
        require_received(study, root, (*BOUND_RECEIVED, "inputs", "opening"))
        require_produced(root, BOUND_WRITTEN)
    receipt, qrels, evaluation = (STUDY_RECORD.read(name=name) for name in ("receipt", "qrels", "evaluation"))
    if receipt.receipts is None:
        raise BrokenArtifact(f"{STUDY_RECORD.relpath(name='receipt')} holds no receipts: run dvc repro -f study_receipt")
    inputs = current_inputs(Path("."), study.thresholds, STUDY_FILE)
    hashes = {STUDY_FILE: inputs["study_file"], study.thresholds: inputs["thresholds"],
              **{name: digest for name, digest in (qrels.evidence or {}).items() if name.endswith("manifest.json")}}
    result = verdict_step(study, root, params, evaluation.model_dump(), receipt.receipts, level, hashes)
    if result["note"]:
        print(result["note"], file=sys.stderr)
    write_record(RELEVANCE_VERDICT, VerdictMetrics(**result["metrics"]),
                 provenance(settings={"candidate": params.candidate, "protocol_version": study.protocol_version},
                            details={"conditions": result["conditions"]}, **inputs))
    VERDICT_PAGE.write(result["page"])


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_verdict", main)
