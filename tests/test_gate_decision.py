"""The release rule's error rates (assay.release.rule, the gate's bound checks and no-regression test):
a seeded simulation of the gate's family-wise false-pass rate over the demo's blocking metrics at their
holdout sizes, the pass-chance table against scipy.stats.binom, the look index and the plan's options.

Run with ``-s`` to see the simulated rates: ``.venv/bin/python -m pytest tests/test_gate_decision.py -q -n 0 -s``.
"""

from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom
from statsmodels.stats.proportion import proportion_confint

from assay.artifacts.corrected import GATED
from assay.artifacts.estimate import Estimate
from assay.artifacts.registry import RAG
from assay.core.errors import InputError
from assay.core.params import load_section
from assay.data.plan import Metric, load_plan
from assay.release.checks import GateParams, regression_check
from assay.release.ledger import current_look
from assay.release.rule import Look, decide, decision_words, pass_chances
from assay.stats.decision import look_alpha

ROOT = Path(__file__).resolve().parents[1]
REPS = 200_000
SEED = 20261203


def margin(rate: float) -> float:
    """Four Monte Carlo standard errors of a rate estimated from REPS draws (a one-sided miss has chance 3e-5)."""
    return 4 * np.sqrt(rate * (1 - rate) / REPS)


def demo_blocking() -> tuple[float, list[tuple[Metric, int]]]:
    """gate.alpha and the demo plan's blocking holdout metrics with the candidate's holdout n (from the committed files)."""
    alpha = load_section("gate", GateParams, ROOT / "params.yaml").alpha
    plan = load_plan(ROOT / "data/plan.yaml")
    candidate = RAG.read(ROOT, version="candidate")
    return alpha, [(m, getattr(candidate.holdout, m.name).n) for m in plan.metrics if m.gate == "block" and m.name not in GATED]


def passing(m: Metric, n: int, level: float) -> np.ndarray:
    """Which counts k = 0..n the gate's own decision passes (the function metric_checks calls)."""
    return np.array([decide(m, Estimate(value=k / n, n=n), level).passed for k in range(n + 1)])


def simulate(metrics: list[tuple[Metric, int]], truths: list[float], level: float, rng: np.random.Generator) -> float:
    """The share of REPS simulated holdouts on which every metric passes, each metric's count ~ Binomial(n, truth)."""
    ok = np.ones(REPS, dtype=bool)
    for (m, n), p in zip(metrics, truths, strict=True):
        ok &= passing(m, n, level)[rng.binomial(n, p, REPS)]
    return float(ok.mean())


def test_family_wise_false_pass_rate_of_the_demo_gate_is_at_most_alpha():
    alpha, metrics = demo_blocking()
    bound = [(m, n) for m, n in metrics if m.decide == "bound"]
    assert len(bound) >= 3  # the demo decides answer_correct, abstain_correct, citation_support, format_ok on bounds
    rng = np.random.default_rng(SEED)
    at = [m.threshold for m, _ in metrics]
    rates = {"every metric at its threshold": simulate(metrics, at, alpha, rng)}
    for i, (m, _) in enumerate(metrics):
        shifted = [t - 0.05 if j == i else t for j, t in enumerate(at)]
        rates[f"{m.name} 0.05 below, the rest at their thresholds"] = simulate(metrics, shifted, alpha, rng)
    # the intersection-union worst case: one bound-decided metric exactly at its threshold, every other one certain
    # to pass where it can (true rate 1): the family then passes as often as that one check, at most alpha
    for i, (m, n) in enumerate(bound):
        rest = [(o, k) for j, (o, k) in enumerate(bound) if j != i and passing(o, k, alpha)[-1]]
        rates[f"{m.name} at its threshold, the rest certain"] = simulate([(m, n), *rest], [m.threshold] + [1.0] * len(rest),
                                                                           alpha, rng)
    print(f"\nfamily-wise false-pass rate of the demo gate at level {alpha}, {REPS} seeded draws each:")
    for name, rate in rates.items():
        print(f"  {rate:.5f}  {name}")
        assert rate <= alpha + margin(alpha), name


