"""Paired comparison of two run tables: counts, the evaluation-design notes' exercise, pairing errors (sign test and McNemar: test_paired.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.rag.compare import (
    PairingError,
    compare_runs,
    read_run,
    run_provenance,
)
from assay.data.corpus import load_corpus
from assay.data.cases import load_cases
from assay.core.errors import InputError, MissingArtifact
from assay.core.io import write_json, write_parquet
from assay.rag.runner import VersionParams, results_table, run_version

TINY = Path(__file__).parent / "fixtures" / "tiny_corpus"


def _run(passed: dict[str, bool], tasks: dict[str, str] | None = None, **columns) -> pd.DataFrame:
    ids = sorted(passed)
    df = pd.DataFrame({"id": ids, "task": [(tasks or {}).get(i, "lookup") for i in ids],
                       "passed": [passed[i] for i in ids]})
    for metric in ("answer_correct", "abstain_correct", "citation_support", "format_ok"):
        values = columns.get(metric, {})
        df[metric] = pd.Series([values.get(i, passed[i]) for i in ids], dtype=object)
    return df


def _all_holdout(*runs) -> dict[str, str]:
    # runs are pandas DataFrames or pyarrow Tables (read_run)
    return {i: "holdout" for run in runs for i in (run["id"].to_pylist() if hasattr(run["id"], "to_pylist") else run["id"])}


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval by its formula (independent of statsmodels)."""
    p = k / n
    centre, half = (p + z * z / (2 * n)) / (1 + z * z / n), z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_seed_exercise_numbers():
    # the evaluation-design notes' exercise: 31 cases; v1 passes 25, v2 passes 27; better p02, p09; worse none; 4 fail in both.
    tasks = {**{f"l{i:02d}": "lookup" for i in range(12)}, **{f"e{i}": "exact_term" for i in range(3)},
             **{f"m{i}": "multi_fact" for i in range(6)}, **{i: "paraphrase" for i in ("p02", "p08", "p09", "g08")},
             **{f"a{i:02d}": "unanswerable" for i in range(1, 7)}}
    still_failing = {"a02", "a05", "g08", "p08"}  # its by-task numbers make g08 a paraphrase
    old = {i: i not in still_failing | {"p02", "p09"} for i in tasks}
    new = {i: i not in still_failing for i in tasks}
    base, cand = _run(old, tasks), _run(new, tasks)
    m, report = compare_runs(base, cand, _all_holdout(base, cand))
    assert (m.n, m.better, m.worse, m.unchanged, m.p_sign) == (31, 2, 0, 29, 0.5)
    assert (m.baseline_pass_rate.value, m.candidate_pass_rate.value) == (25 / 31, 27 / 31)
    low, high = wilson(27, 31)
    assert (m.candidate_pass_rate.ci_low, m.candidate_pass_rate.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert m.diff == pytest.approx(2 / 31) and m.diff_ci_low < m.diff < m.diff_ci_high
    assert report["better"] == ["p02", "p09"] and report["worse"] == []
    assert report["still_failing"] == ["a02", "a05", "g08", "p08"]
    by_task = {t: (v.value, v.n) for t, v in m.candidate_by_task.items()}
    # seed: exact_term (1.0, 3), lookup (1.0, 12), multi_fact (1.0, 6), paraphrase (0.5, 4), unanswerable (0.67, 6)
    assert by_task == {"exact_term": (1.0, 3), "lookup": (1.0, 12), "multi_fact": (1.0, 6),
                       "paraphrase": (0.5, 4), "unanswerable": (4 / 6, 6)}
    assert (m.mcnemar_statistic, m.mcnemar_p) == (0.0, 0.5)


def test_only_holdout_cases_decide():
    base, cand = _run({"a": True, "b": True, "c": False}), _run({"a": False, "b": True, "c": True})
    m, report = compare_runs(base, cand, {"a": "dev", "b": "holdout", "c": "holdout"})
    assert (m.n, m.better, m.worse) == (2, 1, 0) and report["better"] == ["c"]
    with pytest.raises(PairingError, match="1 case\\(s\\) have no side in the split: c"):
        compare_runs(base, cand, {"a": "dev", "b": "holdout"})


def test_per_metric_regressions_skip_undefined():
    base = _run({"a": True, "b": True, "c": False}, citation_support={"a": True, "b": True, "c": None})
    cand = _run({"a": False, "b": True, "c": True}, citation_support={"a": None, "b": False, "c": True})
    m, report = compare_runs(base, cand, _all_holdout(base, cand))
    # a: True -> None is not counted (undefined on one side); b: True -> False is; c: None -> True is not
    assert (m.regressions["citation_support"], m.regressions_n_paired["citation_support"]) == (1, 1)
    assert report["regressed"]["citation_support"] == ["b"]
    assert (m.regressions["answer_correct"], m.regressions_n_paired["answer_correct"]) == (1, 3)  # a: True -> False


def test_different_case_sets_name_the_ids():
    base, cand = _run({"a": True, "b": True, "c": True}), _run({"b": True, "c": True, "d": False, "e": True})
    with pytest.raises(PairingError) as error:
        compare_runs(base, cand, _all_holdout(base, cand), names=("v1", "v2"))
    assert str(error.value) == ("compare: the runs hold different cases; 1 case(s) only in v1: a; 2 case(s) only "
                                "in v2: d, e (fix: evaluate both versions on the same data/cases.jsonl)")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_swapping_versions_swaps_better_and_worse(pairs):
    base = _run({f"c{i}": b for i, (b, _) in enumerate(pairs)})
    cand = _run({f"c{i}": c for i, (_, c) in enumerate(pairs)})
    sides = _all_holdout(base, cand)
    m, _ = compare_runs(base, cand, sides)
    r, _ = compare_runs(cand, base, sides)
    assert m.better + m.worse + m.unchanged == m.n == len(pairs)
    assert (m.better, m.worse, m.p_sign) == (r.worse, r.better, r.p_sign)
    assert m.diff == pytest.approx(-r.diff) and m.diff_ci_low == pytest.approx(-r.diff_ci_high)
    assert 0.0 <= m.p_sign <= 1.0 and m.still_failing <= m.unchanged


def test_read_run_errors(tmp_path):
    with pytest.raises(MissingArtifact, match="run table not found"):
        read_run(tmp_path / "none.parquet")
    write_parquet(tmp_path / "bad.parquet", pd.DataFrame({"id": ["a"], "passed": [True]}))
    with pytest.raises(InputError) as error:
        read_run(tmp_path / "bad.parquet")
    assert str(error.value) == (f"{tmp_path / 'bad.parquet'}: missing column(s) task, answer_correct, abstain_correct, "
                                "citation_support, format_ok (fix: write run tables with assay.rag.runner.results_table)")


def test_tiny_corpus_end_to_end(tmp_path, monkeypatch):
    corpus = load_corpus(TINY / "corpus")
    cases = load_cases(TINY / "cases.jsonl", corpus)
    versions = {"baseline": VersionParams(chunking="paragraph", min_score=0.2),
                "candidate": VersionParams(chunking="sentence", min_score=0.3, min_margin=0.05)}
    runs = {}
    for name, version in versions.items():
        runs[name] = str(tmp_path / f"{name}.parquet")
        write_parquet(runs[name], results_table(run_version(name, version, cases, corpus, k=3)))
        write_json(tmp_path / "reports" / "provenance" / f"evaluate_{name}.json",
                   {"assay_version": "0", "inputs": {"cases": "h1"}})
    base, cand = read_run(runs["baseline"]), read_run(runs["candidate"])
    m, report = compare_runs(base, cand, _all_holdout(base, cand))
    # see test_runner's hand-checked verdicts: t1 passes only in the baseline; t4, t6 fail in both
    assert report["worse"] == ["t1"] and report["better"] == [] and report["still_failing"] == ["t4", "t6"]
    # one discordant pair: two-sided exact binomial p = 2 * 0.5 = 1.0, capped at 1
    assert m.p_sign == 1.0 and m.regressions["answer_correct"] == 1
    monkeypatch.chdir(tmp_path)
    prov = run_provenance(runs, "split-hash")
    assert prov.inputs["cases"] == "h1" and set(prov.inputs) == {"cases", "split", "run_baseline", "run_candidate"}
    write_json(tmp_path / "reports" / "provenance" / "evaluate_candidate.json", {"assay_version": "0", "inputs": {"cases": "h2"}})
    with pytest.raises(PairingError, match=r"different case sets \(dataset hashes: baseline h1, candidate h2\)"):
        run_provenance(runs, "split-hash")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.sampled_from(["dev", "holdout"])), min_size=1, max_size=40),
       st.randoms(use_true_random=False))
