"""`assay power`: how many cases or labels a decision needs (:mod:`assay.stats.power`).

* ``holdout --change D``: holdout cases needed to detect a paired change D in pass rate.
* ``detectable``: the smallest change the holdout detects.
* ``threshold --threshold T (--change D | --n N)``: one share against a threshold (one-sample, exact binomial).
* ``kappa --expected K``: labelled pairs for a judge of kappa K to pass the usability rule.
* ``ppi --width W``: human labels PPI++ needs for an interval of width W.

What is not given comes from the data so far: the discordance and holdout size from
``metrics/compare.json`` (cases the two versions score differently), the usability rule from
``params.yaml`` (``judge``), the label shares from ``metrics/calibration.json``; the output says
where each figure came from. Bad values exit 2 with one line naming the option and the valid range.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from assay.artifacts.rag import CompareMetrics

LEVEL_HELP = "confidence level of the interval or test, in (0, 1) (default: 0.95)"
POWER_HELP = "probability of detecting it, in (0, 1) (default: 0.8)"
ROOT_HELP = "repository root holding metrics/ and params.yaml (default: the current directory)"
JSON_HELP = "print the answer as JSON"
#: The largest holdout ``power detectable --n`` takes: assay.stats.power.MAX_N, the largest size the library
#: searches (written out, as importing it would load numpy at start-up; tests/test_cli_power.py checks they agree).
MAX_N = 1_000_000
#: The most simulated label sets per size ``power kappa`` runs (20,000 takes seconds; 10^8 would take days).
MAX_REPS = 200_000


def at_most(name: str, value: int | None, high: int) -> None:
    """Refuse ``value`` above ``high`` (one line naming the option and the bound): a hostile
    ``--n 100000000000`` or ``--reps 100000000`` ends at once instead of running for days.
    A value below the low end is left to the library, which names its own bound."""
    from assay.stats.power import PowerError

    if value is not None and value > high:
        raise PowerError(f"{name} {value:,} is above {high:,}, the most this command works with (fix: give at most {high:,})")


def _common(p: argparse.ArgumentParser, power: str | None = POWER_HELP, level: bool = True, root: bool = True) -> None:
    """The options most questions share: --power (with its help text; None: none), --level, --root, --json."""
    if power is not None:
        p.add_argument("--power", type=float, default=0.8, help=power)
    if level:
        p.add_argument("--level", type=float, default=0.95, help=LEVEL_HELP)
    if root:
        p.add_argument("--root", default=".", help=ROOT_HELP)
    p.add_argument("--json", action="store_true", help=JSON_HELP)


def _paired(p: argparse.ArgumentParser) -> None:
    """The options of the two paired-change questions: discordance, test method, and the common ones."""
    p.add_argument("--discordance", type=float,
                   help="share of cases the versions score differently, in (0, 1] (default: observed in metrics/compare.json)")
    p.add_argument("--method", choices=["exact", "normal"], default="exact",
                   help="exact: the exact McNemar test the pipeline runs, its power summed exactly (default); "
                        "normal: Connor's normal approximation (statsmodels' normal_power_het), which overstates "
                        "the exact test's power on small holdouts")
    _common(p)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("power", help="how many holdout cases, labelled pairs or human labels a decision needs",
                       description="Sample sizes before labelling: the holdout size to detect a paired change in "
                                   "pass rate, the smallest change a holdout detects, the labelled pairs for kappa's "
                                   "lower bound to clear min_kappa, and the human labels PPI++ needs for an interval "
                                   "width. Figures not given are read from metrics/compare.json and params.yaml.")
    ps = p.add_subparsers(dest="power_command", required=True, metavar="SUBCOMMAND")

    h = ps.add_parser("holdout", help="holdout cases needed to detect a paired change in pass rate",
                      description="The smallest holdout on which a change in pass rate (candidate minus baseline, "
                                  "scored on the same cases) is detected by the two-sided McNemar test with the "
                                  "given power. The discordance is the share of cases the two versions score "
                                  "differently; by default the one observed in metrics/compare.json.")
    h.add_argument("--change", type=float, required=True, help="the change in pass rate to detect, e.g. 0.05 or -0.05")
    _paired(h)
    h.set_defaults(func=run_holdout)

    d = ps.add_parser("detectable", help="the smallest change in pass rate a holdout detects",
                      description="The smallest paired change in pass rate (either direction) that a holdout of "
                                  "--n cases detects with the given power; --n and --discordance default to the "
                                  "holdout in metrics/compare.json.")
    d.add_argument("--n", type=int, help=f"holdout cases, 1 to {MAX_N:,} "
                                                            "(default: those compared in metrics/compare.json)")
    _paired(d)
    d.set_defaults(func=run_detectable)

    t = ps.add_parser("threshold", help="holdout cases for a share to be shown past a threshold, or the distance a holdout shows",
                      description="A plan's threshold check is one-sample: one version's share of holdout cases "
                                  "against a fixed number. With --change D: the holdout cases on which a version whose "
                                  "true share is D past --threshold passes a one-sided test at --alpha with the given "
                                  "power. With --n N: the smallest such D on N cases. The exact binomial test by "
                                  "default (the one-sided Clopper-Pearson bound clearing the threshold).")
    t.add_argument("--threshold", type=float, required=True, help="the plan's threshold, a share in (0, 1)")
    which = t.add_mutually_exclusive_group(required=True)
    which.add_argument("--change", type=float, help="how far past the threshold the true share is, e.g. 0.05")
    which.add_argument("--n", type=int, help=f"holdout cases, 1 to {MAX_N:,}: print the smallest distance past the threshold they show")
    t.add_argument("--direction", choices=["higher", "lower"], default="higher",
                   help="higher: the share must reach the threshold; lower: stay under it (default: higher)")
    t.add_argument("--alpha", type=float, default=0.05,
                   help="the one-sided test's error rate: a share exactly at the threshold passes at most this often (default: 0.05)")
    t.add_argument("--method", choices=["exact", "normal"], default="exact",
                   help="exact: the exact binomial test, its power summed exactly (default); normal: the one-sample z-test")
    _common(t, level=False, root=False)
    t.set_defaults(func=run_threshold)

    k = ps.add_parser("kappa", help="labelled pairs for a judge to pass the usability rule",
                      description="Pairs of human and judge labels (a, b, tie) needed for a judge whose true kappa "
                                  "is --expected to pass the usability rule of params.yaml's judge section with the "
                                  "given probability: at least min_pairs pairs, at most max_invalid_share without a "
                                  "verdict, and the lower bound of kappa's 95% union interval at min_kappa or above. "
                                  "Found by seeded simulation of that rule; the Wald bound's large-sample size, "
                                  "which is optimistic, is shown beside it.")
    k.add_argument("--expected", type=float, required=True, help="the kappa you expect the judge to have, above min_kappa")
    k.add_argument("--min-kappa", type=float, help="the bar (default: judge.min_kappa in params.yaml)")
    k.add_argument("--prevalences", help="shares of the human labels a,b,tie, e.g. 0.45,0.45,0.1 (default: the human "
                                         "labels' shares in metrics/calibration.json)")
    k.add_argument("--invalid-rate", type=float, default=0.0,
                   help="share of pairs the judge gives no verdict on, below max_invalid_share (default: 0)")
    k.add_argument("--reps", type=int, default=20_000,
                   help=f"simulated label sets per size, 100 to {MAX_REPS:,} (default: 20000)")
    k.add_argument("--seed", type=int, default=0, help="the simulation's seed (default: 0)")
    _common(k, power="probability that the rule passes, in (0, 1) (default: 0.8)", level=False)
    k.set_defaults(func=run_kappa)

    q = ps.add_parser("ppi", help="human labels PPI++ needs for an interval of a given width",
                      description="The number of randomly sampled human labels for which the PPI++ interval "
                                  "(assay.stats.ppi) of a pass rate is expected to be at most --width wide, given the "
                                  "judge's quality (--tpr and --fpr, or --agreement, or --correlation) and the "
                                  "number of cases it judged; the human-only figure beside it.")
    q.add_argument("--width", type=float, required=True, help="the interval width wanted (high minus low), e.g. 0.1")
    q.add_argument("--judged", type=int, required=True,
                   help="cases the judge scored that nobody labels")
    q.add_argument("--pass-rate", type=float, required=True, help="the share of cases people pass (a guess is fine), in (0, 1)")
    q.add_argument("--tpr", type=float, help="share of the cases people pass that the judge passes (with --fpr)")
    q.add_argument("--fpr", type=float, help="share of the cases people fail that the judge passes (with --tpr)")
    q.add_argument("--agreement", type=float, help="share of cases the judge agrees with people, its pass rate equal to theirs")
    q.add_argument("--correlation", type=float, help="correlation of the judge's and people's values, in [-1, 1]")
    q.add_argument("--interval", choices=["t", "z"], default="t",
                   help="t: the small-sample interval ppi_mean_ci uses by default; z: ppi-python's (default: t)")
    _common(q, power=None)
    q.set_defaults(func=run_ppi)


def _compare(root: str, what: str) -> CompareMetrics:
    """metrics/compare.json, or a PowerError saying which option to give instead."""
    from assay.artifacts.registry import COMPARE
    from assay.core.errors import MissingArtifact
    from assay.stats.power import PowerError

    try:
        return COMPARE.read(root)
    except MissingArtifact:
        raise PowerError(f"{what} not given and {COMPARE.relpath()} not found "
                         f"(fix: give {what}, or run `dvc repro compare`)") from None


def _discordance(args: argparse.Namespace) -> tuple[float, str, int | None]:
    """The discordance, where it came from, and the holdout size when read from compare.json."""
    from assay.artifacts.registry import COMPARE
    from assay.stats.power import PowerError

    if args.discordance is not None:
        return args.discordance, "given", None
    m = _compare(args.root, "--discordance")
    differ = m.better + m.worse
    if m.n == 0 or differ == 0:
        raise PowerError(f"{COMPARE.relpath()} has {differ} of {m.n} cases scored differently; "
                         "no discordance to plan with (fix: give --discordance, e.g. 0.2)")
    return differ / m.n, f"observed in {COMPARE.relpath()}: {differ} of {m.n} cases differ", m.n


def _test(method: str, level: float) -> str:
    name = "exact McNemar" if method == "exact" else "McNemar, normal approximation"
    return f"{name}, two-sided at {level:.0%}"


def _answer(args: argparse.Namespace, result: DataclassInstance, rows: list[tuple[str, str]], **extra: object) -> int:
    """Print ``result`` as JSON (with ``extra``) under ``--json``, else as aligned ``label value`` rows; exit 0."""
    from assay.core.io import dumps_json

    if args.json:
        print(dumps_json({**asdict(result), **extra}), end="")
    else:
        for label, value in rows:
            print(f"{label:<20}{value}")
    return 0


def run_holdout(args: argparse.Namespace) -> int:
    from assay.stats.power import holdout_size

    discordance, source, _ = _discordance(args)
    r = holdout_size(args.change, discordance, args.power, args.level, args.method)
    return _answer(args, r, [("cases needed", f"{r.n}"),
                         ("change", f"{r.change:+.3f} in pass rate (candidate minus baseline)"),
                         ("discordance", f"{r.discordance:.3f} ({source})"),
                         ("power", f"{r.power:.3f} at {r.n} cases (target {r.target:g})"),
                         ("test", _test(r.method, r.level))], discordance_source=source)


def run_detectable(args: argparse.Namespace) -> int:
    from assay.artifacts.registry import COMPARE
    from assay.stats.power import detectable_change

    at_most("--n", args.n, MAX_N)
    discordance, source, compared = _discordance(args)
    n, n_source = args.n, "given"
    if n is None:
        n = compared if compared is not None else _compare(args.root, "--n").n
        n_source = COMPARE.relpath()
    r = detectable_change(n, discordance, args.power, args.level, args.method)
    return _answer(args, r, [("smallest change", f"{r.change:.3f} in pass rate, either direction"),
                         ("cases", f"{r.n} ({n_source})"),
                         ("discordance", f"{r.discordance:.3f} ({source})"),
                         ("power", f"{r.power:g}"),
                         ("test", _test(r.method, r.level))], discordance_source=source, n_source=n_source)


def run_threshold(args: argparse.Namespace) -> int:
    from assay.stats.power import threshold_detectable, threshold_size

    at_most("--n", args.n, MAX_N)
    side = "above" if args.direction == "higher" else "below"
    test = f"one-sided {'exact binomial' if args.method == 'exact' else 'z'} test at {args.alpha:g}"
    if args.change is not None:
        r = threshold_size(args.change, args.threshold, args.power, args.alpha, args.direction, args.method)
        return _answer(args, r, [("cases needed", f"{r.n}"),
                                 ("true share", f"{r.change:g} {side} the threshold {r.threshold:g}"),
                                 ("power", f"{r.power:.3f} at {r.n} cases (target {r.target:g})"),
                                 ("test", test)])
    from assay.stats.power import PowerError

    if args.n < 1:
        raise PowerError(f"n {args.n!r} must be a whole number of cases, at least 1")
    d = threshold_detectable(args.n, args.threshold, args.power, args.alpha, args.direction, args.method)
    shown = "none: no true share passes with that power; add cases" if d is None else f"{d:.3f} {side} the threshold {args.threshold:g}"
    if args.json:
        from assay.core.io import dumps_json

        print(dumps_json({"n": args.n, "detectable": d, "threshold": args.threshold, "direction": args.direction,
                          "power": args.power, "alpha": args.alpha, "method": args.method}), end="")
        return 0
    for label, value in [("smallest distance", shown), ("cases", f"{args.n}"), ("power", f"{args.power:g}"), ("test", test)]:
        print(f"{label:<20}{value}")
    return 0


def _prevalences(args: argparse.Namespace) -> tuple[tuple[float, ...], str]:
    """The human labels' shares (a, b, tie), given or read from metrics/calibration.json, and where they came from."""
    from assay.artifacts.registry import CALIBRATION
    from assay.core.errors import MissingArtifact
    from assay.stats.power import PowerError

    if args.prevalences is not None:
        try:
            shares = tuple(float(x) for x in args.prevalences.split(","))
        except ValueError:
            raise PowerError(f"--prevalences {args.prevalences!r} is not three numbers a,b,tie such as 0.45,0.45,0.1") from None
        return shares, "given"
    try:
        m = CALIBRATION.read(args.root)
    except MissingArtifact:
        raise PowerError(f"--prevalences not given and {CALIBRATION.relpath()} not found "
                         "(fix: give --prevalences a,b,tie, e.g. 0.45,0.45,0.1, or run `dvc repro calibrate`)") from None
    counts = [sum(m.confusion.get(label, {}).values()) for label in ("a", "b", "tie")]
    if min(counts) == 0:
        raise PowerError(f"{CALIBRATION.relpath()} has human labels a, b, tie {counts[0]}, {counts[1]}, {counts[2]}; a label "
                         "never seen has no share to plan with (fix: give --prevalences a,b,tie)")
    return tuple(c / sum(counts) for c in counts), f"human labels in {CALIBRATION.relpath()}: {counts[0]}, {counts[1]}, {counts[2]}"


