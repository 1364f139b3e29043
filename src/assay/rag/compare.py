"""Paired comparison of two RAG versions run over the same cases.

Both runs must hold exactly the same case ids (the pairing is by id), and only the holdout cases
count: the release decision is taken on the holdout. Per case the pair of
``passed`` values is one of: both pass, both fail (``still_failing``), baseline fail and candidate
pass (``better``), baseline pass and candidate fail (``worse``); ``unchanged`` is both pass or both
fail. Statistics:

* pass rates with the proportion interval of ``rag.interval`` (Wilson by default), and the paired
  difference with Tango's score interval for paired proportions (:func:`assay.stats.paired.paired_diff_ci`;
  it inverts the asymptotic McNemar score test, so with a handful of discordant cases it can exclude 0
  where the exact test's p is above 0.05: read ``mcnemar_p`` for the test);
* ``p_sign``: exact two-sided sign test on the discordant pairs (``scipy.stats.binomtest`` of
  ``better`` successes in ``better + worse`` trials at 0.5); 1.0 when there are no discordant
  pairs (no evidence of any difference; binomtest refuses n = 0);
* McNemar's exact test on the 2x2 table; its statistic is ``min(better, worse)``
  and its p equals ``p_sign`` (the exact McNemar test is the sign test on discordant pairs);
* per-metric regressions: for ``answer_correct``, ``abstain_correct``, ``citation_support``,
  ``format_ok`` and the tool-use columns ``tool_selection``, ``tool_arguments`` (every expected
  argument met) and ``tool_permission``, the cases true in the baseline and false in the candidate (cases where either side
  is undefined are not counted; ``regressions_n_paired`` says how many were comparable).

A version run several times per case (``repeats``; its run table has a ``repeat`` column) is
compared on **per-case means** (:func:`fold_runs`): each case's pass share over its runs.
``better``/``worse`` are the cases whose share rose/fell, ``unchanged`` those where it is equal,
``still_failing`` those failing every run on both sides; the difference is the mean of the per-case
differences with the paired t interval and test (:func:`assay.stats.clustered.paired_mean_diff`,
``repeats.t_p``), ``p_sign`` is the sign test on the cases that moved, and the two pass rates are
means over runs with the cluster-robust interval. McNemar's test needs one 0/1 outcome per case
and is ``None``. The per-metric regressions read each case as pass^k (true on every run that
defines it), the gate's default reading.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydantic import ConfigDict

from assay.artifacts.base import finite
from assay.artifacts.rag import CompareMetrics, CompareRepeats
from assay.core.errors import AssayError, InputError, MissingArtifact, Problem
from assay.data.cases import TASKS
from assay.rag.metrics import TOOL_METRICS, rate
from assay.rag.repeats import runs_estimate
from assay.stats.clustered import paired_mean_diff
from assay.stats.paired import mcnemar_exact, paired_diff_ci, sign_test
from assay.stats.proportion import IntervalMethod
from assay.core.records import suggest
from assay.core.records import InputModel

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from assay.artifacts.provenance import Provenance
    from assay.judge.matchup import Matchup

#: tool-use columns: a run table without them (made before tool use, or by hand) reads as undefined on every case
TOOL_COLUMNS = TOOL_METRICS
NO_REGRESSION = ("answer_correct", "abstain_correct", "citation_support", "format_ok", *TOOL_COLUMNS)
REQUIRED = ("id", "task", "passed", *NO_REGRESSION[:4])
#: what :func:`fold_runs` adds: per case, the passing runs and the runs
RUN_COUNTS = ("passed_runs", "runs")


class CompareParams(InputModel):
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


def read_run(path: str | Path) -> pa.Table:
    """Read a run table (Parquet) as a pyarrow Table, checking the columns a comparison needs.

    Raises:
        MissingArtifact: the file does not exist (run the evaluate stage for that version).
        InputError: a required column is missing or an id repeats.
    """
    import pyarrow.parquet as pq

    p = Path(path)
    if not p.exists():
        raise MissingArtifact(f"{path}: run table not found (fix: run the evaluate stage for this version first)")
    table = pq.ParquetFile(p).read()  # pq.read_table would import pandas for nothing
    missing = [c for c in REQUIRED if c not in table.column_names]
    if missing:
        raise InputError([Problem(str(path), None, None, f"missing column(s) {', '.join(missing)}",
                                  "write run tables with assay.rag.runner.results_table")])
    if "repeat" in table.column_names:
        from collections import Counter

        seen = Counter(zip(table.column("id").to_pylist(), table.column("repeat").to_pylist(), strict=True))
        twice = sorted(f"{i} (repeat {r})" for (i, r), times in seen.items() if times > 1)
        if twice:
            raise InputError([Problem(str(path), None, "id", f"repeated case run(s): {', '.join(twice[:20])}",
                                      "a run holds one row per case and repeat")])
        return table
    repeated = _repeated(_id_array(table))
    if repeated:
        raise InputError([Problem(str(path), None, "id", f"repeated case id(s): {', '.join(repeated[:20])}",
                                  "a run holds one row per case")])
    return table


def first_runs(table: pa.Table) -> pa.Table:
    """The rows of run 0 of a run table with ``repeat`` (one per case); a table without it as it is."""
    import pyarrow.compute as pc

    return table if "repeat" not in table.column_names else table.filter(pc.equal(table["repeat"], 0))


def run_count(table: pa.Table) -> int:
    """How many runs per case a run table holds: 1 without a ``repeat`` column, else the highest index plus one."""
    import pyarrow.compute as pc

    if "repeat" not in table.column_names or not len(table):
        return 1
    return int(pc.max(table["repeat"]).as_py()) + 1


def fold_runs(table: pa.Table) -> pa.Table:
    """One row per case (sorted by id) with :data:`RUN_COUNTS` added: ``passed_runs`` and ``runs``.

    Each 0/1 column (``passed`` and :data:`NO_REGRESSION`) becomes true when it is true on every run
    that defines it (null when none does). A table without ``repeat`` keeps its rows (one run each).
    """
    import pyarrow as pa

    table = _with_tools(table, keep=("repeat",))
    if "repeat" not in table.column_names:
        passed = table["passed"].combine_chunks().cast(pa.int64()).fill_null(0)
        return table.append_column("passed_runs", passed).append_column("runs", pa.array([1] * len(table), pa.int64()))
    flags = ("passed", *NO_REGRESSION)
    grouped = table.group_by(["id", "task"], use_threads=False).aggregate(
        [(c, "min") for c in flags] + [("passed", "sum"), ("passed", "count")]).sort_by("id")
    columns = {"id": grouped["id"], "task": grouped["task"], **{c: grouped[f"{c}_min"] for c in flags},
               "passed_runs": grouped["passed_sum"].cast(pa.int64()), "runs": grouped["passed_count"]}
    return pa.table(columns)


def version_matchups(cases_file: str | Path, names: CompareParams) -> tuple[dict[str, str], list[Matchup]]:
    """The baseline's and the candidate's run tables (version name -> path) and their answers paired
    case by case (:func:`assay.judge.matchup.matchups`): what ``judge_compare`` asks and ``ppi`` replays.

    Raises:
        MissingArtifact, InputError: a run table missing or unreadable, as :func:`replies`.
    """
    from assay.artifacts.registry import RUN_TABLE
    from assay.data.cases import load_cases
    from assay.judge.matchup import matchups

    runs = {name: RUN_TABLE.relpath(version=name) for name in (names.baseline, names.candidate)}
    return runs, matchups(load_cases(cases_file), replies(runs[names.baseline]), replies(runs[names.candidate]))


def replies(path: str | Path) -> dict[str, str]:
    """A run table's reply text by case id (what the judge compares; a null reply is the empty string).

    Raises:
        MissingArtifact, InputError: as :func:`read_run`; also a table without a ``reply`` column.
    """
    table = read_run(path)
    if "reply" not in table.column_names:
        raise InputError([Problem(str(path), None, None, "missing column reply",
                                  "write run tables with assay.rag.runner.results_table")])
    table = first_runs(table)  # with repeats, the judge compares each case's first run
    ids = table.column("id").to_pylist()
    texts = table.column("reply").to_pylist()
    return {str(i): "" if t is None else str(t) for i, t in zip(ids, texts, strict=True)}


def _name_ids(ids: list[str]) -> str:
    return ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")


def _as_table(run: pa.Table | pd.DataFrame) -> pa.Table:
    """A run as a pyarrow Table: a Table as it is, a pandas DataFrame converted (no index)."""
    import pyarrow as pa

    return run if isinstance(run, pa.Table) else pa.Table.from_pandas(run, preserve_index=False)


def _id_array(table: pa.Table) -> pa.Array:
    """The ``id`` column as one ``large_string`` array (the type pandas and Parquet readers disagree on)."""
    import pyarrow as pa

    return table["id"].combine_chunks().cast(pa.large_string())


def _increasing(ids: pa.Array) -> bool:
    """Whether ``ids`` is strictly increasing (sorted, no repeats); an empty or one-row array is."""
    import pyarrow.compute as pc

    return len(ids) < 2 or pc.all(pc.less(ids.slice(0, len(ids) - 1), ids.slice(1))).as_py()


def _repeated(ids: pa.Array) -> list[str]:
    """The ids that occur more than once, sorted; ``[]`` for a sorted run (one comparison pass)."""
    import pyarrow.compute as pc

    if _increasing(ids):
        return []
    counts = pc.value_counts(ids)
    return sorted(counts.field("values").filter(pc.greater(counts.field("counts"), 1)).to_pylist())


def pair_rows(b_ids: pa.Array, c_ids: pa.Array,
              names: tuple[str, str] = ("baseline", "candidate")) -> tuple[np.ndarray, np.ndarray] | tuple[None, None]:
    """Pair two runs' rows by case id: ``(rows_b, rows_c)``, row positions in id order, or ``None``
    for both when the two id columns are already the same sorted list (what the evaluate stage
    writes), so the runs pair row by row with no lookup at all.

    The ids are compared as Arrow arrays (hash lookups and sorts in C++), never one Python string
    at a time.

    Raises:
        PairingError: ids present on one side only, named for each side (up to 20 each), or an id
            repeated within a run.
    """
    import numpy as np
    import pyarrow.compute as pc

    if b_ids.equals(c_ids) and _increasing(b_ids):
        return None, None
    if len(b_ids) == len(c_ids):
        at = pc.index_in(b_ids, value_set=c_ids)  # each baseline id's row in the candidate
        if at.null_count == 0:
            rows_c = at.to_numpy().astype(np.int64)
            # every candidate row hit exactly once: no id is missing or repeated on either side
            if (np.bincount(rows_c, minlength=len(c_ids)) == 1).all():
                if _increasing(b_ids):
                    return np.arange(len(b_ids)), rows_c
                rows_b = pc.sort_indices(b_ids).to_numpy()
                return rows_b, rows_c[rows_b]
    only_b = b_ids.filter(pc.invert(pc.is_in(b_ids, value_set=c_ids))).to_pylist()
    only_c = c_ids.filter(pc.invert(pc.is_in(c_ids, value_set=b_ids))).to_pylist()
    if only_b or only_c:
        parts = [f"{len(set(only))} case(s) only in {name}: {_name_ids(sorted(set(only)))}"
                 for name, only in ((names[0], only_b), (names[1], only_c)) if only]
        raise PairingError(f"compare: the runs hold different cases; {'; '.join(parts)} "
                           "(fix: evaluate both versions on the same data/cases.jsonl)")
    name, ids = next((n, i) for n, i in zip(names, (b_ids, c_ids), strict=True) if _repeated(i))
    raise PairingError(f"compare: {name} repeats case id(s) {_name_ids(_repeated(ids))} "
                       "(fix: a run holds one row per case)")


def _holdout_mask(ids: pa.Array, sides: Mapping[str, str] | pa.Table) -> np.ndarray:
    """Which of ``ids`` (sorted) are on the holdout side of ``sides`` (a mapping or the split table).

    The split table (columns ``id``, ``side``, sorted by id as the split stage writes it) pairs by
    position when it holds exactly ``ids``; a mapping is turned into arrays first.

    Raises:
        PairingError: an id has no side.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(sides, pa.Table):
        keys, values = _id_array(sides), sides["side"].combine_chunks()
    else:
        keys, values = pa.array(list(sides), pa.large_string()), pa.array(list(sides.values()), pa.string())
    holdout = pc.equal(values, "holdout")
    if keys.equals(ids):
        return holdout.to_numpy(zero_copy_only=False)
    at = pc.index_in(ids, value_set=keys)
    if at.null_count:
        unknown = ids.filter(at.is_null()).to_pylist()
        raise PairingError(f"compare: {len(unknown)} case(s) have no side in the split: {_name_ids(unknown)} "
                           "(fix: re-run the split stage)")
    return holdout.take(at).to_numpy(zero_copy_only=False)


