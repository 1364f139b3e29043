"""DVC stage `sensitivity`: the configured judge labels every pair under two prompt wordings.

The labels come from the judge's stored replies (data/derived/judge/, written by the `judge` stage).
"""

from assay.core.io import sha256_file, write_json, write_text
from assay.judge.params import JudgeParams
from assay.judge.replay import ReplayJudge
from assay.data.pairs import load_pairs
from assay.core.params import load_section
from assay.judge.prompts import load_prompt
from assay.core.provenance import provenance
from assay.judge.sensitivity import sensitivity_markdown, sensitivity_metrics, wording_sensitivity
from assay.core.stage import run_stage


def main() -> None:
    params = load_section("judge", JudgeParams)
    pairs = sorted(load_pairs(params.pairs), key=lambda p: p.id)
    a, b = (load_prompt(params.prompt_path(v)) for v in params.sensitivity_versions)
    report = wording_sensitivity(ReplayJudge.open(pairs=pairs), pairs, a, b, swap=params.swap)
    write_json("metrics/sensitivity.json", {**sensitivity_metrics(report), **provenance(pairs=sha256_file(params.pairs))})
    write_text("reports/sensitivity.md", sensitivity_markdown(report))


if __name__ == "__main__":
    run_stage("sensitivity", main)
