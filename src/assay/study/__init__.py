"""The human relevance study: roles, the family split, pooled blind packets, the
de-identification scan, judgment checks, the agreement receipt, the arbiter bundle, frozen qrels,
the evidence manifest, the sealed holdout's opening and the pre-registered verdict.

Raw evidence (packets, judgments, arbiter decisions, sealed queries and results) lives under the
folder named by the environment variable ``ASSAY_EVIDENCE_ROOT`` (:mod:`assay.study.evidence`),
never in the repository; the repository holds the protocol, checksums and summary metrics: the
received-evidence lock of what people handed in (:mod:`assay.study.received`) and the record of
what each stage wrote (:mod:`assay.study.records`), which the DVC stages depend on.

Modules, by noun: the study file (``protocol``) and its params (``params``); the evidence root and
the name of every file under it (``evidence``), what each file holds (``formats``), the lock of what
people handed in (``received``) and the stages' records (``records``); then the study's objects in
the order the protocol meets them (docs/relevance-study.md): ``split``, ``pooling`` and ``packets``,
``scan`` (with ``reading``), ``judgments``, ``receipt``, ``bundle``, ``qrels`` and ``labels``,
``manifest``, ``opening`` and ``registration``, ``evaluation``, ``conditions``, ``verdict``,
``waiting`` and ``status``. Each stage's work is a ``*_step`` function in the module of what it
makes (``split_step`` in ``split``, ``receipt_step`` in ``receipt``, ...).
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.study.params": ["StudyParams"],
    "assay.study.protocol": ["evidence_root", "load_study"],
    "assay.study.evidence": ["EvidenceRoot", "EvidenceRootError"],
    "assay.study.scan": ["scan_path"],
    "assay.study.judgments": ["check_judgments"],
    "assay.study.receipt": ["build_receipt"],
    "assay.study.manifest": ["validate_manifest"],
    "assay.study.opening": ["open_holdout"],
    "assay.study.status": ["verdict_status"],
})
