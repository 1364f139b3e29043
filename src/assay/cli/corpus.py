"""`assay corpus build` and `assay corpus queries`: the retrieval part's inputs from a team's own files."""

from __future__ import annotations

import argparse
import datetime as dt


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("corpus", help="build a study corpus from your documents, or retrieval queries from your cases",
                       description="Inputs of the retrieval part (docs/retrieval.md). `build` writes a second corpus in "
                                   "the study-corpus format (JSONL) from .txt, .md and .jsonl files; `queries` writes "
                                   "retrieval queries and qrels from the project's cases.")
    commands = p.add_subparsers(dest="corpus_command", required=True, metavar="COMMAND")
    b = commands.add_parser("build", help="write a study corpus (JSONL) from .txt, .md and .jsonl files or folders",
                            description="Read every .txt, .md and .jsonl file of SOURCE (folders walked, sorted), give each "
                                        "document an id from the SHA-256 of its text (or the id a .jsonl row gives), "
                                        "check every field and link, and write the corpus sorted by id. Every problem "
                                        "is reported with file, line and field, and then nothing is written.")
    b.add_argument("sources", nargs="+", metavar="SOURCE", help="a .txt, .md or .jsonl file, or a folder of them")
    b.add_argument("--out", required=True, metavar="FILE",
                   help="the corpus file to write, inside the project (e.g. data/relevance/corpus.jsonl)")
    b.add_argument("--lang", metavar="TAG", help="BCP 47 tag of the documents that do not give one (e.g. es, de, pt-BR)")
    b.add_argument("--valid-from", metavar="YYYY-MM-DD", type=dt.date.fromisoformat,
                   help="the date documents that do not give one hold from")
    b.set_defaults(func=run_build)
    q = commands.add_parser("queries", help="write retrieval queries and qrels from the project's cases",
                            description="One query per case (its id and question); an answer case's doc_ids are its "
                                        "acceptable citations and its qrels (grade 2), an abstain case is an abstain query.")
    q.add_argument("--cases", default="data/cases.jsonl", help="the cases file (default: data/cases.jsonl)")
    q.add_argument("--corpus", default="data/corpus", help="the corpus folder the cases cite (default: data/corpus)")
    q.add_argument("--queries-out", default="data/relevance/queries.jsonl",
                   help="the queries file to write (default: data/relevance/queries.jsonl)")
    q.add_argument("--qrels-out", default="data/relevance/qrels.cases.trec",
                   help="the qrels file to write (default: data/relevance/qrels.cases.trec)")
    q.set_defaults(func=run_queries)


def _inside(*paths: str) -> None:
    """Refuse a path that leads outside the project (the current folder)."""
    from pathlib import Path

    from assay.core.confinement import outside_problem
    from assay.core.errors import InputError, Problem

    problems = [Problem(path, None, None, why, "write inside the project, e.g. data/relevance/corpus.jsonl")
                for path in paths if (why := outside_problem(path, Path.cwd().resolve())) is not None]
    if problems:
        raise InputError(problems)


def run_build(args: argparse.Namespace) -> int:
    from pathlib import Path

    from assay.relevance.builder import Defaults, build_documents, write_corpus

    _inside(args.out, *args.sources)
    documents = build_documents(args.sources, Defaults(lang=args.lang, valid_from=args.valid_from))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_corpus(documents, args.out)
    langs = sorted({str(d.lang) for d in documents})
    print(f"wrote {args.out}: {len(documents)} document(s), {len({d.family for d in documents})} families, "
          f"languages {', '.join(langs)}")
    return 0


def run_queries(args: argparse.Namespace) -> int:
    from pathlib import Path

    from assay.relevance.case_queries import write_case_queries

    _inside(args.cases, args.corpus, args.queries_out, args.qrels_out)
    for out in (args.queries_out, args.qrels_out):
        Path(out).parent.mkdir(parents=True, exist_ok=True)
    n = write_case_queries(args.cases, args.corpus, args.queries_out, args.qrels_out)
    print(f"wrote {args.queries_out} ({n} queries) and {args.qrels_out} from {args.cases}")
    return 0
