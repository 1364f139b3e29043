"""DVC stage `agreement`: the two annotators' agreement on the labelled pairs, and their disagreements.

Reads params ``agreement.weights``, ``agreement.kinds`` and ``inputs.pairs``/``inputs.guidelines``; writes
metrics/agreement.json, reports/disagreements.jsonl (for adjudication, sorted by id) and
reports/plots/confusion_annotators.csv (one row per pair, for `dvc plots` with the confusion template).
"""

from assay.artifacts.judge import AgreementMetrics
from assay.artifacts.provenance import provenance
from assay.artifacts.registry import AGREEMENT, CONFUSION_ANNOTATORS, DISAGREEMENTS, write_record
from assay.core.io import sha256_file
from assay.core.params import load_section
from assay.core.paths import input_paths
from assay.core.stage import run_stage
from assay.data.pairs import LABELS, AgreementParams, load_pairs
from assay.stats.agreement import agreement_report


def main() -> None:
    params = load_section("agreement", AgreementParams)
    paths = input_paths()
    pairs = sorted(load_pairs(paths.pairs, params.kinds), key=lambda p: p.id)
    report, disagreeing = agreement_report([p.id for p in pairs], [p.ann1 for p in pairs], [p.ann2 for p in pairs],
                                           params.weights, labels=LABELS, names=("ann1", "ann2"))
    details = {"weights": report.pop("weights"), "undefined": report.pop("undefined")}
    write_record(AGREEMENT, AgreementMetrics(**report),
                 provenance(pairs=sha256_file(paths.pairs), guidelines=sha256_file(paths.guidelines), details=details))
    by_id = {p.id: p for p in pairs}
    DISAGREEMENTS.write({"id": i, "ann1": x, "ann2": y, "kind": by_id[i].kind, "lang": by_id[i].lang}
                        for i, x, y in disagreeing)
    CONFUSION_ANNOTATORS.write((p.ann1, p.ann2) for p in pairs)


if __name__ == "__main__":
    run_stage("agreement", main)
