"""DVC stage `calibrate`: the configured judge against the final human labels.

Reads params ``judge.*`` (every key of the section), ``inputs.pairs`` (kinds: ``agreement.kinds``) and ``inputs.prompts``, and only
the prompt file of the version in use.
Writes metrics/calibration.json (numbers: totals, slices, error shape, usable as 1/0),
reports/provenance/calibrate.json (prompt, judge, labels and settings hashes; usability reasons),
reports/calibration.md (readable summary with the usability reasons), reports/judge_dimensions.jsonl
(per pair: id, human final, judge label, rule-based dimension verdicts) and
reports/plots/confusion_judge.csv (columns final, judge; one row per pair).
"""


def main() -> None:
    from assay.artifacts.registry import CALIBRATION, CALIBRATION_PAGE, CONFUSION_JUDGE, JUDGE_DIMENSIONS, write_record
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.data.pairs import load_pairs, pair_kinds
    from assay.judge.calibration import calibration_run, outputs, pair_rows
    from assay.judge.calibration_report import report_markdown
    from assay.judge.params import JudgeParams
    from assay.judge.replay import ReplayJudge
    from assay.judge.prompts import load_prompt

    params = load_section("judge", JudgeParams)
    paths = input_paths()
    pairs = sorted(load_pairs(paths.pairs, pair_kinds()), key=lambda p: p.id)
    prompt = load_prompt(params.prompt_file(paths.prompts))
    run = calibration_run(pairs, ReplayJudge.open(pairs=pairs), prompt, swap=params.swap, rule=params.rule)
    write_record(CALIBRATION, *outputs(run.record))
    CALIBRATION_PAGE.write(report_markdown(run.record))
    JUDGE_DIMENSIONS.write(pair_rows(pairs, run.labels))
    CONFUSION_JUDGE.write((p.final, j) for p, j in zip(pairs, run.labels, strict=True))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("calibrate", main)
