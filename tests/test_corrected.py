"""The ppi stage's estimates: its committed numbers against ppi-python and scipy, the "too few" slice,
the hard fill refused as the labelled sample, and the plan and gate on the corrected figures."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import ppi_py  # the oracle: in the test extra, pinned in constraints.txt; never skipped
import pytest
from scipy import stats

from assay.artifacts.corrected import CorrectedMetrics
from assay.artifacts.registry import CORRECTED
from assay.data.plan import load_plan
from assay.queue.corrected import Case, CorrectedParams, corrected_metrics
from assay.queue.corrected_report import report_markdown
from assay.queue.labelled import BiasedSample, labelled_cases
from assay.queue.snapshot import read_snapshot
from assay.release.checks import metric_checks
from assay.stats.ppi import ppi_mean_ci

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "data/reviews/compare_demo.jsonl"
_AB = {"first": "a", "second": "b", "tie": "tie"}  # order ab: a shown first
_BA = {"first": "b", "second": "a", "tie": "tie"}


def _stage_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Re-derive the stage's overall win-rate data from the committed files alone (no run table, no assay code):
    the judge's label per case from its stored replies (both orders must agree, else a tie; a case not asked,
    with identical answers, a tie) and the reviewers' choice from the snapshot (b, the candidate, 1)."""
    labels: dict[str, dict[str, str]] = {}
    for line in (ROOT / "data/derived/judge_compare/pairwise_v2.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        assert row["status"] == "ok"
        labels.setdefault(row["pair"], {})[row["order"]] = (_AB if row["order"] == "ab" else _BA)[row["winner"]]
    win = {"b": 1.0, "a": 0.0, "tie": 0.5}
    cases = [json.loads(line)["id"] for line in (ROOT / "data/cases.jsonl").read_text(encoding="utf-8").splitlines()]
    judge = {c: win[o["ab"]] if o["ab"] == o["ba"] else 0.5 for c, o in labels.items()}
    judge.update({c: 0.5 for c in cases if c not in labels})
    lines = SNAPSHOT.read_text(encoding="utf-8").splitlines()[1:]
    human = {r["item"]: win[r["choice"]] for r in map(json.loads, lines)}
    ids = sorted(human)
    y = np.array([human[i] for i in ids])
    yhat = np.array([judge[i] for i in ids])
    unlabelled = np.array([judge[i] for i in sorted(judge) if i not in human])
    return y, yhat, unlabelled


def test_committed_win_rate_matches_ppi_python_and_scipy():
    m = CORRECTED.read(ROOT)
    y, yhat, u = _stage_inputs()
    r = m.win_rate.overall
    assert (r.n_labelled, r.n_judged) == (len(y), len(y) + len(u)) == (60, 194)
    # the point estimate and the tuned lam are ppi-python's (its lam=None tunes the same way)
    assert r.ppi.value == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, yhat, u)[0]), abs=1e-9)
    # the stage's interval is ppi_mean_ci's default, by hand: ddof-1 variances, the rectifier's over the labels plus six
    # pseudo-labels (human 0, 0, 0, 1, 1, 1; the judge's labelled mean as their prediction) divided by the real n,
    # Student t with n - 1 df, centred on the PPI estimate itself, clipped to [0, 1]
    lam = r.lam
    y6, yhat6 = np.r_[y, 0, 0, 0, 1, 1, 1], np.r_[yhat, [yhat.mean()] * 6]
    centre = lam * u.mean() + (y - lam * yhat).mean()
    se = np.sqrt(lam**2 * np.var(u, ddof=1) / len(u) + np.var(y6 - lam * yhat6, ddof=1) / len(y))
    half = stats.t.ppf(0.975, len(y) - 1) * se
    assert (r.ppi.ci_low, r.ppi.ci_high) == pytest.approx((max(0, centre - half), min(1, centre + half)), abs=1e-9)
    assert r.ppi.value == pytest.approx(centre, abs=1e-12)
    # with the same data, the z interval is exactly ppi-python's 95% one (its alpha default is 0.1)
    z = ppi_mean_ci(y, yhat, u, level=0.95, interval="z")
    low, high = ppi_py.ppi_mean_ci(y, yhat, u, alpha=0.05)
    assert (z.low, z.high) == pytest.approx((float(low[0]), float(high[0])), abs=1e-9)
    # human only: the same with lam 0, centred on the mean of the labels; judge only: Student t on every judged case
    assert r.human.value == pytest.approx(y.mean(), abs=1e-12)
    half = stats.t.ppf(0.975, len(y) - 1) * np.sqrt(np.var(y6, ddof=1) / len(y))
    assert (r.human.ci_low, r.human.ci_high) == pytest.approx((max(0, y.mean() - half), min(1, y.mean() + half)), abs=1e-9)
    every = np.concatenate([yhat, u])
    assert (r.judge.ci_low, r.judge.ci_high) == pytest.approx(
        stats.t.interval(0.95, len(every) - 1, every.mean(), stats.sem(every)), abs=1e-9)
    assert r.width_ratio == pytest.approx((r.ppi.ci_high - r.ppi.ci_low) / (r.human.ci_high - r.human.ci_low))


