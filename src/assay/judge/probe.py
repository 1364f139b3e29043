"""Bias probes: controlled checks that show a judge's position, length and self-preference biases.

Every pair is asked in both orders (one ``judge_many`` batch) and four shares are reported:

- ``first_pick``: of all decisive single-order verdicts (first or second, status ok), the share
  that picked the answer shown first. 0.5 for an order-blind judge, whatever the pairs are,
  because each pair is shown both ways.
- ``order_flip``: share of pairs whose a/b/tie verdict changes when the order is swapped (a
  non-ok verdict counts as a tie).
- ``longer_wins``: on ``verbose_tie`` pairs (same facts, one padded; humans say tie), the share of
  pairs where the longer answer wins *in both orders*. Requiring both orders keeps position
  bias out of this number, so it isolates a length preference.
- ``self_wins``: on ``self`` pairs, the share where the uncited answer in the judge's own house
  style wins in both orders (humans pick the cited plain answer).

A share with no pairs to count is ``nan`` and its ``n_*`` count says why (0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from assay.artifacts.judge import BiasMetrics
from assay.judge.base import Judge
from assay.judge.fake import PRESETS, n_words, own_style
from assay.judge.orders import judge_pairs
from assay.data.pairs import Pair

if TYPE_CHECKING:
    from assay.judge.prompts import PromptVersion

PROBES = ("first_pick", "order_flip", "longer_wins", "self_wins")


def _share(hits: int, n: int) -> float:
    return hits / n if n else math.nan


def _longer(pair: Pair) -> str | None:
    wa, wb = n_words(pair.a), n_words(pair.b)
    return None if wa == wb else ("a" if wa > wb else "b")


def _own(pair: Pair) -> str | None:
    sa, sb = own_style(pair.a), own_style(pair.b)
    return None if sa == sb else ("a" if sa else "b")


def bias_probes(judge: Judge, pairs: Sequence[Pair], prompt: PromptVersion) -> BiasMetrics:
    """The four probe shares for ``judge`` on ``pairs``, plus the counts behind them.

    Returns:
        The metrics/bias.json record: ``first_pick``, ``order_flip``, ``longer_wins``, ``self_wins``
        (floats, ``nan`` when nothing to count; written as null) and ``n_pairs``, ``n_decisive``,
        ``n_verbose_tie``, ``n_self``. ``verbose_tie``
        pairs of equal length and ``self`` pairs without exactly one house-style answer are not
        counted.
    """
    results = judge_pairs(judge, pairs, prompt, swap=True)
    decisive = first = flips = 0
    long_n = long_hits = self_n = self_hits = 0
    for pair, r in zip(pairs, results, strict=True):
        for verdict in (r.forward, r.backward):  # swap=True: both are verdicts
            if verdict is not None and verdict.status == "ok" and verdict.winner != "tie":
                decisive += 1
                first += verdict.winner == "first"
        flips += r.forward_label != r.backward_label
        if pair.kind == "verbose_tie" and (longer := _longer(pair)) is not None:
            long_n += 1
            long_hits += r.label == longer
        if pair.kind == "self" and (own := _own(pair)) is not None:
            self_n += 1
            self_hits += r.label == own
    return BiasMetrics(first_pick=_share(first, decisive), order_flip=_share(flips, len(pairs)),
                       longer_wins=_share(long_hits, long_n), self_wins=_share(self_hits, self_n),
                       n_pairs=len(pairs), n_decisive=decisive, n_verbose_tie=long_n, n_self=self_n)


def preset_table(pairs: Sequence[Pair], prompt: PromptVersion) -> dict[str, BiasMetrics]:
    """:func:`bias_probes` for every fake preset, keyed by preset name (in :data:`PRESETS` order)."""
    return {name: bias_probes(judge, pairs, prompt) for name, judge in PRESETS.items()}


def table_markdown(table: dict[str, BiasMetrics], digits: int = 2) -> str:
    """A Markdown table of probe results, one row per judge; nan (or None) is written as ``n/a``."""
    def cell(x: float | None) -> str:
        return "n/a" if x is None or math.isnan(x) else f"{x:.{digits}f}"

    lines = ["| judge | " + " | ".join(PROBES) + " |", "|---|" + "---:|" * len(PROBES)]
    lines += [f"| {name} | " + " | ".join(cell(getattr(row, p)) for p in PROBES) + " |" for name, row in table.items()]
    return "\n".join(lines) + "\n"


def probe_markdown(kind: str, preset: str, probes: BiasMetrics, table: dict[str, BiasMetrics], prompt: PromptVersion,
                   labels_sha: str) -> str:
    """reports/bias.md: every fake preset's probes, plus the configured judge's row when it is not a fake."""
    if kind != "fake":
        table = {**table, f"configured ({kind})": probes}
    configured = f"fake preset `{preset}`" if kind == "fake" else f"`{kind}`"
    return "\n".join([
        "# Judge bias probes", "",
        f"Pairs: {probes.n_pairs} (labels {labels_sha[:10]}); prompt {prompt.label} (sha {prompt.short_sha}); "
        f"configured judge: {configured}. Every pair is asked in both orders.", "",
        table_markdown(table),
        "- first_pick: share of decisive single-order verdicts that picked the answer shown first (0.5 is fair).",
        "- order_flip: share of pairs whose verdict changes when the order is swapped.",
        f"- longer_wins: share of {probes.n_verbose_tie} verbose_tie pairs (humans: tie) where the longer answer "
        "wins in both orders.",
        f"- self_wins: share of {probes.n_self} self pairs where the uncited answer in the judge's own style wins "
        "in both orders (humans pick the cited one).",
        "",
        "The fake judge does not read the prompt, so these rows cannot show sensitivity to prompt wording; "
        "a real judge can, and should be probed with two prompt versions.",
        "",
    ])
