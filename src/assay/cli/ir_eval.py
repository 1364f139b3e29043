"""`assay ir-eval QRELS RUN`: IR measures of a TREC run against TREC qrels, with trec_eval semantics."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.relevance.measures import Evaluation

DEFAULT = "R@10,nDCG@10,RR@10,P@10,AP"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ir-eval", help="IR measures (R@10, nDCG@10, RR@10, P@10, AP) of a TREC run, as trec_eval computes them",
                       description="Evaluate a TREC run (qid Q0 docno rank score tag) against TREC qrels "
                                   "(qid 0 docno grade) with trec_eval's semantics: documents ranked by score, ties "
                                   "by docno descending, the rank column ignored; grade -1 has gain 0; relevant means "
                                   "grade >= --relevance-level. The mean is over queries in both files (trec_eval "
                                   "default); --complete averages over every qrels query, a missing one scoring 0 "
                                   "(trec_eval -c). Bad lines are errors naming file:line: a line over 64 KB, bytes that are not "
                                   "UTF-8, a NUL or control character, a grade outside -1 to 100; so are an empty qrels "
                                   "file and a run sharing no query with the qrels (exit 1).")
    p.add_argument("qrels", help="TREC qrels file: qid iter docno grade")
    p.add_argument("run", help="TREC run file: qid Q0 docno rank score tag")
    p.add_argument("--measures", default=DEFAULT, metavar="LIST",
                   help=f"comma-separated ir_measures names: P@k, R@k, nDCG@k, RR@k, RR, AP (default {DEFAULT})")
    p.add_argument("--relevance-level", type=int, default=1, metavar="N",
                   help="lowest grade that counts as relevant for P, R, RR and AP (trec_eval -l; default 1)")
    p.add_argument("--complete", action="store_true",
                   help="average over every query in the qrels, scoring queries the run lacks as 0 (trec_eval -c)")
    p.add_argument("--allow-sealed", action="store_true",
                   help="allow reading sealed-holdout files (after `assay study open-holdout`; each read is logged)")
    p.add_argument("--json", action="store_true",
                   help='print {"mean": {...}, "per_query": {qid: {...}}, "queries": {...}, "note": ...} as JSON')
    p.set_defaults(func=run)


def render(path: str, evaluation: Evaluation) -> str:
    """A table of means plus the query counts and which queries were missing."""
    out = [f"{path}: {len(evaluation.per_query)} queries scored"]
    width = max(len(name) for name in evaluation.mean)
    out += [f"{name:<{width}}  {value:.4f}" for name, value in evaluation.mean.items()]
    if evaluation.missing_from_run:
        how = "scored 0 (--complete)" if evaluation.complete else "not in the mean (use --complete to score them 0)"
        out.append(f"{len(evaluation.missing_from_run)} qrels queries missing from the run, {how}: "
                   + ", ".join(evaluation.missing_from_run[:10]) + (" ..." if len(evaluation.missing_from_run) > 10 else ""))
    if evaluation.not_in_qrels:
        out.append(f"{len(evaluation.not_in_qrels)} run queries without judgments, ignored")
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace) -> int:
    from assay.study.evidence import redacting
    from assay.study.opening import guard_sealed_reads

    root = guard_sealed_reads([args.qrels, args.run], "ir-eval", args.allow_sealed)
    with redacting(root):
        text = _evaluate(args)
    print(root.redact(text) if root is not None else text, end="")  # never the evidence root's value
    return 0


def _evaluate(args: argparse.Namespace) -> str:
    from assay.core.errors import InputError, Problem
    from assay.core.io import dumps_json
    from assay.relevance.measures import evaluate, parse_measures
    from assay.relevance.trec import read_qrels, read_run

    measures = parse_measures(args.measures)
    qrels, ranking = read_qrels(args.qrels), read_run(args.run)
    judged, ranked = set(qrels.table["qid"].unique()), set(ranking.table["qid"].unique())  # distinct ids, not every row
    if not judged & ranked:  # every measure would be nan (or 0 with --complete): a mismatch, not a result
        raise InputError([Problem(args.run, None, "qid", f"no query id in common with {args.qrels} ({len(judged)} judged "
                                  f"queries, {len(ranked)} in the run; for example {sorted(judged)[:1]} and {sorted(ranked)[:1]})",
                                  "evaluate the run against the qrels of the same queries (the ids must match exactly)")])
    evaluation = evaluate(qrels, ranking, measures, args.relevance_level, args.complete)
    return dumps_json(evaluation.to_json()) if args.json else render(args.run, evaluation)
