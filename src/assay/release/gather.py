"""Assembling the gate's inputs from the repository: plan, params, metrics and current input hashes.

Shared by the ``gate`` stage (which writes metrics/gate.json and reports/summary.md) and the
``assay gate`` command (which prints the table and sets the exit code), so both decide the same way.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from assay.core.errors import AssayError
from assay.release.input_hashes import current_inputs
from assay.release.checks import Check, GateParams, freshness_checks, judge_checks, metric_checks, read_metrics
from assay.core.params import load_section
from assay.data.plan import PlanParams, load_plan


class Versions(BaseModel):
    """The ``compare`` section: which versions the gate decides between."""

    model_config = ConfigDict(extra="ignore")
    baseline: str = "baseline"
    candidate: str = "candidate"


def gather(root: str | Path = ".") -> tuple[list[Check], dict[str, dict | None], Versions]:
    """All gate checks for the repository at ``root``, the metrics they read, and the version names."""
    base = Path(root)
    params_file = base / "params.yaml"
    gate = load_section("gate", GateParams, params_file)
    versions = load_section("compare", Versions, params_file)
    plan = load_plan(base / load_section("plan", PlanParams, params_file).path)
    folder = base / "metrics"
    names = ["plan.json", "dataset.json", "split.json", "leakage.json", "agreement.json", "bias.json",
             "calibration.json", "sensitivity.json", "compare.json", f"rag/{versions.baseline}.json",
             f"rag/{versions.candidate}.json"]
    m = {n: read_metrics(folder, n) for n in names}
    checks = metric_checks(plan, m[f"rag/{versions.candidate}.json"], m["compare.json"], versions.candidate)
    checks += judge_checks(gate, m["agreement.json"], m["calibration.json"])
    guarded = {key: _guard(fn) for key, fn in current_inputs(base).items()}
    checks += freshness_checks({n: d for n, d in m.items() if d is not None}, guarded)
    checks += calibration_freshness(base, m["calibration.json"])
    return checks, m, versions


def _guard(fn):
    """An input that no longer validates counts as changed rather than crashing the gate."""
    def call() -> str:
        try:
            return fn()
        except (AssayError, OSError) as error:
            return f"invalid: {error}"
    return call


def calibration_freshness(base: Path, record: dict | None) -> list[Check]:
    """Whether the calibration still matches the prompt, judge settings and labels in use."""
    if record is None:
        return []
    from assay.release.judge_staleness import current_staleness

    try:
        changed = current_staleness(record, str(base / "params.yaml"))
    except AssayError as error:
        changed = [f"cannot check ({error})"]
    return [Check("fresh judge calibration", "stale" if changed else "pass",
                  "changed since calibration: " + ", ".join(changed) if changed else "prompt, judge and labels unchanged")]
