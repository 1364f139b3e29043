"""Whether the committed verdict of the relevance study is present, current and passing.

Used by ``assay study verdict`` and by the release gate when the plan asks for the study
(``relevance_verdict: true``). The verdict's provenance records the SHA-256 of the study file, the
thresholds file and the three study records it was computed from; any of them changed since means
the verdict is stale (re-run ``dvc repro``).

The evidence root is not needed: in CI (``ASSAY_EVIDENCE_ROOT`` unset) the committed
received-evidence lock (:mod:`assay.study.received`) is trusted. When the variable is set, the
received files under it are compared with the lock first: any difference makes the verdict stale
(run ``assay study intake``, then ``dvc repro``), and a root that is not a folder makes it missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from assay.artifacts.base import BrokenArtifact
from assay.artifacts.registry import PROVENANCE, RELEVANCE_VERDICT, STUDY_RECORDS, provenance_stage
from assay.artifacts.study import VerdictMetrics
from assay.core.errors import AssayError
from assay.core.io import sha256_file

if TYPE_CHECKING:
    from assay.study.protocol import Study

RECORDS = STUDY_RECORDS.relpath()


@dataclass(frozen=True)
class VerdictStatus:
    """``status`` is pass, fail, missing, stale or waiting (judgments not handed in yet); ``detail`` says why."""

    status: str
    detail: str
    metrics: VerdictMetrics | None = None


def current_inputs(base: Path, thresholds: str, study_file: str) -> dict[str, str]:
    """The hashes the verdict's provenance records, as they are now (``"absent"`` for a missing file)."""
    files = {"study_file": study_file, "thresholds": thresholds,
             **{f"{name}_record": f"{RECORDS}/{name}.json" for name in ("receipt", "qrels", "evaluation")}}
    return {key: sha256_file(base / p) if (base / p).is_file() else "absent" for key, p in files.items()}


def received_changes(base: Path, study: Study, environ: Mapping[str, str] | None = None) -> list[str] | None:
    """Relative paths of received files that differ from the repository's lock; None when the root is not set."""
    import os

    from assay.study.evidence import ENV, EvidenceRoot, redacting
    from assay.study.received import LOCK, current_lock, lock_differences, read_lock

    env = os.environ if environ is None else environ
    if not env.get(ENV, "").strip():
        return None
    root = EvidenceRoot.from_env(env)
    with redacting(root):
        return lock_differences(read_lock(base / LOCK), current_lock(study, root))


def verdict_status(base: str | Path = ".", environ: dict | None = None) -> VerdictStatus:
    """The committed verdict's status for the repository at ``base`` (``environ``: for the evidence root)."""
    from assay.study.protocol import STUDY_FILE, load_study
    from assay.study.received import INTAKE_FIX

    base = Path(base)
    name = RELEVANCE_VERDICT.relpath()
    try:
        metrics = RELEVANCE_VERDICT.read_optional(base)
        prov = PROVENANCE.read_optional(base, stage=provenance_stage(RELEVANCE_VERDICT))
        study = load_study(base / STUDY_FILE)
    except (BrokenArtifact, AssayError) as error:
        return VerdictStatus("missing", f"{name} or its inputs are unusable: {error}")
    if metrics is None or prov is None:
        return VerdictStatus("missing", f"{name} or its provenance not found: run dvc repro")
    try:
        received = received_changes(base, study, environ)
    except AssayError as error:
        return VerdictStatus("missing", f"the received evidence cannot be compared with its lock: {error}", metrics)
    if received:
        return VerdictStatus("stale", f"received evidence differs from the lock: {', '.join(received)} "
                                      f"(fix: {INTAKE_FIX})", metrics)
    now = current_inputs(base, study.thresholds, STUDY_FILE)
    changed = sorted(k for k, v in prov.inputs.items() if now.get(k) != v)
    if changed:
        why = ("; thresholds changed: if the sealed holdout is open a new pre-registration is needed"
               if "thresholds" in changed else "")
        return VerdictStatus("stale", f"changed since the verdict: {', '.join(changed)}{why}", metrics)
    if metrics.waiting:
        from assay.study.waiting import waiting_line

        waiting = prov.details.get("waiting")
        files = waiting if isinstance(waiting, list) else []
        return VerdictStatus("waiting", f"{waiting_line([str(f) for f in files])} (then `assay study intake` "
                                        "and `dvc repro`)", metrics)
    met = f"{metrics.conditions_met}/{len(metrics.conditions)} conditions, {metrics.modes_passed} mode(s) pass"
    if metrics.passed:
        return VerdictStatus("pass", f"passed ({met})", metrics)
    unmet = [k for k, v in metrics.conditions.items() if not v]
    return VerdictStatus("fail", f"not passed ({met}; conditions unmet: {', '.join(unmet) or 'none'}; see "
                                 "reports/relevance/verdict.md)", metrics)
