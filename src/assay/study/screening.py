"""The coordinator's two screens: the de-identification scan of what goes out to the annotators
(queries and packets) and the check of the judgments that come back.

Each step returns the record its stage commits (:mod:`assay.study.records`): counts and the
SHA-256 of the files it read, named relative to the evidence root.
"""

from __future__ import annotations

from assay.core.errors import AssayError, Problem
from assay.study.evidence import SPLITS, EvidenceRoot, file_hashes
from assay.study.formats import ANNOTATORS, QUERIES, judgments_name, packet_name
from assay.study.judgments import Checked, IncompleteJudgments, check_judgments
from assay.study.protocol import Study
from assay.study.records import stage_record
from assay.study.scan import Hit, scan_path


class ScanHits(AssayError):
    """The de-identification scan found something in a file meant for an annotator (exit 1)."""


def scan_step(study: Study, root: EvidenceRoot, modes: list[str]) -> dict:
    """Scan both packets and the queries of every split.

    Raises:
        ScanHits: any hit, each as ``$ASSAY_EVIDENCE_ROOT/...:line:column kind``.
    """
    hits: list[Hit] = []
    counts, names = {}, []
    for side in SPLITS:
        for name in (QUERIES, *(packet_name(a) for a in ANNOTATORS)):
            found, _ = scan_path(root.file(side, name), root.show, modes)
            hits += found
            counts[f"{side}/{name}"] = len(found)
            names.append(f"{side}/{name}")
    if hits:
        raise ScanHits("\n".join(str(h) for h in hits) + f"\n{len(hits)} hit(s): de-identify the corpus or queries, "
                       "then rebuild the packets (`dvc repro study_pool`)")
    return stage_record(study, hits=counts, evidence=file_hashes(root, names))


def check_step(study: Study, root: EvidenceRoot) -> dict:
    """Check every split's judgments of A and B against their packets.

    Raises:
        IncompleteJudgments: any file with a fault (a file not returned yet is one ``missing``
            fault), listing every fault of every file, then the verdict.
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
    if faults:
        raise IncompleteJudgments(faults, ", ".join(n for n, c in results.items() if not c.complete))
    return stage_record(study, judgments=summary, evidence=file_hashes(root, names))
