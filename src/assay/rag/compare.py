"""Paired comparison of two RAG versions run over the same cases.

Both runs must hold exactly the same case ids (the pairing is by id). Per case the pair of
``passed`` values is one of: both pass, both fail (``still_failing``), baseline fail and candidate
pass (``better``), baseline pass and candidate fail (``worse``); ``unchanged`` is both pass or both
fail. Statistics:

* pass rates with percentile-bootstrap 95% intervals (:func:`assay.rag.runner.pass_rate_ci`, same seed
  for both versions);
* ``p_sign``: exact two-sided sign test on the discordant pairs (``scipy.stats.binomtest`` of
  ``better`` successes in ``better + worse`` trials at 0.5); 1.0 when there are no discordant
  pairs (no evidence of any difference; binomtest refuses n = 0);
* McNemar's exact test (``statsmodels``) on the 2x2 table; its statistic is ``min(better, worse)``
  and its p equals ``p_sign`` (the exact McNemar test is the sign test on discordant pairs);
* per-metric regressions: for ``answer_correct``, ``abstain_correct``, ``citation_support`` and
  ``format_ok``, the cases true in the baseline and false in the candidate (cases where either side
  is undefined are not counted; ``regressions_n_paired`` says how many were comparable).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from assay.data.cases import TASKS
from assay.core.errors import AssayError, InputError, MissingArtifact, Problem
from assay.core.records import suggest
from assay.rag.runner import pass_rate_ci, rates_by

NO_REGRESSION = ("answer_correct", "abstain_correct", "citation_support", "format_ok")
REQUIRED = ("id", "task", "passed", *NO_REGRESSION)


class CompareParams(BaseModel):
    """The ``compare`` section of ``params.yaml``: which two versions to pair."""

    model_config = ConfigDict(extra="forbid")
    baseline: str = "baseline"
    candidate: str = "candidate"


def version_problems(params: CompareParams, versions: Iterable[str], where: str = "params.yaml") -> list[Problem]:
    """Problems for ``compare.baseline`` / ``compare.candidate`` values that are not in ``rag.versions``.

    Each names the param, the bad value, the closest known version (when one is close) and every
    known version, so a misspelt name does not surface later as a missing run file.

    >>> [str(p) for p in version_problems(CompareParams(candidate="candiate"), ["baseline", "candidate"])]
    ["params.yaml: field 'compare.candidate': 'candiate' is not a version in rag.versions; did you mean 'candidate'? (fix: use one of baseline, candidate, or add it under rag.versions)"]
    """
    known = sorted(versions)
    problems = []
    for side in ("baseline", "candidate"):
        name = getattr(params, side)
        if name not in known:
            close = suggest(name, known)
            problems.append(Problem(where, None, f"compare.{side}", f"{name!r} is not a version in rag.versions"
                                    + (f"; did you mean {close!r}?" if close else ""),
                                    f"use one of {', '.join(known) or '(none defined)'}, or add it under rag.versions"))
    return problems


class PairingError(AssayError):
    """The two runs do not hold the same cases, so they cannot be paired."""


def read_run(path: str | Path):
    """Read a run table (Parquet) as a pandas DataFrame, checking the columns a comparison needs.

    Raises:
        MissingArtifact: the file does not exist (run the evaluate stage for that version).
        InputError: a required column is missing or an id repeats.
    """
    import pandas as pd

    p = Path(path)
    if not p.exists():
        raise MissingArtifact(f"{path}: run table not found (fix: run the evaluate stage for this version first)")
    df = pd.read_parquet(p)
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise InputError([Problem(str(path), None, None, f"missing column(s) {', '.join(missing)}",
                                  "write run tables with assay.rag.runner.results_table")])
    repeated = sorted(df["id"][df["id"].duplicated()].unique())
    if repeated:
        raise InputError([Problem(str(path), None, "id", f"repeated case id(s): {', '.join(repeated[:20])}",
                                  "a run holds one row per case")])
    return df


def _name_ids(ids: list[str]) -> str:
    return ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")


def pair_runs(baseline, candidate, names: tuple[str, str] = ("baseline", "candidate")):
    """Join two run tables on ``id`` (sorted by id); columns get suffixes ``_b`` and ``_c``.

    Raises:
        PairingError: ids present on one side only, named for each side (up to 20 each).
    """
    b_ids, c_ids = set(baseline["id"]), set(candidate["id"])
    if b_ids != c_ids:
        parts = [f"{len(only)} case(s) only in {name}: {_name_ids(sorted(only))}"
                 for name, only in ((names[0], b_ids - c_ids), (names[1], c_ids - b_ids)) if only]
        raise PairingError(f"compare: the runs hold different cases; {'; '.join(parts)} "
                           "(fix: evaluate both versions on the same data/cases.jsonl)")
    paired = baseline.merge(candidate, on="id", suffixes=("_b", "_c"))
    return paired.sort_values("id", kind="stable").reset_index(drop=True)


def sign_test(better: int, worse: int) -> float:
    """Exact two-sided sign test p on discordant pairs; 1.0 when there are none.

    >>> sign_test(2, 0)  # 2 * 0.5**2
    0.5
    """
    if better + worse == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(better, better + worse, 0.5, alternative="two-sided").pvalue)


def mcnemar_exact(both_pass: int, worse: int, better: int, both_fail: int) -> tuple[float, float]:
    """``(statistic, p)`` of statsmodels' exact McNemar test on ``[[both_pass, worse], [better, both_fail]]``.

    With no discordant pairs statsmodels gives p = 1.0 and statistic 0.
    """
    from statsmodels.stats.contingency_tables import mcnemar

    result = mcnemar(np.array([[both_pass, worse], [better, both_fail]]), exact=True)
    return float(result.statistic), float(min(1.0, result.pvalue))


def compare_runs(baseline, candidate, resamples: int, seed: int,
                 names: tuple[str, str] = ("baseline", "candidate")) -> tuple[dict, dict]:
    """Compare two run tables; return ``(metrics, report)``.

    ``metrics`` holds scalars and nested dicts only: ``n``, ``baseline`` and ``candidate``
    (``pass_rate`` with ``pass_rate_ci_low``/``_high``), ``better``/``worse``/``unchanged``/
    ``still_failing`` counts, ``p_sign``, ``mcnemar`` (``statistic``, ``p``), ``baseline_by_task``
    and ``candidate_by_task`` (``{task: {pass_rate, n}}``, every task listed, ``None`` at n 0) and
    ``regressions`` (``{metric: cases that went from true to false}``) with
    ``regressions_n_paired`` (``{metric: cases defined on both sides}``). ``report`` holds the id lists
    (sorted): ``better``, ``worse``, ``unchanged``, ``still_failing`` and ``regressed`` per metric.
    """
    paired = pair_runs(baseline, candidate, names)
    ids = paired["id"].to_numpy()
    pb = paired["passed_b"].to_numpy(dtype=bool)
    pc = paired["passed_c"].to_numpy(dtype=bool)
    masks = {"better": ~pb & pc, "worse": pb & ~pc, "unchanged": pb == pc, "still_failing": ~pb & ~pc}
    counts = {key: int(mask.sum()) for key, mask in masks.items()}
    both_pass = counts["unchanged"] - counts["still_failing"]
    statistic, p_mcnemar = mcnemar_exact(both_pass, counts["worse"], counts["better"], counts["still_failing"])
    regressions, paired_n, regressed = {}, {}, {}
    for metric in NO_REGRESSION:
        vb, vc = (paired[f"{metric}_{side}"].astype("float64").to_numpy() for side in "bc")  # None -> nan
        mask = (vb == 1.0) & (vc == 0.0)
        regressions[metric] = int(mask.sum())
        paired_n[metric] = int((~np.isnan(vb) & ~np.isnan(vc)).sum())
        regressed[metric] = ids[mask].tolist()
    metrics = {
        "n": len(paired),
        "baseline": {"name": names[0], **pass_rate_ci(pb, resamples, seed)},
        "candidate": {"name": names[1], **pass_rate_ci(pc, resamples, seed)},
        **counts,
        "p_sign": sign_test(counts["better"], counts["worse"]),
        "mcnemar": {"statistic": statistic, "p": p_mcnemar},
        "baseline_by_task": rates_by(paired["task_b"].to_numpy(), pb, TASKS),
        "candidate_by_task": rates_by(paired["task_b"].to_numpy(), pc, TASKS),
        "regressions": regressions,
        "regressions_n_paired": paired_n,
    }
    report = {key: ids[mask].tolist() for key, mask in masks.items()}
    report["regressed"] = regressed
    return metrics, report


def run_provenance(runs: dict[str, str], metrics: dict[str, str]) -> dict:
    """Provenance of a comparison: ``assay_version`` and ``inputs`` (``cases``: the dataset hash both runs
    were made on, ``run_<version>``: SHA-256 of each run table), to merge into the top level.

    Args:
        runs: ``{version: run table path}``.
        metrics: ``{version: metrics/rag/<version>.json path}`` (where each run's dataset hash is).

    Raises:
        MissingArtifact: a metrics file is missing.
        PairingError: the runs were made on different case sets (different dataset hashes).
    """
    import json

    from assay.core.io import sha256_file
    from assay.core.provenance import provenance

    hashes = {}
    for name, path in metrics.items():
        if not Path(path).exists():
            raise MissingArtifact(f"{path}: metrics not found (fix: run the evaluate stage for {name!r} first)")
        hashes[name] = json.loads(Path(path).read_text(encoding="utf-8")).get("inputs", {}).get("cases")
    if len(set(hashes.values())) != 1 or None in hashes.values():
        shown = ", ".join(f"{name} {h}" for name, h in sorted(hashes.items()))
        raise PairingError(f"compare: the runs were made on different case sets (dataset hashes: {shown}) "
                           "(fix: re-run the evaluate stage for both versions)")
    return provenance(cases=next(iter(hashes.values())),
                      **{f"run_{name}": sha256_file(path) for name, path in sorted(runs.items())})
