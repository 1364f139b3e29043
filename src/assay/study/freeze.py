"""The coordinator's machine steps after the judgments: receipt, bundle, frozen qrels and manifest.

Each step runs on both splits, writes its evidence under the root and returns the record its stage
commits under ``reports/relevance/study/``: counts, hashes of the evidence files (named relative to
the root) and summary figures; never the root, a person, a query text or a per-query grade. A read
of the sealed holdout after its opening is appended to the access log.
"""

from __future__ import annotations

from assay.core.io import write_json
from assay.study.bundle import BUNDLE, DECISIONS, build_bundle, write_bundle
from assay.study.evidence import SEALED, SPLITS, EvidenceRoot, file_hashes
from assay.study.formats import FIELDS, judgments_name
from assay.study.manifest import MANIFEST, build_manifest
from assay.study.opening import read_opening, record_access
from assay.study.params import StudyParams
from assay.study.protocol import Study
from assay.study.qrels import FROZEN, TREC, frozen_rows, write_frozen
from assay.study.receipt import GRADE_NOTE, RECEIPT, build_receipt, write_receipt
from assay.study.records import stage_record as _record


def note_sealed_read(root: EvidenceRoot, split: str, what: str, name: str) -> None:
    """Log a read of sealed data once the holdout is open (before opening only the coordinator reads it)."""
    if split == SEALED and read_opening(root) is not None:
        record_access(root, what, f"{split}/{name}")


def receipt_step(study: Study, root: EvidenceRoot, params: StudyParams) -> dict:
    """Compute and write each split's agreement receipt; the record holds both receipts (no raw grades)
    and, under ``grades``, how grade -1 is handled here and in the IR measures (:data:`GRADE_NOTE`)."""
    receipts = {}
    for split in SPLITS:
        for who in ("A", "B"):
            note_sealed_read(root, split, "study_receipt", judgments_name(who))
        receipts[split] = build_receipt(root, split, params.resamples, params.seed, params.level)
        write_receipt(root, split, receipts[split])
    return _record(study, receipts=receipts, grades=GRADE_NOTE,
                   evidence=file_hashes(root, [f"{s}/{RECEIPT}" for s in SPLITS]))


def bundle_step(study: Study, root: EvidenceRoot) -> dict:
    """Write each split's blind disagreement bundle; the record holds its row count and hash."""
    counts = {}
    for split in SPLITS:
        note_sealed_read(root, split, "study_bundle", BUNDLE)
        rows = build_bundle(root, split)
        write_bundle(root, split, rows)
        counts[split] = len(rows)
    return _record(study, disagreements=counts, evidence=file_hashes(root, [f"{s}/{BUNDLE}" for s in SPLITS]))


def qrels_step(study: Study, root: EvidenceRoot, corpus: str) -> dict:
    """Check the decisions, write each split's frozen qrels and manifest; the record holds their hashes."""
    counts = {}
    for split in SPLITS:
        note_sealed_read(root, split, "study_qrels", DECISIONS)
        rows = frozen_rows(root, split)
        write_frozen(root, split, rows)
        manifest = build_manifest(root, split, study.protocol_version, study.synthetic, corpus, study.thresholds)
        write_json(root.file(split, MANIFEST), manifest)
        counts[split] = {"pairs": len(rows), "adjudicated": sum(r.adjudicated for r in rows),
                         "decided": {f: sum(getattr(r, f).c is not None for r in rows) for f in FIELDS},
                         "relevant": sum(r.relevance.final >= 1 for r in rows)}
    names = [f"{s}/{n}" for s in SPLITS for n in (DECISIONS, FROZEN, TREC, MANIFEST)]
    return _record(study, qrels=counts, evidence=file_hashes(root, names))
