"""The verdict's pass conditions (:data:`CONDITIONS`) and the check of those the evidence root holds.

Each check re-reads the evidence rather than trusting an earlier stage: the receipt against the
judgment files, the decisions against the bundle, every manifest against its files. Receipts and
decisions are the coordinator's and are checked on both splits; the sealed holdout's manifest (what
implementers may validate) only after its opening, each read logged (:mod:`assay.study.opening`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assay.core.errors import AssayError
from assay.study.bundle import check_decisions
from assay.study.evidence import MANIFEST, SEALED, SPLITS, EvidenceRoot
from assay.study.manifest import validate_manifest
from assay.study.receipt import receipt_is_current


CONDITIONS: dict[str, str] = {
    "judgments_and_receipt": "two independent judgment files and an agreement receipt, both splits",
    "adjudicated": "a third person (the arbiter) decided every disagreement, with a reason",
    "hashes_verified": "corpus, queries, raw judgments and frozen qrels match their manifests' SHA-256",
    "holdout_opened": "development evidence validated; sealed holdout opened by an explicit recorded decision",
    "same_runtime": "lexical, semantic, hybrid, reranked and graph evaluated on one corpus/runtime manifest",
    "all_published": "all seven figures defined for every mode, published with intervals",
    "human_evidence": "judgments by people, not the synthetic demo generator",
}


@dataclass(frozen=True)
class Condition:
    """One pass condition: whether it holds and why."""

    key: str
    ok: bool
    detail: str


def _each(root: EvidenceRoot, splits: tuple[str, ...], check: Callable[[EvidenceRoot, str], object]) -> list[str]:
    """``split: why`` for every split where ``check(root, split)`` raises; empty when all hold."""
    failed = []
    for split in splits:
        try:
            check(root, split)
        except AssayError as error:
            first = root.redact(str(error)).splitlines()[0]
            failed.append(f"{split}: {first}")
    return failed


def evidence_conditions(root: EvidenceRoot, opened: bool, synthetic: bool, repo: str = ".") -> list[Condition]:
    """The conditions :func:`assay.study.verdict.decide` does not derive from the evaluation itself."""
    validated = SPLITS if opened else tuple(s for s in SPLITS if s != SEALED)
    unread = [] if opened else [f"{SEALED}: not validated, the holdout is sealed"]

    def one(key: str, failed: list[str], good: str) -> Condition:
        return Condition(key, not failed, "; ".join(failed) if failed else good)

    receipts = _each(root, SPLITS, receipt_is_current)
    decided = _each(root, SPLITS, check_decisions)
    manifests = _each(root, validated, lambda r, s: validate_manifest(r.file(s, MANIFEST), allow_sealed=True, repo=repo))
    dev_ok = not [f for f in manifests if f.startswith("development")]
    return [
        one("judgments_and_receipt", receipts, "receipts match both judgment files of both splits"),
        one("adjudicated", decided, "every disagreement has a decision with a reason code"),
        one("hashes_verified", manifests + unread, "every manifest matches its files"),
        Condition("holdout_opened", dev_ok and opened,
                  "development validated; holdout opened by a recorded decision" if dev_ok and opened
                  else ("development manifest does not validate" if not dev_ok else "the sealed holdout is not opened")),
        Condition("human_evidence", not synthetic, "study file says synthetic: false" if not synthetic
                  else "synthetic demo evidence (study file says synthetic: true)"),
    ]