def test_the_estimate_rule_passes_far_more_often_than_alpha():
    # the demo's tool_permission (decide: estimate, threshold 1, n 6): 0.05 below the threshold it passes 0.95 ** 6
    alpha, metrics = demo_blocking()
    m, n = next((m, n) for m, n in metrics if m.decide == "estimate")
    rate = simulate([(m, n)], [m.threshold - 0.05], alpha, np.random.default_rng(SEED))
    exact = pass_chances(decide(m, Estimate(value=1.0, n=n), alpha), alpha).short
    assert exact == pytest.approx(binom.pmf(n, n, m.threshold - 0.05), abs=1e-12)
    assert abs(rate - exact) <= margin(exact) and rate > 10 * alpha
    print(f"\n{m.name} (estimate rule, n {n}) 0.05 below its threshold passes {rate:.4f} (exact {exact:.4f})")


def test_spending_keeps_ten_looks_at_the_threshold_within_alpha():
    # ten distinct candidates, each exactly at answer_correct's threshold, the k-th decided at alpha / 2 ** k:
    # the chance that any of them passes is at most alpha (a union bound; simulated here as independent holdouts)
    alpha, metrics = demo_blocking()
    m, n = next((m, n) for m, n in metrics if m.name == "answer_correct")
    rng = np.random.default_rng(SEED)
    any_pass = np.zeros(REPS, dtype=bool)
    for k in range(1, 11):
        any_pass |= passing(m, n, look_alpha(alpha, k))[rng.binomial(n, m.threshold, REPS)]
    rate = float(any_pass.mean())
    print(f"\nbest of 10 looks at answer_correct's threshold (n {n}) passes {rate:.5f}")
    assert rate <= alpha + margin(alpha)


def test_pass_chances_by_hand_with_scipy_binom():
    m = Metric(name="answer_correct", family="correctness", gate="block", threshold=0.85)
    level = 0.0125
    row = pass_chances(decide(m, Estimate(value=27 / 58, n=58), level), level)
    # hand: the passing counts are those whose statsmodels Clopper-Pearson lower end (alpha 2 * level) is >= 0.85
    ok = [k for k in range(59) if proportion_confint(k, 58, alpha=2 * level, method="beta")[0] >= 0.85]
    assert ok == [56, 57, 58]  # 56 of 58: lower bound 0.8672; 55 of 58: 0.8416
    assert row.short == pytest.approx(binom.sf(55, 58, 0.80), abs=1e-12)
    assert row.at == pytest.approx(binom.sf(55, 58, 0.85), abs=1e-12) and row.at <= level
    assert row.clear == pytest.approx(binom.sf(55, 58, 0.90), abs=1e-12)
    # a threshold of 1 has nothing 0.05 clear of it; the estimate rule's chance at 1 is 1 (its false-pass rate
    # as the true rate rises to the threshold)
    tool = Metric(name="tool_permission", family="tool_use", gate="block", threshold=1.0, decide="estimate", min_n=5)
    row = pass_chances(decide(tool, Estimate(value=4 / 6, n=6), level), level)
    assert (row.clear, row.at, row.level) == (None, 1.0, None) and row.short == pytest.approx(0.95 ** 6, abs=1e-14)


def test_a_threshold_no_holdout_size_can_show_says_so():
    m = Metric(name="format_ok", family="format", gate="block", threshold=0.99)
    d = decide(m, Estimate(value=1.0, n=72), 0.0125)
    # 72 of 72: lower bound 0.0125 ** (1 / 72) = 0.9410; 0.99 needs log(0.0125) / log(0.99) = 436.0 -> 437 cases
    assert not d.passed and d.least_n == 437
    assert decision_words(d).endswith("even every case passing could not pass: it needs at least 437 cases")


def test_metrics_that_are_not_case_shares_read_their_own_interval():
    m = Metric(name="recall_at_k", family="retrieval", gate="block", threshold=0.8)
    d = decide(m, Estimate(value=0.9, n=40, ci_low=0.81, ci_high=0.95), 0.0125)
    assert (d.reading, d.value, d.level, d.k, d.passed) == ("interval", 0.81, 0.025, None, True)
    assert pass_chances(d, 0.0125) is None


def regressions(worse: int, paired: int):
    from assay.artifacts.rag import CompareMetrics

    e = Estimate(value=0.5, n=paired)
    return CompareMetrics(n=paired, baseline_pass_rate=e, candidate_pass_rate=e, diff=0.0, diff_ci_low=-1.0, diff_ci_high=1.0,
                          better=0, worse=worse, unchanged=paired - worse, still_failing=0, p_sign=1.0, mcnemar_statistic=0.0,
                          mcnemar_p=1.0, baseline_by_task={}, candidate_by_task={}, regressions={"answer_correct": worse},
                          regressions_n_paired={"answer_correct": paired})


