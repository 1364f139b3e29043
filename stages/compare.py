"""Stage compare: pair the baseline and candidate runs by case id and compare them.

Usage: ``python stages/compare.py`` from the repository root. Reads params ``compare.baseline``,
``compare.candidate``, ``rag.bootstrap_resamples``, ``rag.seed``, the two run tables and their
``metrics/rag/<version>.json`` (for the dataset hash each run was made on); writes
``metrics/compare.json`` (counts and statistics) and ``reports/compare.json`` (the id lists).
"""

from __future__ import annotations


def main() -> None:
    from assay.rag.compare import CompareParams, compare_runs, read_run, run_provenance
    from assay.core.io import write_csv, write_json
    from assay.core.params import load_section
    from assay.rag.runner import RagParams

    names = load_section("compare", CompareParams)
    rag = load_section("rag", RagParams)
    paths = {name: f"data/derived/runs/{name}.parquet" for name in (names.baseline, names.candidate)}
    metrics, report = compare_runs(read_run(paths[names.baseline]), read_run(paths[names.candidate]),
                                   rag.bootstrap_resamples, rag.seed, names=(names.baseline, names.candidate))
    prov = run_provenance(paths, {name: f"metrics/rag/{name}.json" for name in paths})
    write_json("metrics/compare.json", {**metrics, **prov})
    write_json("reports/compare.json", {**report, **prov})
    for side in ("baseline", "candidate"):
        write_csv(f"reports/plots/pass_by_task_{side}.csv", ("task", "pass_rate", "n"),
                  ((task, v["pass_rate"], v["n"]) for task, v in metrics[f"{side}_by_task"].items()))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("compare", main)