def _with_tools(table: pa.Table, keep: tuple[str, ...] = RUN_COUNTS) -> pa.Table:
    """The columns a comparison reads (and ``keep`` when present); absent tool-use columns are added as nulls
    (undefined on every case)."""
    import pyarrow as pa

    table = table.select([c for c in (*REQUIRED, *TOOL_COLUMNS, *keep) if c in table.column_names])
    for name in TOOL_COLUMNS:
        if name not in table.column_names:
            table = table.append_column(name, pa.nulls(len(table), pa.bool_()))
    return table


def _flags(table: pa.Table, name: str) -> pa.Array:
    """Column ``name`` as one Arrow boolean array (nulls kept: undefined)."""
    import pyarrow as pa

    return table[name].combine_chunks().cast(pa.bool_())


def compare_runs(baseline: pa.Table | pd.DataFrame, candidate: pa.Table | pd.DataFrame, sides: Mapping[str, str] | pa.Table,
                 method: IntervalMethod = "wilson", names: tuple[str, str] = ("baseline", "candidate"),
                 ) -> tuple[CompareMetrics, dict[str, list[str] | dict[str, list[str]]]]:
    """Compare two run tables on the holdout cases; return ``(metrics, report)``.

    Only cases whose side in ``sides`` is ``holdout`` count: the release decision is taken on the
    holdout, dev figures are for tuning (see each version's metrics). ``metrics`` holds both pass
    rates with their proportion interval, the paired difference ``candidate - baseline`` with
    Tango's paired score interval (:func:`assay.stats.paired.paired_diff_ci`), the better/worse/
    unchanged/still_failing counts, the sign test and exact McNemar, pass rates by task and the
    per-metric regressions with ``regressions_n_paired``. ``report`` holds the sorted id lists
    ``better``, ``worse``, ``unchanged``, ``still_failing`` and ``regressed`` per metric.

    Args:
        baseline, candidate: run tables (pyarrow Tables from :func:`read_run`, or pandas DataFrames).
        sides: case id -> ``dev``/``holdout``, as a mapping or as the split table (pyarrow, columns
            ``id`` and ``side``; :func:`assay.data.split.read_split_table`).

    Raises:
        PairingError: the runs hold different cases, an id repeats, or a case has no side in the split.
    """
    baseline, candidate = _as_table(baseline), _as_table(candidate)
    runs = (run_count(baseline), run_count(candidate))
    folded = "repeat" in baseline.column_names or "repeat" in candidate.column_names
    if folded:
        baseline, candidate = fold_runs(baseline), fold_runs(candidate)
    baseline, candidate = _with_tools(baseline), _with_tools(candidate)
    b_ids = _id_array(baseline)
    rows_b, rows_c = pair_rows(b_ids, _id_array(candidate), names)
    if rows_b is not None:
        baseline, candidate = baseline.take(rows_b), candidate.take(rows_c)
    holdout = _holdout_mask(_id_array(baseline), sides)
    baseline, candidate = baseline.filter(holdout), candidate.filter(holdout)
    ids = _id_array(baseline).to_numpy(zero_copy_only=False)  # one conversion for every id list
    pb = _flags(baseline, "passed").to_numpy(zero_copy_only=False).astype(bool)
    pc_ = _flags(candidate, "passed").to_numpy(zero_copy_only=False).astype(bool)
    if folded:
        return _compare_means(baseline, candidate, ids, task_index(baseline), runs, method)
    masks = {"better": ~pb & pc_, "worse": pb & ~pc_, "unchanged": pb == pc_, "still_failing": ~pb & ~pc_}
    counts = {key: int(mask.sum()) for key, mask in masks.items()}
    both_pass = counts["unchanged"] - counts["still_failing"]
    statistic, p_mcnemar = mcnemar_exact(both_pass, counts["worse"], counts["better"], counts["still_failing"])
    diff, low, high = paired_diff_ci(both_pass, counts["worse"], counts["better"], counts["still_failing"])

    regressions, paired_n, regressed = _regressions(baseline, candidate, ids)
    task = task_index(baseline)
    metrics = CompareMetrics(
        n=len(ids), baseline_pass_rate=rate(pb, method), candidate_pass_rate=rate(pc_, method),
        diff=finite(diff), diff_ci_low=finite(low), diff_ci_high=finite(high), **counts,
        p_sign=sign_test(counts["better"], counts["worse"]), mcnemar_statistic=statistic, mcnemar_p=p_mcnemar,
        baseline_by_task={t: rate(pb[task == i], method) for i, t in enumerate(TASKS)},
        candidate_by_task={t: rate(pc_[task == i], method) for i, t in enumerate(TASKS)},
        regressions=regressions, regressions_n_paired=paired_n)
    report: dict[str, list[str] | dict[str, list[str]]] = {key: ids[mask].tolist() for key, mask in masks.items()}
    report["regressed"] = regressed
    return metrics, report


