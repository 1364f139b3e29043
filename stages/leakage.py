"""DVC stage `leakage`: near-duplicates across the split and against the sources folder."""

from assay.artifacts.data import LeakageMetrics
from assay.artifacts.provenance import provenance
from assay.artifacts.registry import LEAKAGE, write_record
from assay.core.io import sha256_tree, write_json
from assay.core.params import load_section
from assay.core.paths import input_paths
from assay.core.stage import run_stage
from assay.data.cases import dataset_hash, read_cases_table
from assay.data.leakage import LeakageParams, leakage_report, load_sources
from assay.data.split import read_split


def main() -> None:
    params = load_section("leakage", LeakageParams)
    folder = input_paths().sources
    cases = read_cases_table("data/derived/cases.parquet")
    sides = read_split("data/derived/split.parquet")
    sources = load_sources(folder)
    report = leakage_report(cases, sides, sources, params.threshold)
    by_source = {name: sum(r["source"] == name for r in report["sources"]) for name in sources}
    prov = provenance(cases=dataset_hash(cases), sources=sha256_tree(folder), settings=params.model_dump())
    write_record(LEAKAGE, LeakageMetrics(dev_holdout=len(report["dev_holdout"]), sources=len(report["sources"]),
                                         by_source=by_source), prov)
    write_json("reports/leakage.json", report)


if __name__ == "__main__":
    run_stage("leakage", main)
