"""`assay power kappa`'s table: pairs a judge needs to pass the usability rule, by kappa and label prevalences.

Run by hand: ``.venv/bin/python benchmarks/bench_kappa_power.py [REPS]`` (label sets per size, default
20,000). For true kappa 0.7, 0.8 and 0.9 against the demo's rule (min_kappa 0.6, min_pairs 30,
max_invalid_share 0.05, conservative) and three prevalences of the human labels a/b/tie: the
recommended n and the rule's simulated pass rate there (the search's own seed), the pass rate at n
on another seed, and the Wald bound's large-sample size with the rule's pass rate at it (what the
command recommended before).
"""

from __future__ import annotations

import sys

from assay.stats.power import KappaRule, kappa_pairs, rule_pass_rate, rule_table


def main(reps: int) -> None:
    rule = KappaRule(0.6)
    print(f"usability rule: min_kappa {rule.min_kappa}, min_pairs {rule.min_pairs}, max_invalid_share "
          f"{rule.max_invalid_share}, union interval; target 0.8, {reps:,} label sets per size")
    print(f"{'prevalences a/b/tie':<22}{'kappa':>6}{'n':>6}{'pass':>7}{'other seed':>11}{'Wald n':>8}{'pass there':>11}")
    for prevalences in ((1 / 3, 1 / 3, 1 / 3), (0.45, 0.45, 0.10), (0.8, 0.1, 0.1)):
        for kappa in (0.7, 0.8, 0.9):
            k = kappa_pairs(kappa, rule, prevalences, reps=reps)
            table = rule_table(kappa, prevalences)
            again = rule_pass_rate(k.n, table, rule, reps, seed=1)
            at_wald = rule_pass_rate(k.n_wald, table, rule, reps, seed=1)
            name = "/".join(f"{p:.2f}" for p in prevalences)
            print(f"{name:<22}{kappa:6.1f}{k.n:6d}{k.power:7.3f}{again:11.3f}{k.n_wald:8d}{at_wald:11.3f}")
    print("kappa 0.6 (at the bar): no n reaches 0.8; the rule's lower bound passes a judge exactly at the bar "
          f"{rule_pass_rate(200, rule_table(0.6, (1 / 3, 1 / 3, 1 / 3)), rule, reps):.3f} of the time at 200 pairs")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
