"""DVC stage `probe`: bias probes (first_pick, order_flip, longer_wins, self_wins) for the configured judge.

Reads params ``judge.kind``, ``judge.preset``, ``judge.openai``, ``judge.prompt_version``,
``inputs.pairs`` (kinds: ``agreement.kinds``) and ``inputs.prompts``; reads only the prompt file of the version in use. Writes
metrics/bias.json (the configured judge's probe shares and counts), reports/provenance/probe.json
(judge identity, prompt, label hash, pairs file hash) and reports/bias.md (a table for every fake preset, plus the
configured judge when it is not a fake).
"""


def main() -> None:
    from assay.artifacts.provenance import provenance
    from assay.artifacts.registry import BIAS, BIAS_PAGE, write_record
    from assay.core.io import sha256_file
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.data.pairs import load_pairs, pair_kinds
    from assay.judge.calibration import labels_hash
    from assay.judge.params import JudgeParams
    from assay.judge.replay import ReplayJudge
    from assay.judge.probe import bias_probes, preset_table, probe_markdown
    from assay.judge.prompts import load_prompt

    params = load_section("judge", JudgeParams)
    paths = input_paths()
    pairs = load_pairs(paths.pairs, pair_kinds())
    prompt = load_prompt(params.prompt_file(paths.prompts))
    judge = ReplayJudge.open(pairs=pairs)
    probes = bias_probes(judge, pairs, prompt)
    labels_sha = labels_hash(pairs)
    settings = {"judge": judge.identity, "prompt": {"name": prompt.name, "version": prompt.version, "sha": prompt.sha}}
    # the pairs file's hash beside the label set's lets the gate trust the latter while the bytes are unchanged
    write_record(BIAS, probes, provenance(prompt=prompt.sha, labels=labels_sha, pairs=sha256_file(paths.pairs),
                                          settings=settings))
    BIAS_PAGE.write(probe_markdown(params.kind, params.preset, probes, preset_table(pairs, prompt),
                                   prompt, labels_sha))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("probe", main)
