"""DVC stage `split`: assign each case to dev or holdout by a salted hash of its id or group."""

import pyarrow as pa

from assay.data.cases import dataset_hash, read_cases_table
from assay.core.io import write_json, write_parquet
from assay.core.params import load_section
from assay.core.provenance import provenance
from assay.data.split import SplitParams, assign, split_counts
from assay.core.stage import run_stage


def main() -> None:
    params = load_section("split", SplitParams)
    cases = read_cases_table("data/derived/cases.parquet")
    sides = assign(cases, params.salt, params.holdout_share)
    ids = sorted(sides)
    prov = provenance(cases=dataset_hash(cases))
    write_parquet("data/derived/split.parquet", pa.table({"id": ids, "side": [sides[i] for i in ids]}),
                  {**prov, "salt": params.salt, "holdout_share": params.holdout_share})
    counts = split_counts(sides)
    write_json("metrics/split.json", {**counts, "holdout_share": round(counts["holdout"] / max(1, len(ids)), 4), **prov})


if __name__ == "__main__":
    run_stage("split", main)
