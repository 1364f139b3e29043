"""The arbiter's bundle (docs/relevance-study.md, "Send the disagreements to the arbiter") and the check of the arbiter's decisions.

``bundle.jsonl`` holds only the pairs where A and B differ on at least one judged field
(:data:`~assay.study.formats.FIELDS`: relevance, abstention_correct, the *set* of
acceptable_citation_ids, temporal_classification), in packet order: ``{"query_id", "query",
"document_id", "title", "text", "disputed", "cited_documents"}``. ``disputed`` maps each field the
two differ on to its two values sorted ascending (citation sets as sorted lists); fields they
agree on are left out. It is blind to who said what: each field's pair is sorted on its own, so
neither the order within a field nor the pairing across fields tells which annotator gave which
value, and nothing else from the judgments is shown. ``cited_documents`` is ``[{"document_id",
"title", "text"}]`` for every document either annotator named as an acceptable citation when the
citations are disputed (empty otherwise), so the arbiter can read what the ids stand for. The
bundle is written only after the agreement receipt exists and matches the judgment files
(:func:`receipt_is_current`).

``decisions.jsonl`` is the arbiter's: one row per bundle row, ``{"query_id", "document_id",
"reason", ...}`` with the final value of every disputed field of that pair (``relevance`` in {2,
1, 0, -1}, ``abstention_correct`` true/false, ``acceptable_citation_ids`` document ids of the same
query in the packet, ``temporal_classification`` in {current, historical, conflicted, unknown})
and one ``reason`` code of the protocol (scope, temporal, provenance, partial, conflict, other) for
the row. :func:`check_decisions` refuses, each at ``file:line`` with the field: a row that is not
JSON, an unknown field, a missing or unknown reason, a value outside its set, a disputed field
with no final value, a value for a field A and B agreed on (the arbiter decides disagreements
only), a citation id that is not a document of the query, a pair not in the bundle, a pair decided
twice, and (at the bundle's line) a bundle row with no decision. A field set to ``null`` counts as
not given. :func:`bundle_step` is stage ``study_bundle``'s work on both splits.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from assay.core.errors import InputError, Problem
from assay.core.io import write_jsonl
from assay.study.evidence import BUNDLE, DECISIONS, SPLITS, EvidenceRoot, file_hashes, packet_name
from assay.study.formats import FIELDS, PacketRow, Reason, Relevance, Temporal, field_value, no_boolean_grade, read_rows, scan_rows
from assay.study.opening import note_sealed_read
from assay.study.protocol import Study
from assay.study.receipt import pair_judgments, receipt_is_current
from assay.study.records import stage_record as _record


class CitedDocument(BaseModel):
    """A document named as an acceptable citation in a disputed pair, as the packet shows it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    document_id: str
    title: str
    text: str


class BundleRow(BaseModel):
    """One disagreement as the arbiter sees it: the pair, its texts and each disputed field's two values, unattributed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    query_id: str
    query: str
    document_id: str
    title: str
    text: str
    disputed: dict[str, tuple]
    cited_documents: tuple[CitedDocument, ...] = ()


class Decision(BaseModel):
    """The arbiter's final value of each disputed field of one pair, and one reason code."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    query_id: str = Field(pattern=r"^\S+$")
    document_id: str = Field(pattern=r"^\S+$")
    reason: Reason
    relevance: Relevance | None = None
    abstention_correct: StrictBool | None = None
    acceptable_citation_ids: tuple[str, ...] | None = None
    temporal_classification: Temporal | None = None

    _no_boolean_grade = field_validator("relevance", mode="before")(no_boolean_grade)

    def decided(self) -> dict[str, object]:
        """``{field: final value}`` of the fields this row gives (citations as a sorted tuple)."""
        return {f: field_value(self, f) for f in FIELDS if getattr(self, f) is not None}


def _citations(value: object) -> tuple[str, ...]:
    """The document ids of a citation field's value (:func:`field_value` gives them as a sorted tuple), in order."""
    return tuple(str(d) for d in value) if isinstance(value, tuple) else ()


