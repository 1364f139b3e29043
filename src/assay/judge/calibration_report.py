"""The one-page Markdown summary of a judge calibration (reports/calibration.md).

Reads a :class:`~assay.judge.calibration_record.Calibration` by attribute; undefined numbers
(nan) print as ``n/a``.
"""

from __future__ import annotations

from assay.core.fmt import ci, md_words, num
from assay.data.pairs import LABELS
from assay.judge.calibration import JUDGE_LABELS
from assay.judge.calibration_record import Calibration, FlipPattern, SliceResult


def _slice_rows(slices: dict[str, SliceResult], min_n: int) -> list[str]:
    return [f"| {md_words(k)} | {s.correct} | {s.n} | {num(s.agreement)} | {num(s.agreement_ci_low)} to "
            f"{num(s.agreement_ci_high)} |" + (" too small to judge |" if s.n < min_n else " |")
            for k, s in slices.items()]


def flip_words(flips: int, n: int, pattern: FlipPattern, swap: bool) -> str:
    """The order flips in words, with their position pattern (see :func:`assay.judge.calibration.flip_pattern`).

    >>> pattern = FlipPattern(first_both=27, tie_in_one=1, forward_first=28, backward_first=27)
    >>> flip_words(28, 42, pattern, True)[:95]
    '28 of 42 pairs flipped when the answers swapped (scored as ties, so not among the picks above):'
    >>> flip_words(0, 42, FlipPattern(), True)
    '0 of 42 pairs flipped when the answers swapped.'
    """
    if not swap:
        return "Each pair was shown in one order only, so order flips were not measured."
    if not flips:
        return f"0 of {n} pairs flipped when the answers swapped."
    return (f"{flips} of {n} pairs flipped when the answers swapped (scored as ties, so not among the picks above): "
            f"in {pattern.first_both} of them the judge picked the answer shown first both times, in "
            f"{pattern.second_both} the answer shown second both times, and in {pattern.tie_in_one} it said tie "
            f"in one order. Of the {flips} flipped pairs, the (a, b) verdict picked the answer shown first in "
            f"{pattern.forward_first} and the (b, a) verdict in {pattern.backward_first}.")


def report_markdown(record: Calibration) -> str:
    """A one-page Markdown summary of a calibration record."""
    r, p, rule = record, record.prompt, record.settings.rule
    judge_name = ", ".join(f"{md_words(k)}={md_words(v)}" for k, v in r.judge.items())
    kappa_rule = ("lower bound of its 95% interval" if rule.usability == "conservative" else "point estimate")
    kappa = (r.kappa_undefined if r.kappa_undefined else
             ci(r.kappa, r.kappa_ci_low, r.kappa_ci_high))
    interval = f"95% {rule.interval} interval"
    lines = [
        "# Judge calibration",
        "",
        f"Judge: {judge_name}. Prompt {md_words(p.name)} v{p.version} (sha {p.sha[:10]}). "
        f"Labels {r.labels_hash[:10]}. Both orders: {'yes' if r.swap else 'no'}.",
        "",
        f"**{'Usable' if r.usable else 'Not usable'}.**"
        + ("" if r.usable else " Reasons: " + "; ".join(md_words(x) for x in r.reasons) + "."),
        "",
        f"Rule: at least {rule.min_pairs} pairs with a human label; at most {rule.max_invalid_share:g} "
        f"of pairs without a verdict and {rule.max_flip_share:g} "
        f"with an order flip; kappa ({kappa_rule}) at least {rule.min_kappa:g}; every kind and language slice "
        f"of at least {rule.min_slice_n} pairs agrees at least {rule.min_slice_agreement:g}.",
        "",
        "## Totals",
        "",
        f"- pairs: {r.n}",
        f"- agreement with the final human label: {num(r.agreement)} "
        f"({interval} {num(r.agreement_ci_low)} to {num(r.agreement_ci_high)}, n = {r.n}); "
        "a pair without a verdict counts as a disagreement",
        f"- Cohen's kappa: {kappa}",
        f"- order flips (the verdict changed when the answers swapped places; scored as tie): "
        f"{r.order_disagreements} of {r.n} pairs ({num(r.flip_share)})",
        f"- pairs without a verdict: {r.invalid_pairs} of {r.n} ({num(r.invalid_share)}); "
        f"replies not ok: invalid {r.invalid}, refused {r.refused}, failed {r.failed}",
        "",
        "## Confusion (human rows, judge columns)",
        "",
        "| human \\ judge | " + " | ".join(JUDGE_LABELS) + " |",
        "|---|" + "---:|" * len(JUDGE_LABELS),
    ]
    lines += [f"| {h} | " + " | ".join(str(r.confusion[h][c]) for c in JUDGE_LABELS) + " |" for h in LABELS]
    for title, slices in (("By kind", r.by_kind), ("By language", r.by_lang)):
        lines += ["", f"## {title}", "", f"| slice | correct | n | agreement | {interval} | |",
                  "|---|---:|---:|---:|---|---|"]
        lines += _slice_rows(slices, rule.min_slice_n)
    e = r.errors
    lines += [
        "", "## Shape of the errors", "",
        f"Of {e.wrong_decisive} wrong decisive picks: {e.picked_longer} picked the longer answer, "
        f"{e.picked_first} the answer shown first in the (a, b) order, {e.picked_uncited} the uncited one, "
        f"{e.picked_own_style} the one in the judge's own style. "
        f"The judge said tie on {e.missed_decisive} pairs people decided.",
        "",
        flip_words(r.order_disagreements, r.n, r.flip_pattern, r.swap),
        "",
        "Agreement with these labels on these kinds of pairs is all this shows: not correctness, and "
        "not behaviour on other kinds, languages or domains. Slices of a few pairs are weak evidence"
        + (": " + ", ".join(md_words(s) for s in r.small_slices) + " are too small to judge." if r.small_slices else "."),
    ]
    return "\n".join(lines) + "\n"
