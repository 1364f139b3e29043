"""Judge versus people: agreement, kappa, score gaps and the disagreements.

Definitions::

    agreement = questions where the reviewer and the judge picked the same answer
                / questions both decided            (a tie on either side is left out)
    score gap = reviewers' mean - judge's mean, per criterion, on the same answers
                (|gap| >= 1 point: the judge scores that criterion differently from people)

- Agreement has a 95% Wilson score interval (:func:`assay.stats.proportion.proportion_ci`); with no
  item both decided it is ``nan`` with that reason.
- Kappa (Cohen's, :func:`assay.stats.agreement.kappa`) is computed over the same decided items,
  so it says how far the agreement is above what chance would give on these two-way choices.
- A score gap is the mean of paired differences (reviewer minus judge, one per answer scored by
  both) with a 95% cluster-robust t interval, clustered by item: the two answers of a review share
  the review, and several reviewers of one item share the item, so the differences are not
  independent (a plain t interval covered 0.82-0.90 with such shared effects). The standard error
  is statsmodels' CR1 (``OLS(diffs, 1).fit(cov_type="cluster")``), with ``t`` on items - 1 degrees
  of freedom; fewer than two items leave the interval ``nan``. Where the judge gave no scores the
  gap is ``nan`` with ``n`` 0.
- The plain-words reading of agreement uses the 95% lower bound, not the point estimate, and
  says "too few" under :data:`MIN_DECIDED` items both decided.
- With several reviewers per item, every review counts once.
- Only a random fill estimates overall agreement; a hard fill is flagged ``biased`` here and in
  everything written from it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from assay.artifacts.queue import ReviewMetrics, ScoreGap
from assay.queue.snapshot import Letter, Snapshot

LEVEL = 0.95
GAP_FLAG = 1.0
GOOD_AGREEMENT = 0.8
POOR_AGREEMENT = 0.6
MIN_DECIDED = 30  # as the judge calibration's min_pairs: fewer decided items is too few to read

COIN = ("with two answers to choose from a coin would agree half the time, so 60% is only a "
        "little better than chance")


def agreement_reading(low: float, n: int, min_n: int = MIN_DECIDED) -> str:
    """A plain-words reading of agreement from the lower bound of its 95% interval and the number of
    items both decided: "too few" under ``min_n``; else the lower bound at 80% or more, below 60%,
    or in between. The point estimate is never read: 2 of 2 agree is 100%, with a lower bound of 34%.

    >>> agreement_reading(0.34, 2).startswith("too few: 2 items both decided")
    True
    >>> agreement_reading(0.62, 40).endswith("only a little better than chance)")
    True
    """
    if n == 0 or math.isnan(low):
        return "undefined: no item that both the reviewers and the judge decided"
    if n < min_n:
        return (f"too few: {n} item{'' if n == 1 else 's'} both decided, fewer than {min_n}; review more "
                f"before reading the judge's numbers ({COIN})")
    if low >= GOOD_AGREEMENT:
        head = "the 95% lower bound is about 80% or more: the judge's win rates are a fair indicator"
    elif low < POOR_AGREEMENT:
        head = ("the 95% lower bound is below about 60%: do not decide on the judge's numbers alone; review "
                "more, change the judge model or adjust what it is asked to check")
    else:
        head = ("the 95% lower bound is between about 60% and 80%: use the judge's numbers with care and read "
                "the disagreements")
    return f"{head} ({COIN})"


def mean_interval(diffs: list[float], clusters: list[str] | None = None) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean with a 95% interval, cluster-robust by ``clusters`` when given.

    With clusters (one label per difference): CR1 standard error
    ``sqrt(G / (G - 1) * (N - 1) / (N - 1) * sum_g (sum_i in g (x_i - mean))^2) / N`` (statsmodels'
    ``cov_type="cluster"`` for an intercept-only OLS; ``(N - 1) / (N - K)`` is 1 with one coefficient)
    and ``t`` on ``G - 1`` degrees of freedom; fewer than two clusters leave the interval nan.
    Without clusters: Student's t on ``N - 1``. nan mean for no differences; a zero spread gives
    ``(mean, mean, mean)``.
    """
    import numpy as np
    from scipy import stats

    if not diffs:
        return math.nan, math.nan, math.nan
    x = np.asarray(diffs, dtype=float)
    mean = float(x.mean())
    if clusters is None:
        if x.size < 2:
            return mean, math.nan, math.nan
        sem, df = float(x.std(ddof=1) / math.sqrt(x.size)), x.size - 1
    else:
        labels = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
        g = len(labels)
        if g < 2:
            return mean, math.nan, math.nan
        sums = np.bincount([labels[c] for c in clusters], weights=x - mean, minlength=g)
        sem, df = math.sqrt(g / (g - 1) * float(sums @ sums)) / x.size, g - 1
    if sem == 0.0:
        return mean, mean, mean
    low, high = stats.t.interval(LEVEL, df, loc=mean, scale=sem)
    return mean, float(low), float(high)


