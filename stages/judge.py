"""DVC stage `judge`: ask the configured judge everything calibrate, probe and sensitivity need, and store the replies.

Reads params ``judge.kind``, ``judge.preset``, ``judge.openai``, ``judge.prompt_version``,
``judge.swap``, ``judge.sensitivity_versions``, ``judge.duplicates``, ``inputs.pairs`` (kinds:
``agreement.kinds``) and ``inputs.prompts``, and the prompt files of the versions asked (see
``assay.judge.replies.requested``). Writes, under
data/derived/judge/ (committed, ``cache: false``): judge.json (the judge's identity before any reply,
its keys in the judge's own order, since JSON objects are written sorted, and the input hashes) and one
``pairwise_v<N>.jsonl`` of replies per prompt version asked. Also writes metrics/judge.json (item,
request, failure and status counts: the same bytes whether the replies came from the server or the
response cache), reports/provenance/judge.json, reports/judge.md (those counts and a sample of
invalid or refused replies, truncated, secrets redacted) and, not committed, .assay/judge_client.json
(cache hits and HTTP attempts, also printed). The only stage that talks to a judge; with ``judge.kind: openai`` it needs the endpoint
and its key.
"""


from collections import Counter


def main() -> None:
    from assay.artifacts.registry import JUDGE_IDENTITY, JUDGE_REPLIES, JUDGE_REPLY_FILE
    from assay.artifacts.reports import JudgeIdentityFile
    from assay.core.io import sha256_file
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.artifacts.provenance import provenance
    from assay.data.pairs import load_pairs, pair_kinds
    from assay.judge.factory import JudgeParams, make_judge
    from assay.judge.prompts import load_prompt
    from assay.core.io import atomic_paths
    from assay.judge.replies import ask_in_batches, replies_file, requested, status_line, write_replies

    params = load_section("judge", JudgeParams)
    paths = input_paths()
    pairs = load_pairs(paths.pairs, pair_kinds(), params.duplicates)
    versions = requested(params.prompt_version, params.sensitivity_versions, params.swap)
    prompts = {v: load_prompt(params.prompt_file(paths.prompts, v)) for v in versions}
    judge = make_judge(params)
    identity = judge.identity  # before any reply: what params alone determine
    targets = [replies_file(JUDGE_REPLIES.path(), prompts[v]) for v in versions]
    statuses = {}
    with atomic_paths(targets) as staged:  # nothing lands until every request has a reply
        for (version, both_orders), path, tmp in zip(versions.items(), targets, staged, strict=True):
            rows = ask_in_batches(judge, identity, pairs, prompts[version], both_orders)
            statuses[version] = write_replies(JUDGE_REPLY_FILE, tmp, rows, path.stem)
            print(f"judge: {status_line(prompts[version], statuses[version])}")
    for stale in set(JUDGE_REPLIES.path().glob("*.jsonl")) - set(targets):  # a version no longer asked
        stale.unlink()
    JUDGE_IDENTITY.write(JudgeIdentityFile(judge=identity, judge_keys=list(identity),
                                           **provenance(pairs=sha256_file(paths.pairs)).head()))
    write_run_record(judge, identity, sum(statuses.values(), Counter()), paths.pairs, prompts)


def write_run_record(judge, identity: dict, statuses: Counter, pairs_file: str, prompts: dict) -> None:
    """metrics/judge.json (counts), reports/provenance/judge.json, reports/judge.md (invalid replies, redacted)
    and .assay/judge_client.json (cache hits and HTTP attempts; not committed)."""
    from assay.artifacts.provenance import provenance
    from assay.artifacts.registry import JUDGE, JUDGE_CLIENT, JUDGE_PAGE, write_record
    from assay.core.io import sha256_file
    from assay.judge.replies import client_counts, client_line, invalid_sample, run_counts, run_report

    client = client_counts(judge)
    JUDGE_CLIENT.write(client)
    if client.requests:  # the fake judge asks no server
        print(f"judge: {client_line(client)} ({JUDGE_CLIENT.relpath()}, not committed)")
    counts = run_counts(judge, statuses)
    inputs = {"pairs": sha256_file(pairs_file), **{f"prompt_v{v}": p.sha for v, p in prompts.items()}}
    write_record(JUDGE, counts, provenance(settings={"judge": identity}, **inputs))
    JUDGE_PAGE.write(run_report(counts, invalid_sample(judge)))

if __name__ == "__main__":
    from assay.core.stage import run_stage

    run_stage("judge", main)