def test_pairing_by_index_ignores_row_order_and_the_form_of_the_split(rows, rnd):
    import pyarrow as pa

    from assay.data.split import split_table

    base = _run({f"c{i:02d}": b for i, (b, _, _) in enumerate(rows)})
    cand = _run({f"c{i:02d}": c for i, (_, c, _) in enumerate(rows)})
    sides = {f"c{i:02d}": side for i, (_, _, side) in enumerate(rows)}
    expected = compare_runs(base, cand, sides)
    shuffled = cand.sample(frac=1, random_state=rnd.randint(0, 10**6)).reset_index(drop=True)
    for b, c, s in ((base, shuffled, sides), (base.iloc[::-1], shuffled, split_table(sides)),
                    (pa.Table.from_pandas(base), pa.Table.from_pandas(shuffled), split_table(sides))):
        m, report = compare_runs(b, c, s)
        assert m.model_dump_json() == expected[0].model_dump_json() and report == expected[1]


def test_pair_rows_takes_sorted_equal_ids_as_they_are_and_refuses_repeats():
    import pyarrow as pa

    from assay.rag.compare import pair_rows

    ids = pa.array(["a", "b", "c"], pa.large_string())
    assert pair_rows(ids, ids) == (None, None)
    rows_b, rows_c = pair_rows(ids, pa.array(["c", "a", "b"], pa.large_string()))
    assert rows_b.tolist() == [0, 1, 2] and rows_c.tolist() == [1, 2, 0]
    with pytest.raises(PairingError, match="candidate repeats case id\\(s\\) a "):
        pair_rows(pa.array(["a", "b"], pa.large_string()), pa.array(["a", "b", "a"], pa.large_string()))


def test_read_run_refuses_a_repeated_id(tmp_path):
    run = _run({"a": True, "b": False})
    write_parquet(tmp_path / "run.parquet", pd.concat([run, run.iloc[:1]]))
    with pytest.raises(InputError, match="repeated case id\\(s\\): a "):
        read_run(tmp_path / "run.parquet")
