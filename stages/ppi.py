"""DVC stage `ppi`: judge-only, human-only and judge-corrected (PPI) estimates of the candidate against the baseline.

Reads params ``ppi.reviews``, ``ppi.min_labelled``, ``ppi.level``, ``judge.prompt_version``,
``compare.baseline``, ``compare.candidate``, ``inputs.cases`` and ``inputs.prompts``; the two run
tables; the judge_compare stage's stored replies (replayed: no server); the review snapshots named
in ``ppi.reviews`` (each a random fill of ``--from compare``; a hard fill is refused); and, when it
exists, metrics/calibration.json (a declared dependency, its hash recorded in provenance: only to say
whether the judge is usable, but a judge-rule change must re-run this stage). Writes metrics/ppi.json,
reports/ppi.md, reports/plots/ppi_win_rate.csv and reports/provenance/ppi.json.
"""

import sys


def main() -> None:
    from assay.artifacts.provenance import provenance
    from assay.artifacts.registry import CALIBRATION, CORRECTED, CORRECTED_PAGE, CORRECTED_PLOT, write_record
    from assay.core.io import sha256_file, sha256_tree
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.judge.matchup import FIX, JUDGE_COMPARE_INPUT, REPLIES_DIR, judge_values
    from assay.judge.params import JudgeParams
    from assay.judge.prompts import load_prompt
    from assay.judge.replay import ReplayJudge
    from assay.queue.corrected import CorrectedParams, corrected_metrics, join
    from assay.queue.corrected_report import plot_rows, report_markdown
    from assay.queue.labelled import labelled_cases, other_comparisons
    from assay.queue.snapshot import ReviewParams, read_snapshot
    from assay.rag.compare import CompareParams, version_matchups

    params = load_section("ppi", CorrectedParams)
    judge_params = load_section("judge", JudgeParams)
    names = load_section("compare", CompareParams)
    paths = input_paths()
    runs, items = version_matchups(paths.cases, names)
    prompt = load_prompt(judge_params.prompt_file(paths.prompts))
    judge = ReplayJudge.open(REPLIES_DIR, pairs=items, fix=FIX)
    snapshots = [(p, read_snapshot(p)) for p in map(ReviewParams().path, params.reviews)]
    labelled, other_versions = labelled_cases(snapshots, names.baseline, names.candidate)
    cases, stale = join(items, judge_values(items, judge, prompt), labelled)
    metrics = corrected_metrics(cases, params, other_versions + stale, any(s.queue.synthetic for _, s in snapshots), stale)
    calibration = CALIBRATION.read_optional()
    usable = None if calibration is None else calibration.usable == 1
    inputs = {"cases_file": sha256_file(paths.cases), "prompt": prompt.sha, JUDGE_COMPARE_INPUT: sha256_tree(REPLIES_DIR),
              **{f"run_{k}": sha256_file(v) for k, v in runs.items()},
              **{f"review_{n}:snapshot": sha256_file(p) for n, (p, _) in zip(params.reviews, snapshots, strict=True)},
              **({CALIBRATION.relpath(): sha256_file(CALIBRATION.path())} if calibration is not None else {})}
    write_record(CORRECTED, metrics, provenance(settings={"judge": judge.identity, **params.model_dump(),
                                                          "baseline": names.baseline, "candidate": names.candidate},
                                                details={"judge_usable": usable}, **inputs))
    left_out = other_comparisons(snapshots, names.baseline, names.candidate)
    for line in left_out:
        print(f"stage ppi: {line}", file=sys.stderr)
    CORRECTED_PAGE.write(report_markdown(metrics, usable, [p for p, _ in snapshots], left_out))
    CORRECTED_PLOT.write(plot_rows(metrics))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("ppi", main)
