"""DVC stage `judge_compare`: the judge compares the baseline's and the candidate's answer on every case.

Reads params ``judge.kind``, ``judge.preset``, ``judge.openai``, ``judge.prompt_version``, ``compare.baseline``,
``compare.candidate``, ``inputs.cases`` and ``inputs.prompts``, the two versions' run tables and the
prompt file in use. Asks every case both runs answered differently, in both orders (``assay.judge.matchup``) and
writes, under data/derived/judge_compare/ (committed, ``cache: false``): judge.json (the judge's
identity before any reply, its key order and the input hashes) and ``pairwise_v<N>.jsonl`` (one row
per case and order); metrics/judge_compare.json (item and status counts) and
reports/provenance/judge_compare.json. The ``ppi`` stage and ``assay queue create --from compare``
replay the replies. With ``judge.kind: openai`` it needs the endpoint and its key.
"""


def main() -> None:
    from pathlib import Path

    from assay.artifacts.provenance import provenance as record
    from assay.artifacts.registry import (JUDGE_COMPARE, JUDGE_COMPARE_IDENTITY, JUDGE_COMPARE_REPLY_FILE, write_record)
    from assay.artifacts.reports import JudgeIdentityFile
    from assay.core.io import sha256_file
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.artifacts.provenance import provenance
    from assay.judge.factory import JudgeParams, make_judge
    from assay.judge.matchup import REPLIES_DIR, asked, replies_path
    from assay.judge.prompts import load_prompt
    from assay.judge.replies import ask_in_batches, run_counts, status_line, write_replies
    from assay.rag.compare import CompareParams, version_matchups

    params = load_section("judge", JudgeParams)
    names = load_section("compare", CompareParams)
    paths = input_paths()
    runs, items = version_matchups(paths.cases, names)
    prompt = load_prompt(params.prompt_file(paths.prompts))
    judge = make_judge(params)
    identity = judge.identity  # before any reply: what params alone determine
    out = replies_path(prompt)
    rows = ask_in_batches(judge, identity, asked(items), prompt, both_orders=True)
    statuses = write_replies(JUDGE_COMPARE_REPLY_FILE, out, rows, out.stem)
    for stale in set(Path(REPLIES_DIR).glob("*.jsonl")) - {out}:  # a prompt version no longer in use
        stale.unlink()
    inputs = {"cases_file": sha256_file(paths.cases), **{f"run_{k}": sha256_file(v) for k, v in runs.items()}}
    JUDGE_COMPARE_IDENTITY.write(JudgeIdentityFile(judge=identity, judge_keys=list(identity), **provenance(**inputs).head()))
    print(f"judge_compare: {len(items)} cases, {len(items) - len(asked(items))} with identical answers (a tie, not asked); "
          f"{status_line(prompt, statuses)}")
    write_record(JUDGE_COMPARE, run_counts(judge, statuses),
                 record(settings={"judge": identity, "baseline": names.baseline, "candidate": names.candidate},
                        prompt=prompt.sha, **inputs))


if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("judge_compare", main)
