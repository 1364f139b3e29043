"""The release gate: may the candidate RAG version replace the baseline?

The gate reads the plan (thresholds, directions, no-regression rules) and the metrics the
pipeline wrote, and returns one :class:`Check` per rule:

- every blocking plan metric, measured on the candidate, meets its threshold;
- for every plan metric marked ``no_regression``, no case went from pass to fail;
- the judge calibration is usable (when ``metrics/calibration.json`` exists or is required);
- human agreement (kappa) meets ``gate.min_human_kappa`` (when ``metrics/agreement.json`` exists or is required);
- the input hashes recorded in every metrics file match the current inputs (freshness).

Statuses: ``pass``; ``fail`` (a threshold unmet: exit 1); ``missing`` (a metrics file or value is
absent: exit 2) and ``stale`` (a recorded hash differs from the current input: exit 2). A missing
file is never a pass.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.data.plan import Plan

Status = Literal["pass", "fail", "missing", "stale"]


class GateParams(BaseModel):
    """params.yaml section ``gate``."""

    model_config = ConfigDict(extra="forbid")
    min_human_kappa: float = Field(0.6, ge=-1, le=1)
    require_judge: bool = True
    require_agreement: bool = True


@dataclass(frozen=True)
class Check:
    """One gate rule's outcome. ``value`` and ``threshold`` are for display; ``detail`` says why."""

    name: str
    status: Status
    detail: str
    value: float | None = None
    threshold: float | None = None


def exit_code(checks: list[Check]) -> int:
    """0 when every check passes, 2 when anything is missing or stale, otherwise 1."""
    if any(c.status in ("missing", "stale") for c in checks):
        return 2
    return 1 if any(c.status == "fail" for c in checks) else 0


def read_metrics(folder: Path, name: str) -> dict | None:
    """A metrics JSON file as a dict, or ``None`` when it does not exist."""
    f = folder / name
    return json.loads(f.read_text(encoding="utf-8")) if f.exists() else None


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4g}"


def metric_checks(plan: Plan, candidate: dict | None, compare: dict | None, candidate_name: str) -> list[Check]:
    """Blocking-threshold and no-regression checks for the candidate."""
    checks = []
    for m in plan.metrics:
        if m.gate != "block":
            continue
        name = f"{m.name} ({candidate_name})"
        if candidate is None:
            checks.append(Check(name, "missing", f"metrics/rag/{candidate_name}.json not found: run dvc repro", None, m.threshold))
            continue
        value = candidate.get(m.name)
        ok = m.meets(value)
        if ok is None:
            why = "no threshold" if m.threshold is None else f"no value for {m.name} in metrics/rag/{candidate_name}.json"
            checks.append(Check(name, "missing", why, value, m.threshold))
        else:
            sign = ">=" if m.direction == "higher" else "<="
            checks.append(Check(name, "pass" if ok else "fail", f"{_fmt(value)} {'meets' if ok else 'misses'} {sign} {_fmt(m.threshold)}",
                                value, m.threshold))
    for m in plan.metrics:
        if not m.no_regression:
            continue
        name = f"no regression on {m.name}"
        worse = (compare or {}).get("regressions", {}).get(m.name)
        if compare is None or worse is None:
            checks.append(Check(name, "missing", "metrics/compare.json has no regression count for it: run dvc repro"))
        else:
            checks.append(Check(name, "pass" if worse == 0 else "fail",
                                f"{worse} case(s) went from pass to fail" if worse else "no case got worse", worse, 0))
    return checks


def judge_checks(params: GateParams, agreement: dict | None, calibration: dict | None) -> list[Check]:
    """Human agreement floor and judge usability."""
    checks = []
    if agreement is not None or params.require_agreement:
        if agreement is None:
            checks.append(Check("human agreement", "missing", "metrics/agreement.json not found: run dvc repro"))
        else:
            k = agreement.get("kappa")
            ok = k is not None and k >= params.min_human_kappa
            checks.append(Check("human agreement", "pass" if ok else "fail",
                                f"kappa {_fmt(k)} {'>=' if ok else '<'} {params.min_human_kappa}", k, params.min_human_kappa))
    if calibration is not None or params.require_judge:
        if calibration is None:
            checks.append(Check("judge calibration", "missing", "metrics/calibration.json not found: run dvc repro"))
        else:
            usable = calibration.get("usable")
            detail = "usable" if usable == 1 else "not usable: " + "; ".join(rejection_reasons(calibration))
            checks.append(Check("judge calibration", "pass" if usable == 1 else "fail", detail, usable, 1))
    return checks


def rejection_reasons(calibration: dict) -> list[str]:
    """Why a calibration record says the judge is not usable, from its own thresholds."""
    from assay.judge.calibration import usability

    settings = calibration.get("settings") or {}
    try:
        reasons = usability(calibration, settings["min_kappa"], settings["min_slice_agreement"])
    except (KeyError, TypeError):
        reasons = []
    return reasons or ["see reports/calibration.md"]


def freshness_checks(recorded: dict[str, dict], current: dict[str, Callable[[], str]]) -> list[Check]:
    """Compare the ``inputs`` hashes recorded in each metrics file with the current inputs.

    Args:
        recorded: metrics file name -> its parsed JSON (files without ``inputs`` are skipped).
        current: input name -> a function computing that input's current hash. A key
            ``"<file>:<name>"`` applies to that metrics file only and wins over a plain ``"<name>"``
            (for inputs such as a version's answers file). Names neither form knows are not checked.

    Returns:
        One check per metrics file that records inputs: ``stale`` naming every changed input, else ``pass``.
    """
    cache: dict[str, str] = {}
    checks = []
    for fname, data in sorted(recorded.items()):
        inputs = (data or {}).get("inputs") or {}
        known = {k: (f"{fname}:{k}" if f"{fname}:{k}" in current else k, v) for k, v in inputs.items()
                 if f"{fname}:{k}" in current or k in current}
        if not known:
            continue
        changed = []
        for k, (key, v) in sorted(known.items()):
            if key not in cache:
                cache[key] = current[key]()
            if cache[key] != v:
                changed.append(k)
        checks.append(Check(f"fresh {fname}", "stale" if changed else "pass",
                            f"changed since the last run: {', '.join(changed)}" if changed else "inputs unchanged"))
    return checks


def checks_table(checks: list[Check]) -> str:
    """The verdict table as fixed-width text (what ``assay gate`` prints)."""
    width = max([len(c.name) for c in checks] + [5])
    lines = [f"{'check':<{width}}  status   detail"]
    lines += [f"{c.name:<{width}}  {c.status:<7}  {c.detail}" for c in checks]
    code = exit_code(checks)
    verdict = {0: "PASS: the candidate may ship", 1: "FAIL: a pre-registered threshold is unmet",
               2: "STALE OR MISSING: re-run dvc repro before deciding"}[code]
    return "\n".join(lines) + f"\n\nverdict: {verdict}\n"


def checks_dict(checks: list[Check]) -> list[dict]:
    """Checks as plain dicts (for the report)."""
    return [asdict(c) for c in checks]