def _case(i: int, task: str, judge: float, human: float | None) -> Case:
    return Case(f"c{i}", {"task": task, "set": "golden", "lang": "en"}, judge, human, None)


def test_a_slice_under_min_labelled_says_too_few():
    rng = np.random.default_rng(3)
    cases = [_case(i, "lookup", float(rng.integers(0, 2)), float(rng.integers(0, 2)) if i < 20 else None) for i in range(60)]
    cases += [_case(100 + i, "multi_fact", 1.0, 1.0 if i < 3 else None) for i in range(10)]  # 3 labelled < 5
    cases.append(Case("failed", {"task": "lookup", "set": "golden", "lang": "en"}, None, 1.0, None))  # judge reply failed
    m = corrected_metrics(cases, CorrectedParams(min_labelled=5), left_out=2)
    few = m.win_rate.by_task["multi_fact"]
    assert few.too_few == 1 and few.n_labelled == 3 and few.human.value is None and few.ppi.value is None
    assert few.judge.value == 1.0 and few.judge.n == 10   # the judge-only estimate is still shown
    assert m.win_rate.by_task["lookup"].too_few == 0 and m.win_rate.by_task["lookup"].n_labelled == 20
    assert (m.judge_failed, m.labelled, m.labelled_unjudged, m.labelled_unmatched) == (1, 24, 1, 2)
    assert m.score is None  # no review scored
    page = report_markdown(m, usable=False, sources=["x.jsonl"])
    assert "| task multi_fact | 3 | 10 | 1.000 (95% interval 1.000 to 1.000) | too few | too few | n/a |" in page
    assert "The judge is not usable (calibration); it is corrected anyway" in page


def test_a_hard_fill_is_refused_as_the_labelled_sample():
    snap = read_snapshot(SNAPSHOT)
    hard = snap.model_copy(update={"queue": snap.queue.model_copy(update={"fill": "hard"})})
    with pytest.raises(BiasedSample, match=r"compare_demo.*is a hard fill.*not a random sample.*--fill random"):
        labelled_cases([("data/reviews/hard.jsonl", hard)], "baseline", "candidate")
    labelled, other = labelled_cases([("data/reviews/compare_demo.jsonl", snap)], "baseline", "candidate")
    assert (len(labelled), other) == (60, 0)
    # reviews of another comparison label nothing here: left out and counted, the stage still runs
    assert labelled_cases([("data/reviews/compare_demo.jsonl", snap)], "prod", "candidate") == ([], 60)


def test_a_review_of_an_answer_that_has_changed_since_labels_nothing():
    from assay.judge.matchup import Matchup
    from assay.queue.corrected import join
    from assay.queue.labelled import LabelledCase

    items = [Matchup(id=f"c{i}", case_question="q", facts=(), a="old", b=f"cand {i}", task="lookup", set="golden",
                     lang="en") for i in range(3)]
    labelled = [LabelledCase(id="c0", a="old", b="cand 0", win=1.0, score=None, reviews=1),
                LabelledCase(id="c1", a="old", b="an earlier candidate answer", win=0.0, score=None, reviews=1),
                LabelledCase(id="gone", a="x", b="y", win=0.5, score=None, reviews=1)]
    cases, left_out = join(items, [0.5, 0.5, 0.5], labelled)
    assert [c.human_win for c in cases] == [1.0, None, None] and left_out == 2


