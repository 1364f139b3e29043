"""`assay calibration-status`: is the recorded judge calibration still about this prompt, judge and label set?

It recomputes the SHA-256 of the prompt version named in params, the hash of the judge settings
(identity, swap and the usability rule) and the hash of the label set, compares them
with the record, prints one line and exits 0 when current; when anything changed it names every
change and exits 2 (:class:`~assay.core.errors.StaleError`).
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibration-status", help="check that the judge calibration matches its prompt, judge and labels",
                       description="Compare the calibration's provenance (reports/provenance/calibrate.json) with the current "
                                   "prompt file, judge settings "
                                   "and label set. Exit 0 when current, 2 when stale or missing.")
    p.add_argument("--root", default=".", help="repository root holding reports/provenance/calibrate.json (default: .)")
    p.add_argument("--params", default="params.yaml",
                   help="params file with the judge and inputs sections, relative to --root (default: %(default)s)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from assay.judge.calibration import settings_hash, staleness
    from assay.judge.calibration_record import CalibrationIdentity
    from assay.core.errors import StaleError
    from assay.release.judge_staleness import current_state

    from assay.artifacts.registry import CALIBRATION, PROVENANCE, provenance_stage

    stage = provenance_stage(CALIBRATION)
    where = PROVENANCE.relpath(stage=stage)
    record = CalibrationIdentity.parse(PROVENANCE.read(args.root, stage=stage).settings, str(where))
    prompt, settings, labels_sha = current_state(args.root, args.params)
    changes = staleness(record, prompt, settings, labels_sha)
    if changes:
        raise StaleError(f"{where} is stale:\n" + "".join(f"  {c}\n" for c in changes)
                         + "fix: run `dvc repro calibrate` to calibrate again")
    print(f"{where} is current: prompt {prompt.label} sha {prompt.short_sha}, "
          f"judge settings {settings_hash(settings)[:10]}, labels {labels_sha[:10]}")
    return 0
