"""DVC stage `probe`: bias probes (first_pick, order_flip, longer_wins, self_wins) for the configured judge.

Reads params ``judge.kind``, ``judge.preset``, ``judge.openai``, ``judge.prompt_version``,
``judge.prompts_dir`` and ``judge.pairs``; reads only the prompt file of the version in use. Writes
metrics/bias.json (the configured judge's probes and provenance) and reports/bias.md (a table for
every fake preset, plus the configured judge when it is not a fake).
"""


def main() -> None:
    from assay.calibration import labels_hash
    from assay.io import write_json, write_text
    from assay.judge.factory import JudgeParams, make_judge
    from assay.pairs import load_pairs
    from assay.params import load_section
    from assay.probe import bias_probes, preset_table, table_markdown
    from assay.prompts import load_prompt
    from assay.provenance import provenance

    params = load_section("judge", JudgeParams)
    pairs = load_pairs(params.pairs)
    prompt = load_prompt(params.prompt_file)
    judge = make_judge(params)
    probes = bias_probes(judge, pairs, prompt)
    labels_sha = labels_hash(pairs)
    write_json("metrics/bias.json", {**probes, "judge": judge.identity,
                                     "prompt": {"name": prompt.name, "version": prompt.version, "sha": prompt.sha},
                                     **provenance(prompt=prompt.sha, labels=labels_sha)})
    table = preset_table(pairs, prompt)
    if params.kind != "fake":
        table[f"configured ({params.kind})"] = probes
    configured = f"fake preset `{params.preset}`" if params.kind == "fake" else f"`{params.kind}`"
    write_text("reports/bias.md", "\n".join([
        "# Judge bias probes", "",
        f"Pairs: {probes['n_pairs']} (labels {labels_sha[:10]}); prompt {prompt.label} (sha {prompt.short_sha}); "
        f"configured judge: {configured}. Every pair is asked in both orders.", "",
        table_markdown(table),
        "- first_pick: share of decisive single-order verdicts that picked the answer shown first (0.5 is fair).",
        "- order_flip: share of pairs whose verdict changes when the order is swapped.",
        f"- longer_wins: share of {probes['n_verbose_tie']} verbose_tie pairs (humans: tie) where the longer answer "
        "wins in both orders.",
        f"- self_wins: share of {probes['n_self']} self pairs where the uncited answer in the judge's own style wins "
        "in both orders (humans pick the cited one).",
        "",
        "The fake judge does not read the prompt, so these rows cannot show sensitivity to prompt wording; "
        "a real judge can, and should be probed with two prompt versions.",
        "",
    ]))


if __name__ == "__main__":
    from assay.stage import run_stage

    run_stage("probe", main)
