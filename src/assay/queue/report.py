"""The readable review report: reports/review/NAME.md, from :func:`assay.queue.results.summarize`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from assay.core.fmt import md_text

if TYPE_CHECKING:
    from assay.queue.results import ReviewSummary


def _pct(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _num(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:+.2f}"


def _kappa(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.3f}"


def _quote(text: str | None) -> str:
    """User text on one line, inert in Markdown (:func:`assay.core.fmt.md_text`); "(none given)" when empty."""
    if not text or not text.strip():
        return "(none given)"
    return md_text(text)


def report_markdown(summary: ReviewSummary, inputs: dict[str, str]) -> str:
    """Markdown: the queue and its fill (with the bias warning), agreement and its reading, score
    gaps with intervals and flags, and every disagreement with the reviewer's and the judge's
    rationale. ``inputs`` (name to SHA-256) are listed at the end. Every text a person or a model
    wrote (notes, answers, questions, names) goes through :func:`assay.core.fmt.md_text`, so a
    ``<script>`` note appears as text, never as a tag."""
    q, a, c = summary.queue, summary.agreement, summary.counts
    name = " ".join(str(q.name).split()).replace("`", "'")  # a code span shows the rest as written, HTML included
    lines = [f"# Review queue `{name}`", ""]
    if q.synthetic:
        lines += ["**Synthetic reviews** (demo data written by a script, not by people).", ""]
    lines += [f"- source: {md_text(q.source)}", f"- fill: **{q.fill}**", f"- rubric sha256: `{q.rubric_sha256}`",
              f"- reviews: {c.reviews} on {c.items} items ({c.pair_reviews} judged pairs)", ""]
    if q.biased:
        lines += ["> **Biased for overall agreement.** This queue was filled with hard cases (disagreements, order "
                  "flips, small margins, version flips). Its agreement says how the judge does on hard cases, not "
                  "how often it is right in general; only a random fill estimates that.", ""]
    lines += ["## Agreement with the judge", "",
              f"{_pct(a.agreement)} ({a.agreed} of {a.n_decided} items both decided; "
              f"95% Wilson interval {_pct(a.ci_low)} to {_pct(a.ci_high)}); kappa "
              f"{_kappa(a.kappa)}.", "",
              f"Left out: {c.human_tie} reviewer tie(s), {c.judge_tie} judge tie(s), "
              f"{c.judge_silent} without a judge verdict.", "",
              f"Reading: {a.reading}.", "",
              "## Score gaps (reviewers minus judge, same answers)", "",
              "| criterion | gap | 95% interval (clustered by item) | answers | items | flag |", "|---|---|---|---|---|---|"]
    for name, g in summary.score_gaps.items():
        flag = "look closer (|gap| >= 1)" if g.flag else ""
        lines.append(f"| {name} | {_num(g.gap)} | {_num(g.ci_low)} to {_num(g.ci_high)} | {g.n} | {g.items} | {flag} |")
    lines += ["", f"## Disagreements ({len(summary.disagreements)})", "",
              "Either a judge problem (fix the judge) or a data problem (the reference answer was wrong or out of date).", ""]
    for d in summary.disagreements:
        lines += [f"### {md_text(d.item)} (reviewer {md_text(d.reviewer)})", "", f"Question: {_quote(d.question)}", ""]
        for letter in ("a", "b"):
            lines.append(f"- answer {letter} ({md_text(d.models.get(letter, '?'))}): {_quote(d.answers.get(letter))}")
        lines += ["", f"Reviewer chose **{d.reviewer_choice}**: {_quote(d.reviewer_rationale)}",
                  f"Judge chose **{d.judge_verdict}**: {_quote(d.judge_rationale)}"]
        if d.correction:
            lines.append(f"Correction: {_quote(d.correction)}")
        lines.append("")
    lines += ["## Inputs", ""] + [f"- {k}: `{v}`" for k, v in sorted(inputs.items())] + [""]
    return "\n".join(lines)
