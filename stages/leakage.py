"""DVC stage `leakage`: near-duplicates across the split and against data/sources/."""

from assay.data.cases import dataset_hash, read_cases_table
from assay.core.io import sha256_tree, write_json
from assay.data.leakage.engine import engine_for
from assay.data.leakage.report import LeakageParams, leakage_metrics, leakage_report
from assay.data.leakage.sources import SourceFolder
from assay.core.params import load_section
from assay.core.provenance import provenance
from assay.data.split import read_split
from assay.core.stage import run_stage


def main() -> None:
    params = load_section("leakage", LeakageParams)
    cases = read_cases_table("data/derived/cases.parquet")
    sides = read_split("data/derived/split.parquet")
    sources = SourceFolder(params.sources, params.chunk_lines, params.max_line_bytes)
    report = leakage_report(cases, sides, sources, params.threshold,
                            engine=engine_for(params.engine, params.dask_scheduler), paraphrase=params.paraphrase)
    prov = provenance(cases=dataset_hash(cases), sources=sha256_tree(params.sources))
    write_json("metrics/leakage.json", {**leakage_metrics(report, sources.names), **prov})
    write_json("reports/leakage.json", {**report, **prov})


if __name__ == "__main__":
    run_stage("leakage", main)
