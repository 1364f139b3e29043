"""DVC stage `validate`: validate the cases against the corpus; write derived cases, dataset metrics and coverage.

A fact in none of its case's documents (an unpassable case) is counted in ``unpassable_facts`` and
named on stderr; it does not stop the stage (``assay validate --strict`` refuses it).
"""

import sys

from assay.artifacts.provenance import provenance
from assay.artifacts.registry import CASES_TABLE, COVERAGE_PAGE, DATASET, write_record
from assay.core.io import sha256_file, sha256_tree, write_parquet
from assay.core.stage import run_stage
from assay.core.paths import input_paths
from assay.data.cases import cases_table, coverage_markdown, dataset_metrics
from assay.data.corpus import load_dataset
from assay.data.unpassable import unpassable_in_file


def main() -> None:
    paths = input_paths()
    cases, corpus = load_dataset(paths.cases, paths.corpus, paths.tools)
    metrics, cov, digest = dataset_metrics(cases, len(corpus))
    unpassable = unpassable_in_file(paths.cases, cases, corpus)
    for problem in unpassable:  # a count in the metrics, each one named in the stage's log; not a failure
        print(f"warning: {problem}", file=sys.stderr)
    metrics = metrics.model_copy(update={"unpassable_facts": len(unpassable)})
    tools = {} if paths.tools is None else {"tools": sha256_file(paths.tools)}
    prov = provenance(cases_file=sha256_file(paths.cases), corpus=sha256_tree(paths.corpus), **tools,
                      details={"dataset_hash": digest})
    write_parquet(CASES_TABLE.path(), cases_table(cases),
                  {"assay_version": prov.assay_version, "inputs": prov.inputs, "dataset_hash": digest})
    write_record(DATASET, metrics, prov)
    COVERAGE_PAGE.write(coverage_markdown(cov, digest, len(cases)))


if __name__ == "__main__":
    run_stage("validate", main)
