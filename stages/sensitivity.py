"""DVC stage `sensitivity`: the configured judge labels every pair under two prompt wordings."""


def main() -> None:
    from assay.artifacts.registry import SENSITIVITY, write_record
    from assay.core.io import sha256_file, write_text
    from assay.core.params import load_section
    from assay.data.pairs import load_pairs
    from assay.judge.factory import JudgeParams, make_judge
    from assay.judge.prompts import load_prompt
    from assay.judge.sensitivity import outputs, sensitivity_markdown, wording_sensitivity

    params = load_section("judge", JudgeParams)
    pairs = sorted(load_pairs(params.pairs), key=lambda p: p.id)
    a, b = (load_prompt(params.prompt_path(v)) for v in params.sensitivity_versions)
    report = wording_sensitivity(make_judge(params), pairs, a, b, swap=params.swap)
    write_record(SENSITIVITY, *outputs(report, pairs=sha256_file(params.pairs)))
    write_text("reports/sensitivity.md", sensitivity_markdown(report))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("sensitivity", main)