def _plan(tmp_path: Path, name: str, threshold: float = 0.5) -> Path:
    text = (ROOT / "data/plan.yaml").read_text(encoding="utf-8")
    text = text.replace("metrics:\n", f"metrics:\n  - name: {name}\n    family: correctness\n    gate: block\n"
                                      f"    threshold: {threshold}\n    direction: higher\n", 1)
    path = tmp_path / "plan.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_plan_refuses_a_judge_only_gate_metric(tmp_path):
    from assay.core.errors import InputError

    with pytest.raises(InputError, match=r"plan.yaml:\d+: field 'metrics.0.name'.*judge_win_rate is the judge's own estimate"
                                         r".*ppi_win_rate"):
        load_plan(_plan(tmp_path, "judge_win_rate"))


@pytest.mark.parametrize(("threshold", "status"), [(0.45, "pass"), (0.55, "fail")])
def test_the_gate_reads_the_ppi_lower_bound(tmp_path, threshold, status):
    plan = load_plan(_plan(tmp_path, "ppi_win_rate", threshold))
    m = CORRECTED.read(ROOT)
    low = m.win_rate.overall.ppi.ci_low  # 0.485 on the demo: the point estimate 0.575 would pass both
    check = next(c for c in metric_checks(plan, None, None, "candidate", m) if c.name.startswith("ppi_win_rate"))
    assert (check.status, check.value) == (status, low)
    assert "PPI lower bound" in check.name
    missing = next(c for c in metric_checks(plan, None, None, "candidate", None) if c.name.startswith("ppi_win_rate"))
    assert missing.status == "missing"
    few = CorrectedMetrics.model_validate({**m.model_dump(), "min_labelled": 100, "win_rate": {
        **m.win_rate.model_dump(), "overall": {**m.win_rate.overall.model_dump(), "too_few": 1}}})
    assert next(c for c in metric_checks(plan, None, None, "candidate", few) if c.name.startswith("ppi")).detail == \
        "too few labelled cases (60 < 100)"


@pytest.mark.parametrize(("parts", "stages"), [
    (("core", "judge"), {"judge_compare"}), (("core", "queue"), set()), (("core", "judge", "queue"), {"judge_compare", "ppi"})])
def test_the_ppi_stage_needs_both_the_judge_and_the_queue_part(parts, stages):
    import yaml

    from assay.pipeline.generate import dvc_yaml

    found = set(yaml.safe_load(dvc_yaml(parts, "source"))["stages"]) & {"judge_compare", "ppi"}
    assert found == stages


def test_the_ppi_stage_declares_the_calibration_it_reads(tmp_path):
    # issue 31: ppi read metrics/calibration.json undeclared, so a judge-rule change left it stale and verify
    # failed an honest change; now dvc re-runs it, and the gate sees a recorded calibration hash go stale
    import hashlib
    import shutil

    import yaml

    from assay.artifacts.registry import CALIBRATION
    from assay.pipeline.generate import dvc_yaml
    from assay.release.checks import freshness_checks
    from assay.release.input_hashes import current_inputs

    ppi = yaml.safe_load(dvc_yaml(("core", "judge", "queue"), "source"))["stages"]["ppi"]
    assert CALIBRATION.relpath() in ppi["deps"]
    shutil.copy(ROOT / "params.yaml", tmp_path / "params.yaml")
    CALIBRATION.path(tmp_path).parent.mkdir()
    CALIBRATION.path(tmp_path).write_text('{"usable": 1}\n')
    recorded = hashlib.sha256(b'{"usable": 1}\n').hexdigest()
    assert freshness_checks({"ppi": {CALIBRATION.relpath(): recorded}}, current_inputs(tmp_path))[0].status == "pass"
    CALIBRATION.path(tmp_path).write_text('{"usable": 0}\n')  # the judge's rule changed its verdict
    check = freshness_checks({"ppi": {CALIBRATION.relpath(): recorded}}, current_inputs(tmp_path))[0]
    assert (check.status, check.detail) == ("stale", "changed since the last run: metrics/calibration.json")