def run_kappa(args: argparse.Namespace) -> int:
    from pathlib import Path

    from assay.core.params import load_section
    from assay.judge.params import JudgeParams
    from assay.stats.power import KappaRule, kappa_pairs

    at_most("--reps", args.reps, MAX_REPS)
    judge = load_section("judge", JudgeParams, Path(args.root) / "params.yaml")
    min_kappa, source = args.min_kappa, "given"
    if min_kappa is None:
        min_kappa, source = judge.min_kappa, "params.yaml judge.min_kappa"
    rule = KappaRule(min_kappa, judge.min_pairs, judge.max_invalid_share, judge.usability == "conservative")
    prevalences, prevalence_source = _prevalences(args)
    r = kappa_pairs(args.expected, rule, prevalences, args.invalid_rate, args.power, reps=args.reps, seed=args.seed)
    bound = "kappa's 95% lower bound" if rule.conservative else "kappa"
    return _answer(args, r, [("pairs needed", f"{r.n} (seeded simulation of the rule: {r.reps} label sets per size, seed {r.seed})"),
                         ("Wald formula", f"{r.n_wald} (the large-sample size for the Wald bound alone; optimistic)"),
                         ("probability", f"{r.power:.3f} that the rule passes (target {r.target:g})"),
                         ("rule", f"at least {rule.min_pairs} pairs, at most {rule.max_invalid_share:g} without a verdict, "
                                  f"{bound} at least {rule.min_kappa:g}"),
                         ("expected kappa", f"{r.expected:g}"),
                         ("min_kappa", f"{r.rule.min_kappa:g} ({source})"),
                         ("prevalences", f"a {r.prevalences[0]:.3f}, b {r.prevalences[1]:.3f}, tie {r.prevalences[2]:.3f} "
                                         f"({prevalence_source})"),
                         ("invalid rate", f"{r.invalid_rate:g}")],
                   min_kappa_source=source, prevalence_source=prevalence_source)


