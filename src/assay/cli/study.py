"""`assay study` (alias `assay relevance`): the human relevance study's commands (docs/relevance-study.md).

* ``scan PATH``: the de-identification scan of a packet, or of any file or folder.
* ``check JUDGMENTS --packet PACKET``: an annotator's judgments against the packet they were given.
* ``intake [--check]``: lock the received evidence (:mod:`assay.study.received`), or compare it with the lock.
* ``receipt``, ``validate``, ``open-holdout``, ``verdict``: the study's later steps.

Paths under ``$ASSAY_EVIDENCE_ROOT`` are printed as ``$ASSAY_EVIDENCE_ROOT/...`` and every message
is scrubbed of the root's value (:mod:`assay.study.evidence`). Each subcommand is one
``_register_*`` function in :data:`REGISTRARS`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from os import PathLike
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.study.evidence import EvidenceRoot
    from assay.study.protocol import Study


def _root() -> EvidenceRoot | None:
    """The evidence root when the variable is set (it need not exist), else None: used only to hide it."""
    import os

    from assay.study.evidence import ENV, EvidenceRoot

    value = os.environ.get(ENV, "").strip()
    return EvidenceRoot(value) if value else None


def _show(root: EvidenceRoot | None) -> Callable[[str | PathLike[Any]], str]:
    """A function printing a path without the evidence root (resolved first, so relative paths are hidden too)."""
    from pathlib import Path

    def show(path: str | PathLike[Any]) -> str:
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
    p.add_argument("--names", metavar="FILE", default=None,
                   help="the coordinator's list of participants' and customers' names, one a line (# comments), "
                        "a file inside the repository; each is reported as 'possible personal name'")
    p.set_defaults(func=run_scan)


def run_scan(args: argparse.Namespace) -> int:
    from assay.core.errors import MissingArtifact
    from assay.study.scan import read_names, scan_path

    show = _show(_root())
    people = read_names(args.names, "--names") if args.names else []
    try:
        hits, files = scan_path(args.path, show, args.mode_name, people)
    except FileNotFoundError:
        raise MissingArtifact(f"study scan: {show(args.path)} does not exist (fix: check the path)") from None
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
    p.add_argument("--allow-sealed", action="store_true",
                   help="allow checking sealed-holdout judgments (each read is logged to the evidence root's access.log)")
    p.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    from assay.core.errors import AssayError
    from assay.study.judgments import check_judgments, require_complete

    from assay.study.opening import guard_sealed_reads

    root = _root()
    show = _show(root)
    try:
        guard_sealed_reads([args.judgments, args.packet], "study check", args.allow_sealed, require_opening=False)
        checked = check_judgments(args.judgments, args.packet, show)
        rows = require_complete(checked, show(args.judgments))
    except AssayError as error:
        if root is not None:
            error.args = (root.redact(str(error)),)
        raise
    print(f"{show(args.judgments)}: complete, {len(rows)} judgment(s) cover every pair of {show(args.packet)}")
    return 0


REGISTRARS = [_register_scan, _register_check]


#: The name the command group had first; it stays an alias of ``study``, with the same handlers.
ALIAS = "relevance"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("study", aliases=[ALIAS],
                       help=f"the human relevance study: packets, judgments, receipt, verdict (alias: {ALIAS})",
                       description="Commands of the human relevance study (protocol: docs/relevance-study.md). Raw "
                                   "evidence lives under $ASSAY_EVIDENCE_ROOT, whose value is never printed. "
                                   f"`assay {ALIAS} ...` is an alias of `assay study ...`: the same subcommands.")
    rs = p.add_subparsers(dest="study_command", required=True, metavar="SUBCOMMAND")
    for registrar in REGISTRARS:
        registrar(rs)


def _study_root() -> tuple[Study, EvidenceRoot]:
    """The study file and its evidence root ($ASSAY_EVIDENCE_ROOT, or a synthetic study's demo folder)."""
    from assay.study.protocol import evidence_root, load_study

    study = load_study()
    return study, evidence_root(study)


def _register_intake(rs: argparse._SubParsersAction) -> None:
    p = rs.add_parser("intake", help="lock the received evidence (judgments, decisions, opening) for DVC",
                      description="Write data/relevance/received.json: the SHA-256 (or \"absent\") of every file "
                                  "people hand in under $ASSAY_EVIDENCE_ROOT (each split's judgments_A.jsonl, "
                                  "judgments_B.jsonl and decisions.jsonl, and opening.json), named relative to the "
                                  "root. The study's stages depend on this lock, so after `assay study intake` "
                                  "`dvc repro` re-runs exactly the stages that read a changed file. With --check, "
                                  "write nothing: list every file that differs from the lock and exit 1, or exit 0 "
                                  "when all match.")
    p.add_argument("--check", action="store_true", help="compare the files with the lock, write nothing (for CI)")
    p.set_defaults(func=run_intake)


def run_intake(args: argparse.Namespace) -> int:
    from assay.study.evidence import redacting
    from assay.study.received import INTAKE_FIX, LOCK, current_lock, lock_differences, read_lock, take_in

    study, root = _study_root()
    with redacting(root):
        if args.check:
            differ = lock_differences(read_lock(LOCK), current_lock(study, root))
            for name in differ:
                print(f"{root.show(root.path / name)}: differs from {LOCK}", file=sys.stderr)
            if differ:
                print(f"{len(differ)} received file(s) differ from {LOCK}: {INTAKE_FIX}", file=sys.stderr)
                return 1
            print(f"{LOCK}: every received file matches")
            return 0
        lock, changed = take_in(study, root, LOCK)
    total = sum(len(entries) for entries in lock.values())
    absent = sum(v == "absent" for entries in lock.values() for v in entries.values())
    for name in changed:
        print(f"  changed: {root.show(root.path / name)}")
    print(f"{LOCK}: {total} received file(s) ({absent} absent), {len(changed)} changed"
          + ("; run `dvc repro`, then commit the lock and dvc.lock" if changed else ""))
    return 0


def _register_receipt(rs: argparse._SubParsersAction) -> None:
    p = rs.add_parser("receipt", help="compute a split's agreement receipt before any discussion",
                      description="Pair annotators A's and B's judgments of SPLIT, compute Krippendorff's alpha "
                                  "(ordinal) and quadratic-weighted kappa with bootstrap intervals over queries, and "
                                  "write $ASSAY_EVIDENCE_ROOT/SPLIT/receipt.json (measures, formulas, tool versions, "
                                  "SHA-256 of both files, pairs, disagreements). Exit 1 when the files do not pair up.")
    p.add_argument("split", choices=["development", "sealed_holdout"], help="which split")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples over queries (default 2000)")
    p.add_argument("--seed", type=int, default=13, help="bootstrap seed (default 13)")
    p.set_defaults(func=run_receipt)


def run_receipt(args: argparse.Namespace) -> int:
    from assay.study.evidence import redacting
    from assay.study.opening import note_sealed_read
    from assay.study.receipt import GRADE_NOTE, build_receipt, write_receipt

    study, root = _study_root()
    with redacting(root):
        for who in ("A", "B"):
            note_sealed_read(root, args.split, "study receipt", f"judgments_{who}.jsonl")
        receipt = build_receipt(root, args.split, args.resamples, args.seed)
        path = write_receipt(root, args.split, receipt)
    print(f"{root.show(path)}: {receipt['pairs']} pairs over {receipt['queries']} queries, "
          f"{receipt['disagreements']} disagreement(s)")
    for m in receipt["measures"]:
        print(f"  {m['name']}: {_num(m['value'])} [{_num(m['interval']['low'])}, {_num(m['interval']['high'])}] "
              f"({m['interval']['method']})")
    print(f"  {GRADE_NOTE}")
    return 0


def _num(x: float | None) -> str:
    from assay.core.fmt import num

    return num(x)


def _register_validate(rs: argparse._SubParsersAction) -> None:
    p = rs.add_parser("validate", help="check a split's manifest: every SHA-256 and every step's completeness",
                      description="Re-hash every file MANIFEST names (corpus, queries, pool, packets, raw judgments, "
                                  "receipt, bundle, decisions, frozen qrels) and check each step is complete. A sealed "
                                  "holdout's manifest is refused (exit 2) without --allow-sealed, and before the "
                                  "holdout is opened; an allowed read is appended to the access log. Exit 0 valid, "
                                  "1 incomplete step, 2 hash mismatch, missing file or refused.")
    p.add_argument("manifest", metavar="MANIFEST", help="<root>/<split>/manifest.json")
    p.add_argument("--allow-sealed", action="store_true", help="allow checking the sealed holdout (after open-holdout)")
    p.add_argument("--repo", default=".", help="repository root the corpus path is relative to (default: .)")
    p.set_defaults(func=run_validate)


def run_validate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from assay.study.evidence import EvidenceRoot, redacting
    from assay.study.manifest import validate_manifest

    root = EvidenceRoot(Path(args.manifest).resolve().parent.parent)
    with redacting(root), redacting(_root()):
        lines = validate_manifest(args.manifest, args.allow_sealed, args.repo)
    for line in lines:
        print(line)
    print(f"{root.show(Path(args.manifest).resolve())}: valid")
    return 0


def _register_open_holdout(rs: argparse._SubParsersAction) -> None:
    p = rs.add_parser("open-holdout", help="record the explicit decision to open the sealed holdout",
                      description="Write $ASSAY_EVIDENCE_ROOT/opening.json: who decided (a pseudonym), why, when, and "
                                  "the SHA-256 of the thresholds file (the pre-registration), and set the opening's "
                                  "entry of data/relevance/received.json (the other entries are left as they are). "
                                  "Refused (exit 2) when already opened. Every later read of sealed data is appended to "
                                  "access.log; a change "
                                  "to the thresholds after this makes the verdict refuse.")
    p.add_argument("--decided-by", required=True, metavar="PSEUDONYM",
                   help="who decided: the coordinator's pseudonym (roles.coordinator), e.g. CRD-01")
    p.add_argument("--reason", required=True, help="why now, e.g. 'release candidate rc-3 frozen'")
    p.set_defaults(func=run_open_holdout)


def run_open_holdout(args: argparse.Namespace) -> int:
    from assay.study.evidence import redacting
    from assay.study.evidence import OPENING
    from assay.study.opening import open_holdout

    from assay.study.received import LOCK, update_entry

    study, root = _study_root()
    with redacting(root):
        record = open_holdout(root, args.decided_by, args.reason, study.thresholds,
                              coordinator=study.roles.coordinator)
        locked = update_entry(root, "opening", OPENING, LOCK)
    print(f"sealed holdout opened by {record['decided_by']} at {record['opened_at']}; thresholds "
          f"{study.thresholds} pre-registered as sha256 {record['thresholds_sha256']}")
    print(f"{LOCK}: opening entry updated; run `dvc repro`, then commit the lock and dvc.lock" if locked
          else f"{LOCK} not found: run `assay study intake`, then `dvc repro`")
    return 0


#: `assay study verdict` while judgments are not handed in yet: not a failure, not a pass
WAITING_EXIT = 3


def _register_verdict(rs: argparse._SubParsersAction) -> None:
    p = rs.add_parser("verdict", help="the study's verdict (exit 0 passed, 1 not passed, 2 missing, stale or refused, "
                                      "3 waiting for people)",
                      description="Print the committed verdict of the human relevance study. Refuses (exit 2) when the "
                                  "thresholds changed after the sealed holdout was opened (a new pre-registration is "
                                  "needed), when the opening hash in data/relevance/received.json differs from the one "
                                  "registered by the first commit that held one (git history is the witness; without "
                                  "git it says so and checks the opening record only; a shallow clone is refused: "
                                  "fetch-depth: 0) or when the verdict is missing or older "
                                  "than its inputs; exit 3 while "
                                  "judgments are not handed in yet (the study waits; the release gate does not).")
    p.add_argument("--root", default=".", help="repository root (default: .)")
    p.set_defaults(func=run_verdict)


def run_verdict(args: argparse.Namespace) -> int:
    from pathlib import Path

    from assay.core.errors import MissingArtifact
    from assay.study.evidence import ENV, EvidenceRootError, redacting
    from assay.study.opening import check_preregistration
    from assay.study.protocol import evidence_root, load_study
    from assay.study.registration import require_registered_opening
    from assay.study.status import verdict_status

    base = Path(args.root)
    study = load_study(base / "data/relevance/study.yaml")
    note = require_registered_opening(base)
    try:
        root = evidence_root(study) if (_root() or study.synthetic) else None
    except EvidenceRootError:
        root = None
    if root is not None:
        with redacting(root):
            check_preregistration(root, base / study.thresholds)
    status = verdict_status(base)
    print(f"relevance study verdict: {status.status}: {status.detail}")
    if root is None:
        print(f"(opening not checked: {ENV} is not set)")
    if note:
        print(note)
    if status.status in ("missing", "stale"):
        raise MissingArtifact(f"study verdict: {status.detail}")
    return {"pass": 0, "waiting": WAITING_EXIT}.get(status.status, 1)


#: the study's later steps (receipt, manifest validation, opening, verdict), after the intake's scan and check
REGISTRARS += [_register_intake, _register_receipt, _register_validate, _register_open_holdout, _register_verdict]
