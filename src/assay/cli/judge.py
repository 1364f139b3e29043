"""`assay judge doctor`: check the OpenAI-compatible judge server params.yaml names, and suggest its settings.

See :mod:`assay.judge.checkup`: one request per ``response_format`` shape, one request alone and
``--parallel`` at once; prints what came back and the ``judge.openai`` settings to use
(``concurrency``, ``timeout``, ``response_format``). Progress lines go to stderr, the result to
stdout. Exit 0 when the server answered, 1 (one line, with the fix) when it answered nothing.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge", help="check the judge server: response formats, latency, parallelism",
                       description="Commands about the LLM judge that params.yaml configures (judge.kind openai).")
    js = p.add_subparsers(dest="judge_command", required=True, metavar="SUBCOMMAND")
    d = js.add_parser("doctor", help="send a few requests to the judge server and suggest concurrency, timeout and "
                                     "response_format",
                      description="Send one request per response_format shape (none, json_object, json_schema), one "
                                  "request alone and --parallel requests at once to the OpenAI-compatible server "
                                  "judge.openai names, with no retries and no cache; print what came back, the latency, "
                                  "how many requests the server works on at once, and the judge.openai settings that "
                                  "follow. --base-url and --model check a server before params.yaml names it.")
    d.add_argument("--params", default="params.yaml", metavar="FILE",
                   help="params file with the judge and inputs sections (default: %(default)s)")
    d.add_argument("--base-url", default=None, metavar="URL",
                   help="API root to check instead of judge.openai.base_url, e.g. http://127.0.0.1:8080/v1")
    d.add_argument("--model", default=None, help="model name to send instead of judge.openai.model")
    d.add_argument("--api-key-env", default=None, metavar="NAME",
                   help="NAME of the environment variable holding the key, instead of judge.openai.api_key_env")
    d.add_argument("--parallel", type=int, default=4, metavar="N",
                   help="requests sent at once to measure the server's parallelism, at least 2 (default: %(default)s)")
    d.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                   help="seconds one request may take; a request sent with N others gets N times this "
                        "(default: %(default)s)")
    d.set_defaults(func=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    import sys

    from pydantic import ValidationError

    from assay.core.errors import InputError, Problem
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.core.records import problems_from
    from assay.judge.checkup import checkup_text, run_checkup
    from assay.judge.openai import OpenAIJudgeParams
    from assay.judge.params import JudgeParams
    from assay.judge.prompts import load_prompt

    if args.parallel < 2:
        raise InputError([Problem("--parallel", None, None, f"{args.parallel} is below 2", "pass --parallel 2 or more")])
    if not 0 < args.timeout <= 3600:  # nan fails both comparisons, so it is refused too
        raise InputError([Problem("--timeout", None, None, f"{args.timeout} is not a number of seconds in (0, 3600]",
                                  "pass --timeout 120")])
    params = load_section("judge", JudgeParams, args.params)
    settings = dict(params.openai or {})
    overrides = {"base_url": args.base_url, "model": args.model, "api_key_env": args.api_key_env}
    settings.update({k: v for k, v in overrides.items() if v is not None})
    if params.kind != "openai" and not (args.base_url and args.model):
        raise InputError([Problem(args.params, None, "judge.kind", f"{params.kind!r}: the fake judge has no server to check",
                                  "set judge.kind: openai with judge.openai.base_url and model, or pass --base-url and --model")])
    try:
        openai = OpenAIJudgeParams.model_validate(settings)
    except ValidationError as error:
        raise InputError(problems_from(error, args.params, None, OpenAIJudgeParams, prefix="judge.openai")) from None
    prompt = load_prompt(params.prompt_file(input_paths(args.params).prompts))
    checkup = run_checkup(openai, prompt, parallel=args.parallel, timeout=args.timeout,
                          log=lambda line: print(f"judge doctor: {line}", file=sys.stderr, flush=True))
    print(checkup_text(checkup))
    return 0