def run_ppi(args: argparse.Namespace) -> int:
    from assay.stats.power import JudgeMoments, PowerError, ppi_labels

    given = [name for name, v in (("--tpr/--fpr", args.tpr if args.tpr is not None else args.fpr),
                                  ("--agreement", args.agreement), ("--correlation", args.correlation)) if v is not None]
    if len(given) != 1:
        raise PowerError("ppi: describe the judge one way: --tpr and --fpr, or --agreement, or --correlation"
                         + (f" (got {' and '.join(given)})" if given else ""))
    if given == ["--tpr/--fpr"]:
        if args.tpr is None or args.fpr is None:
            raise PowerError("ppi: --tpr and --fpr go together; give both")
        moments = JudgeMoments.from_rates(args.pass_rate, args.tpr, args.fpr)
        judge = f"TPR {args.tpr:g}, FPR {args.fpr:g}"
    elif args.agreement is not None:
        moments = JudgeMoments.from_agreement(args.pass_rate, args.agreement)
        judge = f"agreement {args.agreement:g}, same pass rate as people"
    else:
        moments = JudgeMoments.from_pass_rate(args.pass_rate, args.correlation)
        judge = "given correlation"
    r = ppi_labels(args.width, moments, args.judged, args.level, args.interval)
    return _answer(args, r, [("labels needed", f"{r.n} (PPI++, {args.interval} interval)"),
                         ("human only", f"{r.n_human_only} labels for the same width"),
                         ("expected width", f"{r.width_at_n:.4f} at {r.n} labels (target {r.width:g}, {r.level:.0%} level)"),
                         ("judge", f"correlation {r.correlation:.3f} with people ({judge}); weight {r.lam:.3f}"),
                         ("judged cases", f"{r.n_unlabeled}"),
                         ("pass rate", f"{args.pass_rate:g} (people)")], interval=args.interval, pass_rate=args.pass_rate)
