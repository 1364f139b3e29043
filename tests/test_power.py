"""Power and sample sizes: the paired change against statsmodels' normal power and a seeded simulation of
the exact McNemar test the pipeline runs, kappa's pairs against statsmodels' kappa se and a simulation,
PPI's labels against the simulated width of ppi_mean_ci's interval."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.power import normal_power_het, normal_sample_size_one_tail
from statsmodels.stats.proportion import samplesize_confint_proportion

from assay.stats.agreement import contingency
from assay.stats.paired import mcnemar_exact
from assay.stats.power import (JudgeMoments, KappaRule, PowerError, detectable_change, holdout_size, kappa_pairs,
                               kappa_variance, paired_power, ppi_labels, ppi_variance, rule_pass_rate, rule_table,
                               threshold_check, threshold_detectable, threshold_power, threshold_size)

from ppi_simulation import draw, intervals


# --- (a) paired change ---------------------------------------------------------------------------

@pytest.mark.parametrize("change,discordance,level", [(0.1, 0.2, 0.95), (-0.05, 0.3, 0.95), (0.2, 0.25, 0.9), (0.03, 0.05, 0.99)])
def test_normal_power_is_statsmodels_normal_power_het(change, discordance, level):
    # Connor (1987): the McNemar z statistic has sd sqrt(psi) under no change and sqrt(psi - d**2) under d
    for n in (20, 66, 155, 1_000):
        expected = normal_power_het(abs(change), n, 1 - level, std_null=math.sqrt(discordance),
                                    std_alternative=math.sqrt(discordance - change ** 2))
        assert paired_power(n, change, discordance, level, "normal") == pytest.approx(float(expected), abs=1e-12)
    size = normal_sample_size_one_tail(abs(change), 0.8, (1 - level) / 2, std_null=math.sqrt(discordance),
                                       std_alternative=math.sqrt(discordance - change ** 2))
    assert holdout_size(change, discordance, 0.8, level, "normal").n == math.ceil(size)


def simulated_mcnemar_power(n: int, change: float, discordance: float, reps: int, seed: int) -> tuple[float, float]:
    """Share of simulated holdouts where the pipeline's exact McNemar p <= 0.05, and where the
    uncorrected McNemar chi-square ((b - c)**2 / (b + c) > 1.96**2) rejects."""
    rng = np.random.default_rng(seed)
    better, worse = (discordance + change) / 2, (discordance - change) / 2
    concordant = 1 - discordance
    tables = rng.multinomial(n, [0.75 * concordant, worse, better, 0.25 * concordant], size=reps)
    exact = sum(mcnemar_exact(*map(int, t))[1] <= 0.05 for t in tables)
    b, c = tables[:, 2].astype(float), tables[:, 1].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        chi = np.where(b + c > 0, (b - c) ** 2 / (b + c), 0.0)
    return exact / reps, float((chi > 1.959963984540054 ** 2).mean())


CASES = [(0.1, 0.2, 168), (0.1, 0.2, 66), (-0.08, 0.3, 300), (0.15, 0.25, 60), (0.05, 0.1, 300), (0.15, 0.15, 40), (0.1, 0.12, 60)]


@pytest.mark.parametrize("change,discordance,n", CASES)
def test_exact_power_matches_a_simulation_of_the_pipelines_test(change, discordance, n):
    # 10,000 holdouts each (binomial se of a power near .8: 0.004); within 0.02 (measured: within 0.007)
    exact_sim, chi_sim = simulated_mcnemar_power(n, change, discordance, 10_000, seed=n)
    assert paired_power(n, change, discordance) == pytest.approx(exact_sim, abs=0.02)
    # the normal approximation promises more than the exact test delivers: by 0.03 to 0.14 here
    assert paired_power(n, change, discordance, method="normal") > exact_sim + 0.02


@pytest.mark.parametrize("change,discordance,n", [(0.1, 0.2, 66), (-0.08, 0.3, 300)])
def test_normal_power_matches_a_simulation_of_the_chi_square_test(change, discordance, n):
    # where the change is small beside the discordance; near it (0.15 of 0.15) Connor's formula is off by 0.16
    _, chi_sim = simulated_mcnemar_power(n, change, discordance, 10_000, seed=n)
    assert paired_power(n, change, discordance, method="normal") == pytest.approx(chi_sim, abs=0.02)


def test_holdout_size_reaches_its_power_and_one_less_does_not():
    for method in ("exact", "normal"):
        h = holdout_size(0.1, 0.2, method=method)
        assert h.power >= 0.8 and paired_power(h.n - 1, 0.1, 0.2, method=method) < 0.8
    assert holdout_size(0.1, 0.2).n == 168 and holdout_size(0.1, 0.2, method="normal").n == 155
    # the exact test on a small holdout needs more cases than the normal approximation promises
    assert holdout_size(0.1, 0.2).n > holdout_size(0.1, 0.2, method="normal").n


def test_detectable_change_inverts_holdout_size():
    for method in ("exact", "normal"):
        d = detectable_change(66, 0.2, method=method)
        assert paired_power(66, d.change, 0.2, method=method) >= 0.8 > paired_power(66, d.change - 1e-4, 0.2, method=method)
    assert detectable_change(155, 0.2, method="normal").change == pytest.approx(0.1, abs=5e-4)
    with pytest.raises(PowerError, match="cannot detect any change with power 0.8"):
        detectable_change(5, 0.2)


@pytest.mark.parametrize("call,message", [
    (lambda: holdout_size(0.3, 0.2), "change 0.3 must be non-zero and at most the discordance 0.2"),
    (lambda: holdout_size(0.0, 0.2), "change 0.0 must be non-zero"),
    (lambda: holdout_size(0.1, 0.0), "discordance 0.0 must be in (0.0, 1.0]"),
    (lambda: holdout_size(0.1, 0.2, power=1.0), "power 1.0 must be in (0.0, 1.0)"),
    (lambda: holdout_size(0.1, 0.2, level=float("nan")), "level nan must be in (0.0, 1.0)"),
    (lambda: holdout_size(0.1, 0.2, method="wald"), "method 'wald' is not one of exact, normal"),
    (lambda: paired_power(0, 0.1, 0.2), "n 0 must be a whole number of cases"),
    (lambda: holdout_size(0.0001, 0.5, method="normal"), "needs more than 1,000,000 cases"),
])
def test_bad_paired_arguments(call, message):
    with pytest.raises(PowerError) as info:
        call()
    assert message in str(info.value)


def test_detectable_change_reaches_its_stated_power_exactly():
    # the default (exact) change has exact power >= the stated 0.8; the normal approximation's change, put to the exact
    # test the pipeline runs, falls short on the demo's holdout sizes (the audit's 0.76-0.78)
    for n, discordance in [(58, 0.2), (66, 14 / 66), (150, 0.3), (400, 0.1)]:
        d = detectable_change(n, discordance)
        assert d.method == "exact" and paired_power(n, d.change, discordance, method="exact") >= 0.8
        normal = detectable_change(n, discordance, method="normal").change
        assert paired_power(n, normal, discordance, method="exact") < 0.8


@pytest.mark.parametrize("n,threshold,alpha", [(58, 0.85, 0.05), (14, 0.6, 0.05), (200, 0.5, 0.01), (48, 0.9, 0.1)])
def test_threshold_power_is_the_exact_binomial_test(n, threshold, alpha):
    # the rejection region from scipy's binomtest p-values, the power summed from scipy's pmf, and a seeded simulation
    from scipy.stats import binom, binomtest

    passes = [k for k in range(n + 1) if binomtest(k, n, threshold, alternative="greater").pvalue <= alpha]
    for value in (threshold, threshold + 0.05, min(1.0, threshold + 0.15)):
        exact = float(sum(binom.pmf(k, n, value) for k in passes))
        assert threshold_power(n, value, threshold, alpha) == pytest.approx(exact, abs=1e-12)
        draws = np.random.default_rng(n).binomial(n, value, 40_000)
        assert np.isin(draws, passes).mean() == pytest.approx(exact, abs=0.01)
    # at the threshold the test passes at most alpha of the time (its size)
    assert threshold_power(n, threshold, threshold, alpha) <= alpha
    # lower is better: the same test on 1 - share
    assert threshold_power(n, 1 - threshold - 0.05, 1 - threshold, alpha, "lower") == pytest.approx(
        threshold_power(n, threshold + 0.05, threshold, alpha), abs=1e-12)


def test_threshold_normal_power_and_size_are_statsmodels():
    for n, value, t in [(58, 0.9, 0.85), (300, 0.55, 0.5), (1_000, 0.93, 0.92)]:
        expected = normal_power_het(value - t, n, 0.05, std_null=math.sqrt(t * (1 - t)),
                                    std_alternative=math.sqrt(value * (1 - value)), alternative="larger")
        assert threshold_power(n, value, t, method="normal") == pytest.approx(float(expected), abs=1e-9)
    size = normal_sample_size_one_tail(0.05, 0.8, 0.05, std_null=math.sqrt(0.85 * 0.15), std_alternative=math.sqrt(0.9 * 0.1))
    assert threshold_size(0.05, 0.85, method="normal").n == math.ceil(size)


def test_threshold_size_and_detectable_invert_each_other():
    s = threshold_size(0.05, 0.85)
    assert s.power >= 0.8 and threshold_power(s.n - 1, 0.9, 0.85) < 0.8
    d = threshold_detectable(s.n, 0.85)
    assert d <= 0.05 + 1e-6 and threshold_power(s.n, 0.85 + d, 0.85) >= 0.8 > threshold_power(s.n, 0.85 + d - 1e-4, 0.85)
    # the one-sample size is far below the paired framing's for the same distance (discordance 2 p (1 - p) at 0.9)
    assert holdout_size(0.05, 2 * 0.9 * 0.1).n > 1.3 * s.n
    # 14 cases at 0.9: 14 of 14 has P = 0.9**14 = 0.23 > 0.05, so no count passes and nothing is detectable
    assert threshold_detectable(14, 0.9) is None and threshold_power(14, 1.0, 0.9) == 0.0
    with pytest.raises(PowerError, match="change 0.2 must be positive and keep the share within"):
        threshold_size(0.2, 0.85)


def test_threshold_check_warns_when_the_threshold_is_closer_than_the_detectable_distance():
    # the demo's holdout size: 66 cases; a metric at 0.80 against a threshold of 0.75
    c = threshold_check("answer_correct", 66, 0.80, 0.75)
    assert c.detectable == pytest.approx(threshold_detectable(66, 0.75), abs=1e-12) and c.margin == pytest.approx(0.05)
    assert threshold_power(66, 0.75 + c.detectable, 0.75) >= 0.8
    assert c.warning == (f"answer_correct: threshold 0.75 is 0.050 from the current value 0.800, closer than the "
                         f"{c.detectable:.3f} past it that 66 holdout cases detect with power 0.8")
    assert threshold_check("answer_correct", 66, 0.80, 0.50).warning is None
    unmeasured = threshold_check("m", 200, None, 0.9)
    assert unmeasured.margin is None and unmeasured.warning is None and unmeasured.detectable is not None
    tiny = threshold_check("m", 5, 0.5, 0.6)  # 5 of 5 at 0.6: P = 0.6**5 = 0.078 > 0.05, so no count passes
    assert tiny.detectable is None and tiny.warning == ("m: 5 holdout cases cannot show the threshold 0.6 is met with "
                                                        "power 0.8 (one-sided exact binomial test at 0.05): add cases")
    end = threshold_check("m", 66, 1.0, 1.0)
    assert end.detectable is None and "the end of the scale" in end.warning
    lower = threshold_check("latency_share", 100, 0.05, 0.1, "lower")
    assert lower.detectable == pytest.approx(threshold_detectable(100, 0.9), abs=1e-12)
    with pytest.raises(PowerError, match="threshold 1.5 must be in"):
        threshold_check("m", 66, 0.5, 1.5)


# --- (b) kappa's lower bound ---------------------------------------------------------------------

@pytest.mark.parametrize("table", [[[40, 5], [8, 12]], [[10, 3], [2, 30]], [[5, 5], [5, 5]], [[50, 1], [3, 2]]])
def test_kappa_variance_is_statsmodels_and_the_pipelines(table):
    t = np.array(table)
    n = t.sum()
    a = np.repeat([0, 0, 1, 1], t.ravel())
    b = np.repeat([0, 1, 0, 1], t.ravel())
    assert math.sqrt(kappa_variance(t) / n) == pytest.approx(cohens_kappa(t).std_kappa, abs=1e-12)
    assert math.sqrt(kappa_variance(t) / n) == pytest.approx(contingency(a, b).kappa_se(), abs=1e-12)


def test_rule_table_has_the_expected_kappa_and_prevalences():
    for expected, prevalences, invalid in [(0.8, (1 / 3, 1 / 3, 1 / 3), 0.0), (0.7, (0.8, 0.1, 0.1), 0.02),
                                           (0.0, (0.45, 0.45, 0.1), 0.0)]:
        t = rule_table(expected, prevalences, invalid)
        counts = np.rint(t * 10**5).astype(int)
        labels = np.array(["a", "b", "tie", "invalid"])
        human = np.repeat(np.repeat(labels, 4), counts.ravel())
        judge = np.repeat(np.tile(labels, 4), counts.ravel())
        assert contingency(human, judge, labels=list(labels)).kappa() == pytest.approx(expected, abs=1e-4)
        assert t[:3].sum(axis=1) == pytest.approx(prevalences, abs=1e-12) and t[:, 3].sum() == pytest.approx(invalid)
    with pytest.raises(PowerError, match="expected kappa 0.99 cannot occur with invalid_rate 0.05: the highest is 0.9"):
        rule_table(0.99, (0.5, 0.3, 0.2), 0.05)
    with pytest.raises(PowerError, match=r"prevalences \(0.5, 0.6, 0.1\) must be three positive shares"):
        rule_table(0.8, (0.5, 0.6, 0.1))


def _calibrations(n: int, prevalences: tuple[float, ...], expected: float, invalid: float, reps: int,
                  seed: int) -> list[SimpleNamespace]:
    """Calibration numbers of ``reps`` simulated label sets, made as the calibrate stage makes them: labels drawn
    one by one (the judge gives no verdict with probability ``invalid``, else copies the human label with the
    probability that gives kappa ``expected``, else draws from the prevalences), then assay.stats.agreement's
    contingency table and its hybrid kappa interval, exact in rationals."""
    rng = np.random.default_rng(seed)
    pi = np.array(prevalences)
    pe = pi @ pi
    copy = expected * (1 - (1 - invalid) * pe) / ((1 - invalid) * (1 - pe))  # kappa (1 - v) r (1 - pe) / (1 - (1 - v) pe)
    labels = np.array(["a", "b", "tie"])
    out = []
    for _ in range(reps):
        human = labels[rng.choice(3, n, p=pi)]
        judge = np.where(rng.random(n) < copy, human, labels[rng.choice(3, n, p=pi)])
        judge = np.where(rng.random(n) < invalid, "invalid", judge)
        table = contingency(human, judge, labels=["a", "b", "tie", "invalid"])
        low, high = table.kappa_ci()
        bad = int((judge == "invalid").sum())
        out.append(SimpleNamespace(n=n, invalid_pairs=bad, invalid_share=bad / n, invalid=bad, refused=0, failed=0,
                                   order_disagreements=0, flip_share=0.0, kappa=table.kappa(), kappa_ci_low=low,
                                   kappa_ci_high=high, by_kind={}, by_lang={}))
    return out


@pytest.mark.parametrize("expected,prevalences,invalid", [(0.8, (1 / 3, 1 / 3, 1 / 3), 0.0), (0.8, (0.8, 0.1, 0.1), 0.01)])
def test_kappa_pairs_against_the_usability_rule_itself(expected, prevalences, invalid):
    # the rule as the calibrate stage applies it: assay.judge.usability on the demo's params (min_pairs 30,
    # min_kappa 0.6, max_invalid_share 0.05, conservative), over 3,000 label sets (se of a 0.8 rate: 0.007)
    from assay.judge.usability import UsabilityRule, usability

    rule = UsabilityRule()
    k = kappa_pairs(expected, KappaRule(rule.min_kappa, rule.min_pairs, rule.max_invalid_share), prevalences, invalid)
    assert k.power >= 0.8 and k.n >= rule.min_pairs
    passed = [not usability(c, rule) for c in _calibrations(k.n, prevalences, expected, invalid, 3_000, seed=k.n)]
    assert np.mean(passed) == pytest.approx(0.8, abs=0.02)
    # the Wald bound's large-sample size (what `assay power kappa` used to size) passes the rule far less often
    assert k.n_wald < k.n
    passed = [not usability(c, rule) for c in _calibrations(k.n_wald, prevalences, expected, invalid, 1_000, seed=1)]
    assert np.mean(passed) < 0.7


def test_kappa_pairs_wald_formula_and_min_pairs():
    # v = n var(kappa) at the expected table; n = v (1.96 + 0.8416)**2 / 0.2**2
    rule = KappaRule(0.6)
    k = kappa_pairs(0.8, rule, (1 / 3, 1 / 3, 1 / 3), reps=2_000)
    v = kappa_variance(rule_table(0.8, (1 / 3, 1 / 3, 1 / 3)))
    assert k.n_wald == math.ceil(v * (1.959963984540054 + 0.8416212335729143) ** 2 / 0.04)
    # a near-perfect judge needs only the rule's minimum; below it the rule never passes
    assert kappa_pairs(0.95, rule, (1 / 3, 1 / 3, 1 / 3), reps=2_000).n == 30
    assert rule_pass_rate(29, rule_table(0.95, (1 / 3, 1 / 3, 1 / 3)), rule) == 0.0


def test_kappa_pairs_refuses_an_unreachable_bar():
    with pytest.raises(PowerError, match="expected kappa 0.6 must be above min_kappa 0.6"):
        kappa_pairs(0.6, KappaRule(0.6), (0.5, 0.3, 0.2))
    with pytest.raises(PowerError, match="invalid_rate 0.05 is not below max_invalid_share 0.05"):
        kappa_pairs(0.8, KappaRule(0.6), (0.5, 0.3, 0.2), invalid_rate=0.05)


# --- (c) PPI labels for a width ------------------------------------------------------------------

def test_judge_moments():
    m = JudgeMoments.from_rates(0.7, 0.92, 0.25)
    # judge pass rate q = .7 * .92 + .3 * .25 = .719; cov = P(both pass) - p q = .644 - .7 * .719 = .1407
    assert (m.var_human, m.var_judge, m.cov) == pytest.approx((0.21, 0.719 * 0.281, 0.1407), abs=1e-12)
    a = JudgeMoments.from_agreement(0.7, 0.95)
    assert a.correlation == pytest.approx(1 - 0.05 / (2 * 0.21))  # equal margins: correlation is kappa
    # the 2x2 table with margins .7 and agreement .95: .675, .025 / .025, .275; its kappa (statsmodels) is the correlation
    assert cohens_kappa(np.array([[0.675, 0.025], [0.025, 0.275]])).kappa == pytest.approx(a.correlation, abs=1e-12)
    with pytest.raises(PowerError, match="agreement 0.3 is impossible at pass rate 0.7"):
        JudgeMoments.from_agreement(0.7, 0.3)


def test_ppi_labels_closed_form_and_human_only():
    # no judge information: statsmodels' sample size for a proportion's interval of half-width w / 2
    none = JudgeMoments.from_correlation(0.21, 0.0)
    expected = math.ceil(samplesize_confint_proportion(0.7, 0.05, alpha=0.05))
    assert ppi_labels(0.1, none, 10_000, interval="z").n == expected == ppi_labels(0.1, none, 10_000, interval="z").n_human_only
    # lam unclipped: variance = var_y / n (1 - rho**2 N / (N + n)), so at the returned n the width is reached and at n - 1 not
    m = JudgeMoments.from_rates(0.7, 0.92, 0.25)
    r = ppi_labels(0.1, m, 10_000, interval="z")
    z, rho = 1.959963984540054, m.correlation

    def closed(n: int) -> float:
        return 2 * z * math.sqrt(0.21 / n * (1 - rho ** 2 * 10_000 / (10_000 + n)))

    assert closed(r.n) <= 0.1 < closed(r.n - 1)
    assert r.width_at_n == pytest.approx(closed(r.n), abs=1e-12)
    assert ppi_variance(r.n, 10_000, m)[1] == pytest.approx(r.lam) and 0 < r.lam < 1
    assert ppi_labels(0.1, m, 10_000).n >= r.n  # the "t" interval is a little wider


@pytest.mark.parametrize("tpr,fpr,big_n,width", [(0.92, 0.25, 10_000, 0.1), (0.95, 0.1167, 100_000, 0.06), (0.857, 0.333, 1_000, 0.12)])
def test_ppi_labels_against_the_simulated_width(tpr, fpr, big_n, width):
    # the mean width of ppi_mean_ci's interval (the counts-based statistic, see tests/ppi_simulation.py)
    # over 20,000 samples at the n returned is the target within 2%
    r = ppi_labels(width, JudgeMoments.from_rates(0.7, tpr, fpr), big_n)
    _, low, high = intervals(draw(tpr, fpr, r.n, big_n, 20_000, seed=r.n), "t")
    assert (high - low).mean() == pytest.approx(width, rel=0.02)
    assert r.n < r.n_human_only


def test_bad_ppi_label_arguments():
    m = JudgeMoments.from_rates(0.7, 0.92, 0.25)
    with pytest.raises(PowerError, match="width 0.0 must be in"):
        ppi_labels(0.0, m, 100)
    with pytest.raises(PowerError, match="n_unlabeled 0 must be a whole number"):
        ppi_labels(0.1, m, 0)
    with pytest.raises(PowerError, match="var_human 0.0 must be positive"):
        ppi_labels(0.1, JudgeMoments(0.0, 0.1, 0.0), 100)
