"""The coordinator's screen of what goes out to the annotators: the de-identification scan step.

:func:`scan_step` scans every split's queries and both packets and returns the record its stage
commits (:mod:`assay.study.records`): hit counts and the SHA-256 of the files it read, named
relative to the evidence root. The check of the judgments that come back is
:func:`assay.study.judgments.check_step`.
"""

from __future__ import annotations

from assay.core.errors import AssayError
from assay.study.evidence import SPLITS, EvidenceRoot, file_hashes
from assay.study.formats import ANNOTATORS, QUERIES, packet_name
from assay.study.protocol import Study
from assay.study.records import stage_record
from assay.study.scan import Hit, read_names, scan_path


class ScanHits(AssayError):
    """The de-identification scan found something in a file meant for an annotator (exit 1)."""


def scan_step(study: Study, root: EvidenceRoot, modes: list[str]) -> dict:
    """Scan both packets and the queries of every split, with the study's names list when it names one.

    Raises:
        ScanHits: any hit, each as ``$ASSAY_EVIDENCE_ROOT/...:line:column kind``.
    """
    people = read_names(study.names) if study.names is not None else []
    hits: list[Hit] = []
    counts, names = {}, []
    for side in SPLITS:
        for name in (QUERIES, *(packet_name(a) for a in ANNOTATORS)):
            found, _ = scan_path(root.file(side, name), root.show, modes, people)
            hits += found
            counts[f"{side}/{name}"] = len(found)
            names.append(f"{side}/{name}")
    if hits:
        raise ScanHits("\n".join(str(h) for h in hits) + f"\n{len(hits)} hit(s): de-identify the corpus or queries, "
                       "then rebuild the packets (`dvc repro study_pool`)")
    return stage_record(study, hits=counts, evidence=file_hashes(root, names))
