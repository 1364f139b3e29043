"""DVC stage `calibrate`: the configured judge against the final human labels.

Reads params ``judge.prompt_version``, ``judge.prompts_dir``, ``judge.pairs``, ``judge.swap`` and the
usability and bootstrap settings, only the prompt file of the version in use, and the judge's stored
replies (data/derived/judge/, written by the `judge` stage): it asks no judge, so it needs no key.
Writes metrics/calibration.json (scalars and nested dicts: totals, slices, error shape, usability,
provenance), reports/calibration.md (readable summary with the usability reasons),
reports/judge_dimensions.jsonl (per pair: id, human final, judge label, rule-based dimension
verdicts) and reports/plots/confusion_judge.csv (columns final, judge; one row per pair).
"""


def main() -> None:
    from assay.judge.calibration import calibration_run, metrics, pair_rows, report_markdown
    from assay.core.io import write_csv, write_json, write_jsonl, write_text
    from assay.judge.params import JudgeParams
    from assay.judge.replay import ReplayJudge
    from assay.data.pairs import load_pairs
    from assay.core.params import load_section
    from assay.judge.prompts import load_prompt

    params = load_section("judge", JudgeParams)
    pairs = sorted(load_pairs(params.pairs), key=lambda p: p.id)
    prompt = load_prompt(params.prompt_file)
    run = calibration_run(pairs, ReplayJudge.open(pairs=pairs), prompt, swap=params.swap,
                          resamples=params.bootstrap_resamples, seed=params.seed, min_kappa=params.min_kappa,
                          min_slice_agreement=params.min_slice_agreement)
    write_json("metrics/calibration.json", metrics(run.record))
    write_text("reports/calibration.md", report_markdown(run.record))
    write_jsonl("reports/judge_dimensions.jsonl", pair_rows(pairs, run.labels))
    write_csv("reports/plots/confusion_judge.csv", ("final", "judge"), ((p.final, j) for p, j in zip(pairs, run.labels)))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("calibrate", main)
