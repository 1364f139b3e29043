"""`assay relevance`: the human relevance study's commands (seed 003).

* ``scan PATH``: the de-identification scan of a packet, or of any file or folder.
* ``check JUDGMENTS --packet PACKET``: an annotator's judgments against the packet they were given.

Paths under ``$ASSAY_EVIDENCE_ROOT`` are printed as ``$ASSAY_EVIDENCE_ROOT/...`` and every message
is scrubbed of the root's value (:mod:`assay.study.evidence`). Each subcommand is one
``_register_*`` function in :data:`REGISTRARS`.
"""

from __future__ import annotations

import argparse
import sys


def _root():
    """The evidence root when the variable is set (it need not exist), else None: used only to hide it."""
    import os

    from assay.study.evidence import ENV, EvidenceRoot

    value = os.environ.get(ENV, "").strip()
    return EvidenceRoot(value) if value else None


def _show(root):
    """A function printing a path without the evidence root (resolved first, so relative paths are hidden too)."""
    from pathlib import Path

    def show(path) -> str:
        if root is None:
            return str(path)
        for candidate in (str(path), str(Path(path).resolve())):
            shown = root.show(candidate)
            if shown != candidate:
                return shown
            shown = root.redact(candidate)
            if shown != candidate:
                return shown
        return str(path)

    return show


def _register_scan(rs: argparse._SubParsersAction) -> None:
    p = rs.add_parser("scan", help="check a packet (or any file or folder) for what must not leave the evidence root",
                      description="Scan PATH (a file, or every file under a folder) line by line for URLs, hostnames, "
                                  "e-mail addresses, phone numbers, secrets (API-key shapes, private keys, "
                                  "high-entropy tokens), file-system paths and retrieval-mode names. Prints "
                                  "file:line:column kind for every hit (never the matched text) and exits 1 when "
                                  "there is any hit, 0 when clean, 2 when PATH does not exist.")
    p.add_argument("path", metavar="PATH", help="file or folder to scan")
    p.add_argument("--mode-name", action="append", default=[], metavar="NAME",
                   help="another retrieval-mode name to refuse (repeatable); the built-in list covers lexical, "
                        "semantic, hybrid, reranked, graph and their usual aliases")
    p.set_defaults(func=run_scan)


def run_scan(args: argparse.Namespace) -> int:
    from assay.core.errors import MissingArtifact
    from assay.study.scan import scan_path

    show = _show(_root())
    try:
        hits, files = scan_path(args.path, show, args.mode_name)
    except FileNotFoundError:
        raise MissingArtifact(f"relevance scan: {show(args.path)} does not exist (fix: check the path)") from None
    for hit in hits:
        print(hit)
    kinds = sorted({h.kind for h in hits})
    summary = (f"{len(hits)} hit(s) in {files} file(s): {', '.join(kinds)}; de-identify before the packet leaves the "
               "coordinator" if hits else f"clean: {files} file(s), no hit")
    print(summary, file=sys.stderr if hits else sys.stdout)
    return 1 if hits else 0


def _register_check(rs: argparse._SubParsersAction) -> None:
    p = rs.add_parser("check", help="check an annotator's judgments against their packet (missing, repeated, unknown, "
                                    "out-of-set rows)",
                      description="Compare JUDGMENTS (one JSONL row per query_id and document_id: relevance 2/1/0/-1, "
                                  "abstention_correct, acceptable_citation_ids, temporal_classification current/"
                                  "historical/conflicted/unknown) with PACKET. Every missing row, repeated pair, "
                                  "unknown pair and value outside its set is printed as file:line; any of them makes "
                                  "the packet incomplete (exit 1): return it to the annotator without reconciliation.")
    p.add_argument("judgments", metavar="JUDGMENTS", help="the annotator's judgments file (JSONL)")
    p.add_argument("--packet", required=True, metavar="PACKET", help="the packet the annotator was given (JSONL)")
    p.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    from assay.core.errors import AssayError
    from assay.study.judgments import check_judgments, require_complete

    root = _root()
    show = _show(root)
    try:
        checked = check_judgments(args.judgments, args.packet, show)
        rows = require_complete(checked, show(args.judgments))
    except AssayError as error:
        if root is not None:
            error.args = (root.redact(str(error)),)
        raise
    print(f"{show(args.judgments)}: complete, {len(rows)} judgment(s) cover every pair of {show(args.packet)}")
    return 0


REGISTRARS = [_register_scan, _register_check]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("relevance", help="the human relevance study: scan packets, check judgments",
                       description="Commands of the human relevance study (seed 003). Raw evidence lives under "
                                   "$ASSAY_EVIDENCE_ROOT, whose value is never printed.")
    rs = p.add_subparsers(dest="relevance_command", required=True, metavar="SUBCOMMAND")
    for registrar in REGISTRARS:
        registrar(rs)
