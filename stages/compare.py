"""Stage compare: pair the baseline and candidate runs by case id and compare them on the holdout.

Reads params ``compare.baseline``, ``compare.candidate`` and ``rag.interval``, the two run tables,
the split table and the versions' provenance files (for the dataset hash each run was made on);
writes metrics/compare.json (counts and statistics), metrics/headline.json (five of them, narrow
enough for ``dvc metrics show --md`` in 80 columns), reports/compare.json (the id lists),
reports/provenance/compare.json and the pass-rate-by-task plot data of both versions.
"""

from __future__ import annotations

def main() -> None:
    from assay.artifacts.rag import HeadlineMetrics
    from assay.artifacts.reports import CompareReport
    from assay.artifacts.registry import (COMPARE, COMPARE_REPORT, HEADLINE, PASS_BY_TASK, RUN_TABLE, SPLIT_TABLE,
                                          write_record)
    from assay.core.io import sha256_file
    from assay.core.params import load_section
    from assay.data.split import read_split_table
    from assay.rag.compare import CompareParams, compare_runs, read_run, run_provenance
    from assay.rag.runner import RagParams

    names = load_section("compare", CompareParams)
    rag = load_section("rag", RagParams)
    paths = {name: RUN_TABLE.relpath(version=name) for name in (names.baseline, names.candidate)}
    metrics, report = compare_runs(read_run(paths[names.baseline]), read_run(paths[names.candidate]),
                                   read_split_table(SPLIT_TABLE.path()), rag.interval, names=(names.baseline, names.candidate))
    prov = run_provenance(paths, sha256_file(SPLIT_TABLE.path()))
    prov.settings.update({"baseline": names.baseline, "candidate": names.candidate, "interval": rag.interval,
                          "side": "holdout"})
    write_record(COMPARE, metrics, prov)
    HEADLINE.write(HeadlineMetrics.of(metrics))
    COMPARE_REPORT.write(CompareReport.model_validate(report))
    for side, by_task in (("baseline", metrics.baseline_by_task), ("candidate", metrics.candidate_by_task)):
        PASS_BY_TASK.write(((task, e.value, e.n) for task, e in by_task.items()), side=side)


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("compare", main)
