"""DVC stage `split`: assign each case to dev or holdout by a salted hash of its id or group."""

from assay.artifacts.data import SplitMetrics
from assay.artifacts.provenance import provenance
from assay.artifacts.registry import CASES_TABLE, SPLIT, SPLIT_TABLE, write_record
from assay.core.params import load_section
from assay.core.stage import run_stage
from assay.data.cases import dataset_hash, read_cases_table
from assay.data.split import SplitParams, assign, split_counts, split_table


def main() -> None:
    params = load_section("split", SplitParams)
    cases = read_cases_table(CASES_TABLE.path())
    sides = assign(cases, params.salt, params.holdout_share)
    prov = provenance(cases=dataset_hash(cases), settings=params.model_dump())
    from assay.core.io import write_parquet

    write_parquet(SPLIT_TABLE.path(), split_table(sides),
                  {"assay_version": prov.assay_version, "inputs": prov.inputs, **params.model_dump()})
    counts = split_counts(sides)
    write_record(SPLIT, SplitMetrics(**counts, holdout_share=round(counts["holdout"] / max(1, len(sides)), 4)), prov)


if __name__ == "__main__":
    run_stage("split", main)
