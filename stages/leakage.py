"""DVC stage `leakage`: near-duplicates across the split and against data/sources/."""

from assay.data.cases import dataset_hash, read_cases_table
from assay.core.io import sha256_tree, write_json
from assay.data.leakage import LeakageParams, leakage_report, load_sources
from assay.core.params import load_section
from assay.core.provenance import provenance
from assay.data.split import read_split
from assay.core.stage import run_stage


def main() -> None:
    params = load_section("leakage", LeakageParams)
    cases = read_cases_table("data/derived/cases.parquet")
    sides = read_split("data/derived/split.parquet")
    sources = load_sources(params.sources)
    report = leakage_report(cases, sides, sources, params.threshold)
    by_source = {name: sum(r["source"] == name for r in report["sources"]) for name in sources}
    prov = provenance(cases=dataset_hash(cases), sources=sha256_tree(params.sources))
    write_json("metrics/leakage.json", {"dev_holdout": len(report["dev_holdout"]), "sources": len(report["sources"]),
                                        "by_source": by_source, "threshold": params.threshold, **prov})
    write_json("reports/leakage.json", {**report, **prov})


if __name__ == "__main__":
    run_stage("leakage", main)
