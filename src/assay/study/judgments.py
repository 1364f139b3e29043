"""Checking an annotator's judgments against the packet they were given
(docs/relevance-study.md, "Collect the judgments and check them").

A judgments file is complete when it has exactly one valid row (:class:`JudgmentRow`) for every
(query_id, document_id) pair of the packet and nothing else. Each fault is one
:class:`~assay.core.errors.Problem` at ``file:line``, of one kind (:data:`FAULTS`):

* ``missing``: a packet pair without a judgment, reported at the packet's line for that pair;
* ``repeated``: a second row for a pair, reported at the later line, naming the first;
* ``unknown``: a pair that is not in the packet (a typo in an id, or another packet's pair);
* ``invalid``: a value outside its set (relevance not in 2, 1, 0, -1; temporal_classification not
  in current, historical, conflicted, unknown; abstention_correct not true/false; a missing or
  extra field; a citation id that is not a document of that query in the packet);
* ``unreadable``: a line that is not a JSON object (or not UTF-8).

One query_id on many rows is legal (one row per candidate document). A packet with any fault is
incomplete: it goes back to the annotator as it is, without reconciliation. The check never
edits either file. :func:`check_step` is stage ``study_check``'s step: every split's files of A
and B at once, a file not returned yet counting as one ``missing`` fault.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from assay.core.errors import InputError, Problem
from assay.core.io import scan_jsonl
from assay.core.records import check_rows
from assay.study.evidence import ANNOTATORS, SPLITS, EvidenceRoot, file_hashes, judgments_name, packet_name
from assay.study.formats import JudgmentRow, PacketRow
from assay.study.protocol import Study
from assay.study.records import stage_record

FAULTS = ("missing", "repeated", "unknown", "invalid", "unreadable")
VERDICT = "incomplete: return the file to the annotator without reconciliation"


class IncompleteJudgments(InputError):
    """A judgments file that does not cover its packet exactly (exit 1): every fault, then the verdict."""

    def __init__(self, problems: list[Problem], shown: str):
        super().__init__(problems)
        self.args = (f"{self.args[0]}\n{shown}: {VERDICT}",)


@dataclass
class Checked:
    """What :func:`check_judgments` found: the rows in file order and every fault with its kind."""

    rows: list[tuple[int, JudgmentRow]] = field(default_factory=list)
    faults: list[tuple[str, Problem]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.faults

    def counts(self) -> dict[str, int]:
        """Number of faults of each kind (every kind present, 0 when none)."""
        seen = Counter(kind for kind, _ in self.faults)
        return {kind: seen[kind] for kind in FAULTS}


def read_packet(path: str, shown: str) -> list[tuple[int, PacketRow]]:
    """The packet's rows; a bad packet is the coordinator's fault, so it raises instead of being counted.

    Raises:
        InputError: a line is not a valid packet row, or a pair appears twice.
    """
    rows, problems = scan_jsonl(path)
    good, bad = check_rows(shown, rows, PacketRow, key=None)
    problems = [Problem(shown, p.line, p.field, p.message, p.fix) for p in problems] + bad
    first: dict[tuple[str, str], int] = {}
    for line, row in good:
        pair = (row.query_id, row.document_id)
        if pair in first:
            problems.append(Problem(shown, line, "document_id", f"pair {pair} repeats line {first[pair]}",
                                    "rebuild the packet with `dvc repro study_pool`"))
        first.setdefault(pair, line)
    if problems:
        raise InputError(problems)
    return good


def check_judgments(judgments: str, packet: str, show: Callable[[str], str] = str) -> Checked:
    """Compare a judgments file with its packet (see the module docstring); ``show`` names files in messages.

    Raises:
        InputError: the packet itself is broken, or a file does not exist.
    """
    shown_j, shown_p = show(judgments), show(packet)
    packet_rows = read_packet(packet, shown_p)
    in_packet = {(r.query_id, r.document_id): line for line, r in packet_rows}
    documents: dict[str, set[str]] = {}
    for _, r in packet_rows:
        documents.setdefault(r.query_id, set()).add(r.document_id)
    out = Checked()
    raw, unreadable = scan_jsonl(judgments)
    out.faults += [("unreadable", Problem(shown_j, p.line, p.field, p.message, p.fix)) for p in unreadable]
    good, invalid = check_rows(shown_j, raw, JudgmentRow, key=None)
    out.faults += [("invalid", p) for p in invalid]
    seen: dict[tuple[str, str], int] = {}
    for line, row in raw:  # pairs are checked on every row that names both ids, valid or not
        query_id, document_id = row.get("query_id"), row.get("document_id")
        if not (isinstance(query_id, str) and isinstance(document_id, str)):
            continue
        pair = (query_id, document_id)
        if pair in seen:
            out.faults.append(("repeated", Problem(shown_j, line, "document_id", f"pair {pair} already judged on line "
                                                   f"{seen[pair]}", "keep one row per (query_id, document_id)")))
            continue
        seen[pair] = line
        if pair not in in_packet:
            out.faults.append(("unknown", Problem(shown_j, line, "document_id", f"pair {pair} is not in the packet "
                                                  f"{shown_p}", "judge only the packet's pairs, ids as given")))
    for line, judged in good:
        for cited in judged.acceptable_citation_ids:
            if cited not in documents.get(judged.query_id, ()):
                out.faults.append(("invalid", Problem(shown_j, line, "acceptable_citation_ids",
                                                      f"{cited!r} is not a document of query {judged.query_id!r} in the packet",
                                                      "cite document_ids of the same query, as given in the packet")))
    for pair, line in in_packet.items():
        if pair not in seen:
            out.faults.append(("missing", Problem(shown_p, line, None, f"pair {pair} has no judgment in {shown_j}",
                                                  "add one row for this pair")))
    out.rows = [(line, row) for line, row in good if (row.query_id, row.document_id) in in_packet
                and seen.get((row.query_id, row.document_id)) == line]
    out.faults.sort(key=lambda kp: (kp[1].path, kp[1].line or 0, kp[0]))
    return out


def require_complete(checked: Checked, shown: str) -> list[tuple[int, JudgmentRow]]:
    """The rows of a complete file.

    Raises:
        IncompleteJudgments: listing every fault, then the verdict.
    """
    if not checked.complete:
        raise IncompleteJudgments([p for _, p in checked.faults], shown)
    return checked.rows


def check_step(study: Study, root: EvidenceRoot) -> dict:
    """Check every split's judgments of A and B against their packets.

    When the only faults are files not handed in yet, the record names them under ``waiting``
    (:mod:`assay.study.waiting`) and the later stages wait instead of failing.

    Raises:
        IncompleteJudgments: any file that is there but does not cover its packet exactly, listing
            every fault of every file, then the verdict.
    """
    results, summary, names = {}, {}, []
    for side in SPLITS:
        for a in ANNOTATORS:
            name = f"{side}/{judgments_name(a)}"
            path, packet = root.file(side, judgments_name(a)), root.file(side, packet_name(a))
            if path.is_file():
                checked = check_judgments(str(path), str(packet), root.show)
            else:
                checked = Checked(faults=[("missing", Problem(root.show(path), None, None, "not returned yet",
                                                              f"wait for annotator {a}'s file"))])
            results[name] = checked
            summary[name] = {"rows": len(checked.rows), "complete": int(checked.complete), **checked.counts()}
            names += [name, f"{side}/{packet_name(a)}"]
    faults = [p for checked in results.values() for _, p in checked.faults]
    incomplete = sorted(n for n, c in results.items() if not c.complete)
    absent = sorted(n for n in incomplete if not root.file(*n.split("/", 1)).is_file())
    if incomplete and absent == incomplete:
        # every fault is a file not handed in yet: the study waits for people (assay.study.waiting)
        present = [n for n in names if root.file(*n.split("/", 1)).is_file()]
        return stage_record(study, judgments=summary, evidence=file_hashes(root, present), waiting=absent)
    if faults:
        raise IncompleteJudgments(faults, ", ".join(incomplete))
    return stage_record(study, judgments=summary, evidence=file_hashes(root, names))
