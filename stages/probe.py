"""DVC stage `probe`: bias probes (first_pick, order_flip, longer_wins, self_wins) for the configured judge.

Reads params ``judge.kind``, ``judge.preset``, ``judge.prompt_version``, ``judge.prompts_dir`` and
``judge.pairs``; reads only the prompt file of the version in use, and the configured judge's stored
replies (data/derived/judge/, written by the `judge` stage; the fake presets of the table are run
here, they are deterministic). Writes
metrics/bias.json (the configured judge's probes and provenance) and reports/bias.md (a table for
every fake preset, plus the configured judge when it is not a fake).
"""


def main() -> None:
    from assay.judge.calibration import labels_hash
    from assay.core.io import write_json, write_text
    from assay.judge.params import JudgeParams
    from assay.judge.replay import ReplayJudge
    from assay.data.pairs import load_pairs
    from assay.core.params import load_section
    from assay.judge.probe import bias_probes, preset_table, probe_markdown
    from assay.judge.prompts import load_prompt
    from assay.core.provenance import provenance

    params = load_section("judge", JudgeParams)
    pairs = load_pairs(params.pairs)
    prompt = load_prompt(params.prompt_file)
    judge = ReplayJudge.open(pairs=pairs)
    probes = bias_probes(judge, pairs, prompt)
    labels_sha = labels_hash(pairs)
    write_json("metrics/bias.json", {**probes, "judge": judge.identity,
                                     "prompt": {"name": prompt.name, "version": prompt.version, "sha": prompt.sha},
                                     **provenance(prompt=prompt.sha, labels=labels_sha)})
    write_text("reports/bias.md", probe_markdown(params.kind, params.preset, probes, preset_table(pairs, prompt),
                                                prompt, labels_sha))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("probe", main)