def score_gaps(snapshot: Snapshot) -> dict[str, ScoreGap]:
    """Per criterion: ``gap``, ``ci_low``, ``ci_high`` (clustered by item), ``n`` (answers scored by both),
    ``items`` (their items) and ``flag`` (0/1)."""
    out = {}
    for criterion in snapshot.queue.criteria:
        diffs, items = [], []
        for r in snapshot.reviews:
            judge_scores = r.judge.scores or {}
            for letter, mine in r.scores.items():
                theirs = judge_scores.get(letter, {}).get(criterion)
                if theirs is not None and criterion in mine:
                    diffs.append(float(mine[criterion] - theirs))
                    items.append(r.item)
        gap, low, high = mean_interval(diffs, items)
        out[criterion] = ScoreGap(gap=gap, ci_low=low, ci_high=high, n=len(diffs), items=len(set(items)),
                                  flag=int(not math.isnan(gap) and abs(gap) >= GAP_FLAG))
    return out


@dataclass(frozen=True)
class QueueHeading:
    """The queue a summary is of: its fill (``random_fill``, else ``biased`` for overall agreement), source and rubric."""

    name: str
    fill: str
    random_fill: bool
    biased: bool
    synthetic: bool
    source: str
    rubric_sha256: str


@dataclass(frozen=True)
class ReviewCounts:
    """Reviews, items and judged pairs, and the pairs left out of agreement (a reviewer's tie, a judge's tie, no verdict)."""

    reviews: int
    items: int
    pair_reviews: int
    human_tie: int
    judge_tie: int
    judge_silent: int


@dataclass(frozen=True)
class AgreementSummary:
    """People versus the judge on the pairs both decided: the share that agree with its 95% Wilson interval
    (nan with no decided pair), kappa and the plain-words :func:`agreement_reading`."""

    agreement: float
    ci_low: float
    ci_high: float
    n_decided: int
    agreed: int
    kappa: float
    reading: str


@dataclass(frozen=True)
class Disagreement:
    """A pair the reviewer and the judge decided differently, with both rationales (answers by source letter)."""

    item: str
    reviewer: str
    question: str
    answers: dict[Letter, str]
    models: dict[Letter, str]
    reviewer_choice: str | None
    judge_verdict: str | None
    reviewer_rationale: str | None
    correction: str | None
    judge_rationale: str | None


@dataclass(frozen=True)
class ReviewSummary:
    """Everything the review stage and the coordinator see of one queue's snapshot.

    Attributes:
        queue: name, fill, ``random_fill``, ``biased``, ``synthetic``, ``source``, ``rubric_sha256``.
        counts: ``reviews``, ``items``, ``pair_reviews`` and the pairs left out (``human_tie``,
            ``judge_tie``, ``judge_silent``).
        agreement: value, interval (``ci_low``, ``ci_high``), ``n_decided``, ``agreed``, kappa and
            its plain-words ``reading``.
        score_gaps: per criterion, :func:`score_gaps`.
        disagreements: each with the reviewer's and the judge's rationale.
    """

    queue: QueueHeading
    counts: ReviewCounts
    agreement: AgreementSummary
    score_gaps: dict[str, ScoreGap]
    disagreements: list[Disagreement]

    def as_json(self) -> dict[str, object]:
        """The summary as the coordinator's API sends it (the fields in order, as plain data; nan stays nan
        for the app's writer to null)."""
        data = asdict(self)
        data["score_gaps"] = {name: g.model_dump() for name, g in self.score_gaps.items()}
        return data