def task_index(table: pa.Table) -> np.ndarray:
    """Each row's task as its position in :data:`~assay.data.cases.TASKS` (-1 for an unknown task)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    task = pc.index_in(table["task"], value_set=pa.array(TASKS, pa.string()))
    return pc.fill_null(task, -1).to_numpy(zero_copy_only=False)


def _regressions(baseline: pa.Table, candidate: pa.Table, ids: np.ndarray
                 ) -> tuple[dict[str, int], dict[str, int], dict[str, list[str]]]:
    """Per metric of :data:`NO_REGRESSION`: the cases true in the baseline and false in the candidate, how many
    were comparable, and their ids."""
    import pyarrow.compute as pc

    regressions, paired_n, regressed = {}, {}, {}
    for metric in NO_REGRESSION:
        vb, vc = _flags(baseline, metric), _flags(candidate, metric)
        # undefined (null) on either side is neither a regression nor comparable
        mask = pc.fill_null(pc.and_(vb, pc.invert(vc)), False).to_numpy(zero_copy_only=False)
        regressions[metric] = int(mask.sum())
        paired_n[metric] = len(vb) - pc.or_(vb.is_null(), vc.is_null()).true_count
        regressed[metric] = ids[mask].tolist()
    return regressions, paired_n, regressed


def _compare_means(baseline: pa.Table, candidate: pa.Table, ids: np.ndarray, task: np.ndarray, runs: tuple[int, int],
                   method: IntervalMethod) -> tuple[CompareMetrics, dict[str, list[str] | dict[str, list[str]]]]:
    """:func:`compare_runs` on folded runs (paired, holdout only): per-case pass shares (see the module docstring)."""
    sb, mb = (baseline[c].to_numpy() for c in RUN_COUNTS)
    sc, mc = (candidate[c].to_numpy() for c in RUN_COUNTS)
    qb, qc = sb / np.maximum(mb, 1), sc / np.maximum(mc, 1)
    masks = {"better": qc > qb, "worse": qc < qb, "unchanged": qc == qb, "still_failing": (sb == 0) & (sc == 0)}
    counts = {key: int(mask.sum()) for key, mask in masks.items()}
    paired = paired_mean_diff(qb, qc)
    regressions, paired_n, regressed = _regressions(baseline, candidate, ids)
    metrics = CompareMetrics(
        n=len(ids), baseline_pass_rate=runs_estimate(sb, mb), candidate_pass_rate=runs_estimate(sc, mc),
        diff=finite(paired.diff), diff_ci_low=finite(paired.low), diff_ci_high=finite(paired.high), **counts,
        p_sign=sign_test(counts["better"], counts["worse"]), mcnemar_statistic=None, mcnemar_p=None,
        baseline_by_task={t: runs_estimate(sb[task == i], mb[task == i]) for i, t in enumerate(TASKS)},
        candidate_by_task={t: runs_estimate(sc[task == i], mc[task == i]) for i, t in enumerate(TASKS)},
        regressions=regressions, regressions_n_paired=paired_n,
        repeats=CompareRepeats(baseline_runs=runs[0], candidate_runs=runs[1], t_statistic=finite(paired.statistic),
                               t_p=finite(paired.p)))
    report: dict[str, list[str] | dict[str, list[str]]] = {key: ids[mask].tolist() for key, mask in masks.items()}
    report["regressed"] = regressed
    return metrics, report


def run_provenance(runs: dict[str, str], split_hash: str) -> Provenance:
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
    cases = next(iter(hashes.values()), None)
    if len(set(hashes.values())) != 1 or cases is None:
        shown = ", ".join(f"{name} {h}" for name, h in sorted(hashes.items()))
        raise PairingError(f"compare: the runs were made on different case sets (dataset hashes: {shown}) "
                           "(fix: re-run the evaluate stage for both versions)")
    run_hashes = {f"run_{name}": sha256_file(path) for name, path in sorted(runs.items())}
    # the keys are run_<version>, never provenance's settings/details, which mypy cannot see through **
    return provenance(cases=cases, split=split_hash, **run_hashes)  # type: ignore[arg-type]