def build_bundle(root: EvidenceRoot, split: str) -> list[BundleRow]:
    """The disagreements of ``split`` on any judged field, in packet order, blind to who said what.

    Raises:
        InputError: no current receipt (see :func:`receipt_is_current`), bad judgments or packet.
    """
    receipt_is_current(root, split)
    paired = pair_judgments(root, split)
    disputed = {paired.pairs[i]: d for i in range(len(paired.pairs)) if (d := paired.disputed(i))}
    packet = read_rows(root, root.file(split, packet_name("A")), PacketRow)
    by_pair = {(p.query_id, p.document_id): p for _, p in packet}
    rows = []
    for _, p in packet:
        fields = disputed.get((p.query_id, p.document_id))
        if not fields:
            continue
        named = sorted({d for side in fields.get("acceptable_citation_ids", ((), ())) for d in _citations(side)})
        cited = tuple(CitedDocument(document_id=d, title=by_pair[(p.query_id, d)].title, text=by_pair[(p.query_id, d)].text)
                      for d in named if (p.query_id, d) in by_pair)
        rows.append(BundleRow(query_id=p.query_id, query=p.query, document_id=p.document_id, title=p.title, text=p.text,
                              disputed={f: tuple(sorted(v)) for f, v in fields.items()}, cited_documents=cited))
    return rows


def write_bundle(root: EvidenceRoot, split: str, rows: list[BundleRow]) -> Path:
    """Write ``<root>/<split>/bundle.jsonl``; return its path."""
    path = root.file(split, BUNDLE)
    write_jsonl(path, [r.model_dump(mode="json") for r in rows])
    return path


def check_decisions(root: EvidenceRoot, split: str) -> dict[tuple[str, str], Decision]:
    """The arbiter's decisions of ``split`` by pair, after checking them against the bundle and the packet.

    Raises:
        InputError: every problem listed in the module docstring, each at ``file:line``; the fix
            says to return the file to the arbiter.
    """
    bundle_path, path = root.file(split, BUNDLE), root.file(split, DECISIONS)
    bundle = read_rows(root, bundle_path, BundleRow)
    rows, problems = scan_rows(root, path, Decision)
    documents: dict[str, set[str]] = {}
    for _, p in read_rows(root, root.file(split, packet_name("A")), PacketRow):
        documents.setdefault(p.query_id, set()).add(p.document_id)
    shown = root.show(path)
    back = "return the decisions file to the arbiter"
    wanted = {(b.query_id, b.document_id): (line, b) for line, b in bundle}
    out: dict[tuple[str, str], Decision] = {}
    first: dict[tuple[str, str], int] = {}
    for line, d in rows:
        key = (d.query_id, d.document_id)
        if key not in wanted:
            problems.append(Problem(shown, line, "document_id", f"pair {key} is not in the bundle",
                                    f"decide only the bundle's disagreements; {back}"))
            continue
        if key in first:
            problems.append(Problem(shown, line, "document_id", f"pair {key} is decided twice (first on line {first[key]})",
                                    f"one decision per disagreement; {back}"))
            continue
        first[key] = line
        out[key] = d
        disputed, decided = wanted[key][1].disputed, d.decided()
        problems += [Problem(shown, line, f, f"A and B disagree on {f} of pair {key} and the decision gives no final value",
                             f"give the final {f}; {back}") for f in FIELDS if f in disputed and f not in decided]
        problems += [Problem(shown, line, f, f"A and B agreed on {f} of pair {key}: only disputed fields are decided",
                             f"leave {f} out of this row; {back}") for f in FIELDS if f in decided and f not in disputed]
        problems += [Problem(shown, line, "acceptable_citation_ids", f"{cited!r} is not a document of query "
                             f"{d.query_id!r} in the packet", f"cite document_ids of the same query; {back}")
                     for cited in _citations(decided.get("acceptable_citation_ids", ())) if cited not in documents.get(d.query_id, ())]
    for key, (line, _) in wanted.items():
        if key not in first:
            problems.append(Problem(root.show(bundle_path), line, None, f"pair {key} has no decision in {DECISIONS}",
                                    f"the arbiter decides every disagreement; {back}"))
    if problems:
        raise InputError(sorted(problems, key=lambda p: (p.path, p.line or 0)))
    return out


def bundle_step(study: Study, root: EvidenceRoot) -> dict:
    """Write each split's blind disagreement bundle; the record holds its row count and hash."""
    counts = {}
    for split in SPLITS:
        note_sealed_read(root, split, "study_bundle", BUNDLE)
        rows = build_bundle(root, split)
        write_bundle(root, split, rows)
        counts[split] = len(rows)
    return _record(study, disagreements=counts, evidence=file_hashes(root, [f"{s}/{BUNDLE}" for s in SPLITS]))
