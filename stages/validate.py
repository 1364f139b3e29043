"""DVC stage `validate`: validate the cases against the corpus; write derived cases, dataset metrics and coverage."""

from assay.data.corpus import load_dataset
from assay.data.cases import cases_table, coverage, coverage_markdown, dataset_hash
from assay.core.io import sha256_file, sha256_tree, write_json, write_parquet, write_text
from assay.core.provenance import provenance
from assay.core.stage import run_stage

CASES, CORPUS = "data/cases.jsonl", "data/corpus"


def main() -> None:
    cases, corpus = load_dataset(CASES, CORPUS)
    cov, digest = coverage(cases), dataset_hash(cases)
    prov = provenance(cases_file=sha256_file(CASES), corpus=sha256_tree(CORPUS))
    write_parquet("data/derived/cases.parquet", cases_table(cases), {**prov, "dataset_hash": digest})
    write_json("metrics/dataset.json", {
        "cases": len(cases), "hash": digest, "gaps": len(cov["gaps"]), "empty_cells": len(cov["empty"]),
        "documents": len(corpus), "by_lang": cov["by_lang"],
        "by_set": {s: sum(row[s] for row in cov["matrix"].values()) for s in next(iter(cov["matrix"].values()))},
        "by_task": {t: sum(row.values()) for t, row in cov["matrix"].items()},
        **prov})
    write_text("reports/coverage.md", coverage_markdown(cov, digest, len(cases)))


if __name__ == "__main__":
    run_stage("validate", main)