def test_no_regression_with_a_margin_is_an_upper_bound_test():
    m = Metric(name="answer_correct", family="correctness", gate="block", threshold=0.85, no_regression=True,
               max_regression=0.05)
    assert m.regression_test == "bound"
    # 1 of 200 regressed: statsmodels' upper end at alpha 2 * 0.0125 is 0.0277 <= 0.05: passes; 13 of 58 does not
    check = regression_check(m, regressions(1, 200), 0.0125)
    assert check.status == "pass"
    assert check.value == pytest.approx(proportion_confint(1, 200, alpha=0.025, method="beta")[1], abs=1e-12)
    assert regression_check(m, regressions(13, 58), 0.0125).status == "fail"
    assert regression_check(m, regressions(0, 0), 0.0125).status == "fail"
    assert regression_check(m, None, 0.0125).status == "missing"
    # the per-case rule stays, by name, at max_regression 0
    per_case = Metric(name="answer_correct", family="correctness", gate="block", threshold=0.85, no_regression=True)
    assert per_case.regression_test == "per_case"
    assert regression_check(per_case, regressions(1, 200), 0.0125).detail == (
        "1 holdout case(s) went from pass to fail (per-case rule, plan max_regression 0)")
    # at n 58 not even 0 regressed cases can show 0.05 at 0.0125: 1 - 0.0125 ** (1 / 58) = 0.0727;
    # log(0.0125) / log(0.95) = 85.4, so 86 paired cases are the least
    assert regression_check(m, regressions(0, 58), 0.0125).detail.endswith(
        "even no regressed case could not pass: it needs at least 86 paired cases")
    # at n 200, a candidate that regresses exactly 5% of cases passes at most 0.0125 of the time (exact binomial)
    most = max(w for w in range(201) if regression_check(m, regressions(w, 200), 0.0125).status == "pass")
    assert most == 3 and binom.cdf(most, 200, 0.05) <= 0.0125


@pytest.mark.parametrize("fields, words", [
    ({"no_regression": True, "regression_rule": "bound"}, "can never pass"),
    ({"no_regression": True, "regression_rule": "per_case", "max_regression": 0.02}, "allows no regressed case"),
    ({"max_regression": 0.02}, "apply only to a no_regression metric"),
])
def test_plan_refuses_regression_options_that_cannot_mean_anything(tmp_path, fields, words):
    import yaml

    plan = yaml.safe_load((ROOT / "data/plan.yaml").read_text(encoding="utf-8").replace("#@ queue\n", "").replace("#@ end\n", ""))
    plan["metrics"][0] = {k: v for k, v in plan["metrics"][0].items() if k not in ("no_regression", "max_regression")} | fields
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(plan, sort_keys=False), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_plan(path)
    assert words in str(err.value) and "fix:" in str(err.value) and "metrics.0" in str(err.value)


def test_the_look_index_counts_distinct_candidates_on_this_dataset():
    rows = [{"candidate": c, "dataset": d} for c, d in (("a", "d1"), ("b", "d1"), ("a", "d2"))]
    assert current_look(rows, "a", "d1") == 2  # already judged: counted once, with the others
    assert current_look(rows, "c", "d1") == 3  # a new candidate is the next look
    assert current_look(rows, "b", "d3") == 1  # a new holdout starts again
    look = Look.at(0.05, 3)
    assert (look.level, look.spent) == (0.05 / 8, pytest.approx(0.05 * 7 / 8, abs=1e-15))


def test_the_demo_summary_states_the_rule_its_alpha_and_the_looks():
    from assay.release.gather import gather
    from assay.release.summary import rule_section

    checks, ev = gather(ROOT)
    page = "\n".join(rule_section(ev, checks, 2))
    assert ev.look is not None and f"runs at {ev.look.level:g}" in page
    assert "intersection-union test" in page and f"gate.alpha {ev.params.alpha:g} per holdout" in page
    assert "tool_permission is decided on its point estimate" in page
    assert "| answer_correct | 58 | one-sided bound |" in page
