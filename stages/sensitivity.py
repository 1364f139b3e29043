"""DVC stage `sensitivity`: the configured judge labels every pair under two prompt wordings.

The labels come from the judge's stored replies (data/derived/judge/, written by the `judge` stage).
"""


def main() -> None:
    from assay.artifacts.registry import SENSITIVITY, SENSITIVITY_PAGE, write_record
    from assay.core.io import sha256_file
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.data.pairs import load_pairs, pair_kinds
    from assay.judge.params import JudgeParams
    from assay.judge.replay import ReplayJudge
    from assay.judge.prompts import load_prompt
    from assay.judge.sensitivity import outputs, sensitivity_markdown, wording_sensitivity

    params = load_section("judge", JudgeParams)
    paths = input_paths()
    pairs = sorted(load_pairs(paths.pairs, pair_kinds()), key=lambda p: p.id)
    a, b = (load_prompt(params.prompt_file(paths.prompts, v)) for v in params.sensitivity_versions)
    report = wording_sensitivity(ReplayJudge.open(pairs=pairs), pairs, a, b, swap=params.swap)
    write_record(SENSITIVITY, *outputs(report, pairs=sha256_file(paths.pairs)))
    SENSITIVITY_PAGE.write(sensitivity_markdown(report))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("sensitivity", main)