def summarize(snapshot: Snapshot) -> ReviewSummary:
    """Everything the review stage and the coordinator see (:class:`ReviewSummary`)."""
    from assay.stats.agreement import kappa
    from assay.stats.proportion import proportion_ci

    pairs = [r for r in snapshot.reviews if r.kind == "pair"]
    decided = [r for r in pairs if r.choice in ("a", "b") and r.judge.verdict in ("a", "b")]
    same = sum(r.choice == r.judge.verdict for r in decided)
    n = len(decided)
    value = same / n if n else math.nan
    low, high = proportion_ci(same, n, "wilson", LEVEL)
    k = kappa([r.choice for r in decided], [r.judge.verdict for r in decided]) if n else math.nan
    disagreements = [Disagreement(item=r.item, reviewer=r.reviewer, question=r.question, answers=dict(r.answers),
                                  models=dict(r.models), reviewer_choice=r.choice, judge_verdict=r.judge.verdict,
                                  reviewer_rationale=r.note, correction=r.correction, judge_rationale=r.judge.reason)
                     for r in decided if r.choice != r.judge.verdict]
    return ReviewSummary(
        queue=QueueHeading(name=snapshot.queue.name, fill=snapshot.queue.fill, random_fill=snapshot.random_fill,
                           biased=not snapshot.random_fill, synthetic=snapshot.queue.synthetic,
                           source=snapshot.queue.source, rubric_sha256=snapshot.queue.rubric_sha256),
        counts=ReviewCounts(reviews=len(snapshot.reviews), items=len({r.item for r in snapshot.reviews}),
                            pair_reviews=len(pairs),
                            human_tie=sum(r.choice == "tie" for r in pairs),
                            judge_tie=sum(r.choice in ("a", "b") and r.judge.verdict == "tie" for r in pairs),
                            judge_silent=sum(r.judge.verdict is None for r in pairs)),
        agreement=AgreementSummary(agreement=value, ci_low=low, ci_high=high, n_decided=n, agreed=same,
                                   kappa=k, reading=agreement_reading(low, n)),
        score_gaps=score_gaps(snapshot),
        disagreements=disagreements,
    )


def review_metrics(summary: ReviewSummary) -> ReviewMetrics:
    """Numbers only, for metrics/review/NAME.json (booleans as 0/1; nan written as null)."""
    a, c = summary.agreement, summary.counts
    return ReviewMetrics(
        n=c.reviews, n_items=c.items, n_pair_reviews=c.pair_reviews,
        n_decided=a.n_decided, agreed=a.agreed,
        excluded_human_tie=c.human_tie, excluded_judge_tie=c.judge_tie,
        excluded_judge_silent=c.judge_silent,
        agreement=a.agreement, agreement_ci_low=a.ci_low, agreement_ci_high=a.ci_high,
        kappa=a.kappa,
        score_gap=summary.score_gaps,
        n_gaps_flagged=sum(g.flag for g in summary.score_gaps.values()),
        random_fill=int(summary.queue.random_fill),
        synthetic=int(summary.queue.synthetic),
        n_disagreements=len(summary.disagreements),
    )


#: Why a hard-fill queue's agreement is refused as evidence of the judge's overall agreement.
HARD_FILL_REASON = ("a hard fill picks the items on which the judge is likely wrong (disagreements with people, order "
                    "flips, small margins, cases that flipped between versions), so its agreement is biased low by "
                    "design and cannot estimate how often the judge agrees overall; only a uniform random sample can "
                    "(fix: `assay queue create NAME --fill random`, review it, export it and name that queue in the plan)")


@dataclass(frozen=True)
class AgreementEvidence:
    """What the gate needs from one review queue's metrics (nan where undefined)."""

    agreement: float
    ci_low: float
    ci_high: float
    n_decided: int
    random_fill: bool
    agreed: int = 0

    @classmethod
    def from_metrics(cls, m: ReviewMetrics) -> AgreementEvidence:
        """From a review metrics record (:class:`~assay.artifacts.queue.ReviewMetrics`, as the gate reads
        metrics/review/NAME.json through the registry); ``None`` fields become nan."""
        def num(x: float | None) -> float:
            return math.nan if x is None else float(x)

        return cls(num(m.agreement), num(m.agreement_ci_low), num(m.agreement_ci_high), int(m.n_decided),
                   bool(m.random_fill), int(m.agreed))

    def supports(self, minimum: float, use: str = "lower_bound") -> tuple[bool, str]:
        """Whether this is evidence of at least ``minimum`` agreement, and why.

        ``use``: ``lower_bound`` compares the lower end of the 95% interval (conservative),
        ``estimate`` the point estimate. Never true for a hard fill (:data:`HARD_FILL_REASON`) or
        when no item was decided by both sides.

        >>> AgreementEvidence(0.818, 0.523, 0.949, 11, True, 9).supports(0.6)
        (False, 'lower bound 0.523 of agreement 0.818 (9 of 11 decided) is below the minimum 0.6')
        """
        if not self.random_fill:
            return False, f"hard-fill queue, never evidence of overall agreement: {HARD_FILL_REASON}"
        if self.n_decided == 0 or math.isnan(self.agreement):
            return False, "no item that both the reviewers and the judge decided (ties on either side are left out)"
        value = self.ci_low if use == "lower_bound" else self.agreement
        what = (f"lower bound {self.ci_low:.3f} of agreement {self.agreement:.3f}" if use == "lower_bound"
                else f"agreement {self.agreement:.3f} (95% interval {self.ci_low:.3f} to {self.ci_high:.3f})")
        seen = f"({self.agreed} of {self.n_decided} decided)"
        if value < minimum:
            return False, f"{what} {seen} is below the minimum {minimum:g}"
        return True, f"{what} {seen} meets the minimum {minimum:g}"
