"""DVC stage `agreement`: the two annotators' agreement on the labelled pairs, and their disagreements.

Reads params ``agreement.pairs`` (the pairs file) and ``agreement.weights``; writes
metrics/agreement.json, reports/disagreements.jsonl (for adjudication, sorted by id) and
reports/plots/confusion_annotators.csv (one row per pair, for `dvc plots` with the confusion template).
"""

from assay.stats.agreement import AgreementParams, agreement_report
from assay.core.io import sha256_file, write_csv, write_json, write_jsonl
from assay.data.pairs import LABELS, load_pairs
from assay.core.params import load_section
from assay.core.provenance import provenance
from assay.core.stage import run_stage

METRICS = "metrics/agreement.json"
DISAGREEMENTS = "reports/disagreements.jsonl"
PLOT = "reports/plots/confusion_annotators.csv"


def main() -> None:
    params = load_section("agreement", AgreementParams)
    pairs = sorted(load_pairs(params.pairs), key=lambda p: p.id)
    report, disagreeing = agreement_report([p.id for p in pairs], [p.ann1 for p in pairs], [p.ann2 for p in pairs],
                                           params.weights, labels=LABELS, names=("ann1", "ann2"))
    write_json(METRICS, {**report, **provenance(pairs=sha256_file(params.pairs), guidelines=sha256_file(params.guidelines))})
    by_id = {p.id: p for p in pairs}
    write_jsonl(DISAGREEMENTS, [{"id": i, "ann1": x, "ann2": y, "kind": by_id[i].kind, "lang": by_id[i].lang}
                                for i, x, y in disagreeing])
    write_csv(PLOT, ("ann1", "ann2"), ((p.ann1, p.ann2) for p in pairs))


if __name__ == "__main__":
    run_stage("agreement", main)
