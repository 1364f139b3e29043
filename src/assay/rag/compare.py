"""Paired comparison of two RAG versions run over the same cases.

Both runs must hold exactly the same case ids (the pairing is by id), and only the holdout cases
count: the release decision is taken on the holdout. Per case the pair of
``passed`` values is one of: both pass, both fail (``still_failing``), baseline fail and candidate
pass (``better``), baseline pass and candidate fail (``worse``); ``unchanged`` is both pass or both
fail. Statistics:

* pass rates with the proportion interval of ``rag.interval`` (Wilson by default), and the paired
  difference with Newcombe's hybrid score interval for paired proportions;
* ``p_sign``: exact two-sided sign test on the discordant pairs (``scipy.stats.binomtest`` of
  ``better`` successes in ``better + worse`` trials at 0.5); 1.0 when there are no discordant
  pairs (no evidence of any difference; binomtest refuses n = 0);
* McNemar's exact test on the 2x2 table; its statistic is ``min(better, worse)``
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

from assay.artifacts.base import finite
from assay.artifacts.rag import CompareMetrics
from assay.core.errors import AssayError, InputError, MissingArtifact, Problem
from assay.data.cases import TASKS
from assay.rag.metrics import rate
from assay.stats.paired import mcnemar_exact, paired_diff_ci, sign_test
from assay.stats.proportion import IntervalMethod
from assay.core.records import suggest

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
    ["params.yaml: field 'compare.candidate': 'candiate' is not a version in rag.versions; did you mean 'candidate'? \
(fix: use one of baseline, candidate, or add it under rag.versions)"]
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


def compare_runs(baseline, candidate, sides: dict[str, str], method: IntervalMethod = "wilson",
                 names: tuple[str, str] = ("baseline", "candidate")) -> tuple[CompareMetrics, dict]:
    """Compare two run tables on the holdout cases; return ``(metrics, report)``.

    Only cases whose side in ``sides`` is ``holdout`` count: the release decision is taken on the
    holdout, dev figures are for tuning (see each version's metrics). ``metrics`` holds both pass
    rates with their proportion interval, the paired difference ``candidate - baseline`` with
    Newcombe's paired interval (:func:`assay.stats.paired.paired_diff_ci`), the better/worse/
    unchanged/still_failing counts, the sign test and exact McNemar, pass rates by task and the
    per-metric regressions with ``regressions_n_paired``. ``report`` holds the sorted id lists
    ``better``, ``worse``, ``unchanged``, ``still_failing`` and ``regressed`` per metric.

    Raises:
        PairingError: the runs hold different cases, or a case has no side in the split.
    """
    paired = pair_runs(baseline, candidate, names)
    unknown = sorted(set(paired["id"]) - set(sides))
    if unknown:
        raise PairingError(f"compare: {len(unknown)} case(s) have no side in the split: {_name_ids(unknown)} "
                           "(fix: re-run the split stage)")
    paired = paired[paired["id"].map(sides) == "holdout"].reset_index(drop=True)
    ids = paired["id"].to_numpy()
    pb = paired["passed_b"].to_numpy(dtype=bool)
    pc = paired["passed_c"].to_numpy(dtype=bool)
    masks = {"better": ~pb & pc, "worse": pb & ~pc, "unchanged": pb == pc, "still_failing": ~pb & ~pc}
    counts = {key: int(mask.sum()) for key, mask in masks.items()}
    both_pass = counts["unchanged"] - counts["still_failing"]
    statistic, p_mcnemar = mcnemar_exact(both_pass, counts["worse"], counts["better"], counts["still_failing"])
    diff, low, high = paired_diff_ci(both_pass, counts["worse"], counts["better"], counts["still_failing"])
    regressions, paired_n, regressed = {}, {}, {}
    for metric in NO_REGRESSION:
        vb, vc = (paired[f"{metric}_{side}"].astype("float64").to_numpy() for side in "bc")  # None -> nan
        mask = (vb == 1.0) & (vc == 0.0)
        regressions[metric] = int(mask.sum())
        paired_n[metric] = int((~np.isnan(vb) & ~np.isnan(vc)).sum())
        regressed[metric] = ids[mask].tolist()
    tasks = paired["task_b"].to_numpy()
    metrics = CompareMetrics(
        n=len(paired), baseline_pass_rate=rate(pb, method), candidate_pass_rate=rate(pc, method),
        diff=finite(diff), diff_ci_low=finite(low), diff_ci_high=finite(high), **counts,
        p_sign=sign_test(counts["better"], counts["worse"]), mcnemar_statistic=statistic, mcnemar_p=p_mcnemar,
        baseline_by_task={t: rate(pb[tasks == t], method) for t in TASKS},
        candidate_by_task={t: rate(pc[tasks == t], method) for t in TASKS},
        regressions=regressions, regressions_n_paired=paired_n)
    report = {key: ids[mask].tolist() for key, mask in masks.items()}
    report["regressed"] = regressed
    return metrics, report


def run_provenance(runs: dict[str, str], split_hash: str):
    """Provenance of a comparison: ``cases`` (the dataset hash both runs were made on), ``split``
    (SHA-256 of the split table) and ``run_<version>`` (SHA-256 of each run table).

    Args:
        runs: ``{version: run table path}``; each version's dataset hash is read from its
            evaluate stage's provenance file.
        split_hash: SHA-256 of the split table the holdout was taken from.

    Raises:
        MissingArtifact: a version's provenance file is missing.
        PairingError: the runs were made on different case sets (different dataset hashes).
    """
    from assay.artifacts.provenance import provenance
    from assay.artifacts.registry import PROVENANCE, RAG, provenance_stage
    from assay.core.io import sha256_file

    hashes = {name: PROVENANCE.read(stage=provenance_stage(RAG, version=name)).inputs.get("cases") for name in runs}
    if len(set(hashes.values())) != 1 or None in hashes.values():
        shown = ", ".join(f"{name} {h}" for name, h in sorted(hashes.items()))
        raise PairingError(f"compare: the runs were made on different case sets (dataset hashes: {shown}) "
                           "(fix: re-run the evaluate stage for both versions)")
    return provenance(cases=next(iter(hashes.values())), split=split_hash,
                      **{f"run_{name}": sha256_file(path) for name, path in sorted(runs.items())})
