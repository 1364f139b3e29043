"""DVC stage `leakage`: near-duplicates across the split and against the sources folder."""

from assay.artifacts.data import LeakageMetrics
from assay.artifacts.provenance import provenance
from assay.artifacts.registry import CASES_TABLE, LEAKAGE, LEAKAGE_REPORT, SPLIT_TABLE, write_record
from assay.artifacts.reports import LeakageReport
from assay.core.io import sha256_tree
from assay.data.leakage.engine import engine_for
from assay.data.leakage.report import LeakageParams, leakage_metrics, leakage_report
from assay.data.leakage.sources import SourceFolder
from assay.core.params import load_section
from assay.core.paths import input_paths
from assay.core.stage import run_stage
from assay.data.cases import dataset_hash, read_cases_table
from assay.data.split import read_split


def main() -> None:
    params = load_section("leakage", LeakageParams)
    folder = input_paths().sources
    cases = read_cases_table(CASES_TABLE.path())
    sides = read_split(SPLIT_TABLE.path())
    sources = SourceFolder(folder, params.chunk_lines, params.max_line_bytes)
    report = leakage_report(cases, sides, sources, params.threshold,
                            engine=engine_for(params.engine, params.dask_scheduler), paraphrase=params.paraphrase)
    # the engine and chunk size change how the work is done, never the result: not in the provenance
    prov = provenance(cases=dataset_hash(cases), sources=sha256_tree(folder),
                      settings={"threshold": params.threshold, "paraphrase": params.paraphrase})
    write_record(LEAKAGE, LeakageMetrics(**leakage_metrics(report, sources.names)), prov)
    LEAKAGE_REPORT.write(LeakageReport.model_validate(report))


if __name__ == "__main__":
    run_stage("leakage", main)
