"""reports/ppi.md and the plot rows: the judge-only, human-only and PPI estimates side by side.

Built from metrics/ppi.json only (:class:`~assay.artifacts.corrected.CorrectedMetrics`), so it says
exactly what the metrics say.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.artifacts.corrected import CorrectedFigure, CorrectedMetrics, CorrectedRow
from assay.artifacts.estimate import Estimate
from assay.core.fmt import ci, md_words, num

#: The estimate names as the report, the summary and the plot show them.
METHODS = ("judge only", "human only", "PPI")
FIGURES = {"win_rate": "Candidate's win rate against the baseline (candidate 1, baseline 0, tie 0.5)",
           "score": "Candidate's rubric score, rescaled from 1-5 to [0, 1]"}


def estimates(r: CorrectedRow) -> dict[str, Estimate]:
    """The row's three estimates by :data:`METHODS` name."""
    return dict(zip(METHODS, (r.judge, r.human, r.ppi), strict=True))


def cell(e: Estimate) -> str:
    """``0.612 (95% 0.55 to 0.67)`` or ``n/a``."""
    return "n/a" if e.value is None else ci(e.value, e.ci_low, e.ci_high)


def table(fig: CorrectedFigure) -> list[str]:
    """One Markdown table: overall, then each task, set and language slice."""
    lines = ["| slice | n labelled | N judged | judge only | human only | PPI | PPI width / human-only |",
             "|---|---:|---:|---|---|---|---:|"]
    rows = [("overall", fig.overall)] + [(f"{kind} {name}", r) for kind, by in
                                         (("task", fig.by_task), ("set", fig.by_set), ("lang", fig.by_lang))
                                         for name, r in by.items()]
    for name, r in rows:
        if r.too_few:
            human = ppi = "too few"
        else:
            human, ppi = cell(r.human), cell(r.ppi)
        lines.append(f"| {md_words(name)} | {r.n_labelled} | {r.n_judged} | {cell(r.judge)} | {human} | {ppi} | "
                     f"{num(r.width_ratio, 2)} |")
    return lines


def labels_note(m: CorrectedMetrics) -> str:
    """The warning every page showing these figures carries when the labels are synthetic ('' when they are not)."""
    if not m.synthetic_labels:
        return ""
    return ("**The labels are synthetic:** the review snapshot was written by a script (the demo's: "
            "examples/compare_review_demo.py), not by people, so the human-only and PPI figures show how the method "
            "works, not how good the candidate is.")


def changed_note(m: CorrectedMetrics) -> str:
    """The warning when reviewed cases were left out because their answers changed since the review."""
    return (f"**Warning:** {m.labelled_changed} reviewed case(s) were left out because a version's answer changed since "
            "(or the case is no longer compared). The cases whose answers changed are not a random part of the "
            "sample, so the remaining labels may not be a uniform sample and the human-only and PPI estimates may be "
            "biased: review a new `--from compare --fill random` queue of the current answers.")


def judge_claim(r: CorrectedRow, what: str = "") -> str:
    """What the uncorrected judge would have claimed (``what``: the figure's name, with its article) beside the
    PPI estimate; '' when either has no value (the judge gives no rubric score)."""
    j, p = r.judge, r.ppi
    if j.value is None or p.value is None or j.ci_low is None or j.ci_high is None:
        return ""
    inside = j.ci_low <= p.value <= j.ci_high
    return (f"Uncorrected, the judge alone would have claimed {what + ' ' if what else ''}{cell(j)} on {r.n_judged} cases; corrected with "
            f"{r.n_labelled} labels (PPI) it is {cell(p)}, "
            + ("inside the judge-only interval." if inside else
               "outside the judge-only interval: the judge's errors moved its figure by more than its interval admits."))


def width_note(r: CorrectedRow, usable: bool | None) -> str:
    """What correcting this judge bought or cost in width, against the human-only interval."""
    if r.too_few or r.width_ratio is None:
        return "Too few labelled cases overall to compare widths."
    judge = {True: "The judge is usable (calibration).", False: "The judge is not usable (calibration); it is corrected "
             "anyway, since PPI stays unbiased whatever the judge's errors.", None: "No calibration record was read."}[usable]
    change = (f"{(1 - r.width_ratio) * 100:.0f}% narrower" if r.width_ratio < 1
              else f"{(r.width_ratio - 1) * 100:.0f}% wider")
    return (f"{judge} The PPI interval is {change} than the human-only one on the same {r.n_labelled} labels "
            f"(power-tuned lam {num(r.lam, 2)}; lam 0 would give the human-only interval).")


def report_markdown(m: CorrectedMetrics, usable: bool | None, sources: list[str], left_out: Sequence[str] = ()) -> str:
    """reports/ppi.md; ``left_out``: a line per review snapshot whose reviews label nothing here
    (:func:`assay.queue.labelled.other_comparisons`), listed under the first paragraph."""
    left = (f"; {m.labelled_unmatched} review(s) of other versions or of answers that have changed since, left out"
            if m.labelled_unmatched else "")
    out = ["# Judge-corrected estimates: candidate against baseline", "",
           f"{m.cases} compared cases; {m.judge_failed} dropped for a failed judge reply; {m.labelled} labelled by reviewers "
           f"({m.labelled_unjudged} of them without a judge value) from {', '.join(sources) or 'no review snapshot'}"
           f"{left}. "
           f"Intervals at level {num(m.level, 2)}; a slice with fewer than {m.min_labelled} labelled cases shows "
           "\"too few\".", "",
           *([f"- {md_words(line)}" for line in left_out] + [""] if left_out else []),
           *([changed_note(m), ""] if m.labelled_changed else []),
           *([labels_note(m), ""] if m.synthetic_labels else []),
           "What each column is: **judge only** is the mean of the judge's verdicts over all N judged cases, what the "
           "judge alone would claim; its interval assumes the judge is right, so it is narrow and can be wrong. "
           "**Human only** is the mean of the reviewers' values over the n labelled cases alone. **PPI** is the judge's "
           "mean over the N - n cases nobody labelled, corrected by the judge's average error on the n labelled ones "
           "(unbiased whatever the judge's errors). "
           "The plan may gate on the PPI lower bound (`ppi_win_rate`, `ppi_score`), never on the judge-only figure.", ""]
    for key, title in FIGURES.items():
        fig: CorrectedFigure | None = getattr(m, key)
        out += [f"## {title}", ""]
        if fig is None:
            out += ["No review scored the candidate's answer.", ""]
            continue
        if key == "score":
            out += ["The judge gives no rubric score: its judge-only column is empty, and PPI uses its win value "
                    "as the prediction.", ""]
        claim = judge_claim(fig.overall, "a win rate of" if key == "win_rate" else "")
        out += table(fig) + ["", *([claim] if claim else []), width_note(fig.overall, usable), ""]
    return "\n".join(out)


def plot_rows(m: CorrectedMetrics) -> list[tuple[str, float | None, float | None, float | None, int]]:
    """Rows of the win-rate plot: ``(estimate, win_rate, low, high, n)`` for each of :data:`METHODS`."""
    return [(name, e.value, e.ci_low, e.ci_high, e.n) for name, e in estimates(m.win_rate.overall).items()]