def test_the_report_says_the_labels_are_synthetic_and_what_the_judge_alone_claimed():
    # a judge that always says the candidate wins (1.0) while the reviewers give it half the cases
    cases = [_case(i, "lookup", 1.0, float(i % 2) if i < 20 else None) for i in range(60)]
    real = corrected_metrics(cases, CorrectedParams(min_labelled=5))
    assert real.synthetic_labels == 0 and "synthetic" not in report_markdown(real, usable=True, sources=["x.jsonl"])
    m = corrected_metrics(cases, CorrectedParams(min_labelled=5), synthetic=True)
    page = report_markdown(m, usable=True, sources=["x.jsonl"])
    assert m.synthetic_labels == 1 and "**The labels are synthetic:**" in page
    # judge only: all 60 verdicts are 1 -> 1.000 (1 to 1); PPI with lam 0 (the judge does not vary) is the human
    # mean 0.5 of the 20 labels, far outside what the judge alone claimed
    assert ("Uncorrected, the judge alone would have claimed a win rate of 1.000 (95% interval 1.000 to 1.000) on 60 cases; "
            "corrected with 20 labels (PPI) it is 0.500") in page
    assert "outside the judge-only interval" in page
    assert "**judge only** is the mean of the judge's verdicts over all N judged cases" in page


