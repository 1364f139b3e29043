"""Stage study_qrels: check the arbiter's decisions, freeze each split's qrels and write its manifest.

Fails (file:line) on a missing or unknown reason, a value outside its set, a disputed field without
a final value (or an agreed one with a value), an unknown or repeated pair, or a disagreement without
a decision. Writes ``qrels_frozen.jsonl`` (A, B, C and final of every judged field side by side),
``qrels.trec`` and ``manifest.json`` under $ASSAY_EVIDENCE_ROOT/<split>/ and commits
``reports/relevance/study/qrels.json`` (counts and SHA-256 of decisions, qrels and manifests).
Checks the judgments and decisions against the received-evidence lock, and the queries, pool,
packets, receipts and bundles against their records, first.
"""

from __future__ import annotations


def main() -> None:
    from assay.study.qrels import qrels_step
    from assay.study.manifest import BOUND_RECEIVED, BOUND_WRITTEN
    from assay.study.records import record_step

    before = {record: names for record, names in BOUND_WRITTEN.items() if record != "qrels"}  # qrels: what it writes
    record_step("qrels", lambda study, root: qrels_step(study, root, study.corpus),
                received=(*BOUND_RECEIVED, "inputs"), produced=before)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("study_qrels", main)
