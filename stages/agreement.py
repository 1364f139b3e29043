"""DVC stage `agreement`: the two annotators' agreement on the labelled pairs, and their disagreements.

Reads params ``agreement.weights``, ``agreement.kinds`` and ``inputs.pairs``/``inputs.guidelines``; writes
metrics/agreement.json, reports/disagreements.jsonl (for adjudication, sorted by id) and
reports/plots/confusion_annotators.csv (one row per pair, for `dvc plots` with the confusion template).
"""

from sys import intern

from assay.artifacts.judge import AgreementMetrics
from assay.artifacts.provenance import provenance
from assay.artifacts.registry import AGREEMENT, CONFUSION_ANNOTATORS, DISAGREEMENTS, write_record
from assay.core.io import sha256_file
from assay.core.params import load_section
from assay.core.paths import input_paths
from assay.core.stage import run_stage
from assay.data.pairs import LABELS, AgreementParams, read_pairs
from assay.stats.agreement import agreement_report


def main() -> None:
    params = load_section("agreement", AgreementParams)
    paths = input_paths()
    # each pair validated in full, only its id, labels, kind and language kept (see read_pairs)
    rows = sorted(read_pairs(paths.pairs, params.kinds, lambda p: (p.id, p.ann1, p.ann2, intern(p.kind), intern(p.lang))))
    report, disagreeing = agreement_report([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows],
                                           params.weights, labels=LABELS, names=("ann1", "ann2"))
    details = {"weights": report.pop("weights"), "undefined": report.pop("undefined")}
    write_record(AGREEMENT, AgreementMetrics(**report),
                 provenance(pairs=sha256_file(paths.pairs), guidelines=sha256_file(paths.guidelines), details=details))
    by_id = {r[0]: r for r in rows}
    DISAGREEMENTS.write({"id": i, "ann1": x, "ann2": y, "kind": by_id[i][3], "lang": by_id[i][4]}
                        for i, x, y in disagreeing)
    CONFUSION_ANNOTATORS.write((r[1], r[2]) for r in rows)

if __name__ == "__main__":
    run_stage("agreement", main)