def test_the_committed_report_and_summary_say_the_demo_labels_are_synthetic():
    m = CORRECTED.read(ROOT)
    assert read_snapshot(SNAPSHOT).queue.synthetic and m.synthetic_labels == 1
    for page in ("reports/ppi.md", "reports/summary.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        assert "The labels are synthetic" in text, page
        assert "Uncorrected, the judge alone would have claimed" in text, page


def test_the_stages_estimator_covers_with_a_biased_judge_at_the_demos_size():
    """The ppi stage's own row (n = 60 labelled of N = 176 judged, like the demo) with a judge biased towards
    the candidate: the PPI interval covers the true win rate and the rubric score (the judge's win value as its
    prediction) at least 0.93 of 1,000 seeded draws; the judge-only interval almost never does."""
    from assay.queue.corrected import row

    rng = np.random.default_rng(20261202)
    vals = np.array([0.0, 0.5, 1.0])
    human_p = np.array([0.40, 0.15, 0.45])  # reviewers: baseline, tie, candidate -> true win rate 0.525
    confusion = np.array([[0.55, 0.15, 0.30], [0.15, 0.35, 0.50], [0.05, 0.10, 0.85]])  # judge | reviewer
    true_win = float(human_p @ vals)
    # score = clip(0.3 + 0.4 * win + N(0, 0.2)) to [0, 1] and rounded to quarters (a 1-5 score); its mean by
    # simulation of 2,000,000 draws (seeded) is the truth
    def score(h: np.ndarray) -> np.ndarray:
        return np.round(np.clip(0.3 + 0.4 * h + rng.normal(0, 0.2, h.size), 0, 1) * 4) / 4

    true_score = float(score(vals[rng.choice(3, 2_000_000, p=human_p)]).mean())
    reps, big_n, n = 1000, 176, 60
    hit = {"win": 0, "score": 0, "judge": 0}
    cum = confusion.cumsum(axis=1)
    for _ in range(reps):
        h_idx = rng.choice(3, big_n, p=human_p)
        j_idx = (rng.random(big_n)[:, None] > cum[h_idx]).sum(axis=1)
        h, j, s = vals[h_idx], vals[j_idx], score(vals[h_idx])
        labelled = set(rng.choice(big_n, n, replace=False).tolist())
        cases = [Case(str(i), {"task": "t", "set": "s", "lang": "en"}, float(j[i]),
                      float(h[i]) if i in labelled else None, float(s[i]) if i in labelled else None) for i in range(big_n)]
        w = row(cases, lambda c: c.human_win, True, 10, 0.95)
        sc = row(cases, lambda c: c.human_score, False, 10, 0.95)
        hit["win"] += w.ppi.ci_low <= true_win <= w.ppi.ci_high
        hit["score"] += sc.ppi.ci_low <= true_score <= sc.ppi.ci_high
        hit["judge"] += w.judge.ci_low <= true_win <= w.judge.ci_high
    assert hit["win"] / reps >= 0.93 and hit["score"] / reps >= 0.93, hit
    assert hit["judge"] / reps < 0.2, hit


def test_sixty_labels_that_all_say_the_candidate_won_give_an_interval_not_a_point():
    cases = [_case(i, "lookup", float(i % 3 == 0), 1.0 if i < 60 else None) for i in range(176)]
    r = corrected_metrics(cases, CorrectedParams()).win_rate.overall
    # by hand (scipy): 63 ones and 3 zeros (the labels and the six pseudo-labels), their ddof-1 sd over sqrt(60), Student
    # t with 59 df -> lower bound 0.946, centred on the estimate 1 and clipped there; the judge's values do not
    # covary with constant labels, so lam is 0 and PPI's interval is the human-only one
    ones = np.r_[np.ones(63), np.zeros(3)]
    low = 1 - stats.t.ppf(0.975, 59) * np.std(ones, ddof=1) / np.sqrt(60)
    assert r.human.value == r.ppi.value == 1.0 and r.lam == 0.0
    assert (r.human.ci_low, r.ppi.ci_low) == pytest.approx((low, low), abs=1e-12) and round(low, 3) == 0.946
    assert r.ppi.ci_high == 1.0


def _coverage(human_p: list[float], confusion: np.ndarray, reps: int, seed: int) -> tuple[float, float]:
    """Two-sided coverage of the stage's PPI win-rate interval and how often its lower bound sits above the truth,
    over ``reps`` seeded draws of 176 judged cases of which 60 (random) are labelled, like the demo."""
    from assay.queue.corrected import row

    rng = np.random.default_rng(seed)
    vals = np.array([0.0, 0.5, 1.0])
    truth = float(np.array(human_p) @ vals)
    cum = confusion.cumsum(axis=1)
    covered = above = 0
    for _ in range(reps):
        h = rng.choice(3, 176, p=human_p)
        j = (rng.random(176)[:, None] > cum[h]).sum(axis=1)
        labelled = set(rng.choice(176, 60, replace=False).tolist())
        cases = [Case(str(i), {"task": "t", "set": "s", "lang": "en"}, float(vals[j[i]]),
                      float(vals[h[i]]) if i in labelled else None, None) for i in range(176)]
        r = row(cases, lambda c: c.human_win, True, 10, 0.95)
        covered += r.ppi.ci_low <= truth <= r.ppi.ci_high
        above += r.ppi.ci_low > truth
    return covered / reps, above / reps


@pytest.mark.parametrize("human_p", [[0.0, 0.02, 0.98], [0.02, 0.03, 0.95]])
def test_the_stages_interval_covers_a_candidate_that_nearly_always_wins(human_p):
    """Win rates 0.99 and 0.965 with a good judge: the plain t interval covered 0.65 and 0.84 here and its lower bound
    sat above the truth 35% and 16% of the time (these 600 seeded draws); the gate reads that bound. Tolerance: at 600 draws
    the standard error of a 0.95 coverage is 0.009, so 0.93 is two of them below 0.95."""
    good = np.array([[0.9, 0.07, 0.03], [0.1, 0.8, 0.1], [0.03, 0.07, 0.9]])
    covered, above = _coverage(human_p, good, 600, 7)
    assert covered >= 0.93 and above <= 0.035, (covered, above)


def test_a_snapshot_of_other_versions_is_named_with_its_field_and_fix_in_the_report():
    from assay.queue.labelled import other_comparisons

    snap = read_snapshot(SNAPSHOT)
    path = "data/reviews/compare_demo.jsonl"
    assert other_comparisons([(path, snap)], "baseline", "candidate") == []
    lines = other_comparisons([(path, snap)], "prod", "candidate")
    assert lines == [f"{path}: field 'models': 60 review(s) left out, not of compare.baseline 'prod' (a) with "
                     "compare.candidate 'candidate' (b): 60 compare 'baseline' (a) with 'candidate' (b). Fix: review "
                     "these versions in a `--from compare --fill random` queue and list its snapshot in ppi.reviews, "
                     "or drop this one"]
    m = corrected_metrics([_case(i, "lookup", 0.5, None) for i in range(20)], CorrectedParams(), left_out=60)
    page = report_markdown(m, usable=None, sources=[path], left_out=lines)
    assert f"- {path}: field 'models': 60 review(s) left out" in page and "ppi.reviews, or drop this one" in page


def test_reviews_of_changed_answers_warn_that_the_sample_may_no_longer_be_uniform():
    cases = [_case(i, "lookup", 0.5, float(i % 2) if i < 20 else None) for i in range(40)]
    assert "**Warning:**" not in report_markdown(corrected_metrics(cases, CorrectedParams(), left_out=5), None, ["x"])
    m = corrected_metrics(cases, CorrectedParams(), left_out=5, changed=3)
    page = report_markdown(m, None, ["x"])
    assert m.labelled_changed == 3 and "**Warning:** 3 reviewed case(s) were left out because a version's answer" in page
    assert "may not be a uniform sample" in page
