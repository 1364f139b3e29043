"""The human labels a judge-corrected estimate uses: reviews of compared cases from random-fill queues.

A queue made with ``assay queue create NAME --from compare --fill random`` holds a seeded uniform
sample of the cases both versions answered (answer ``a`` the baseline's, ``b`` the candidate's). Its
exported snapshot (``data/reviews/NAME.jsonl``) gives, per reviewed case:

- ``win``: the candidate's win as the reviewers chose (``b`` 1, ``a`` 0, ``tie`` 0.5), the mean over
  the reviewers who chose (a review with no choice adds nothing);
- ``score``: the candidate's rubric score, the mean over its criteria and reviewers, rescaled from
  1-5 to [0, 1] (:func:`assay.stats.ppi.rubric_values`); ``None`` when no reviewer scored it.

Only a random fill is a valid labelled sample: a hard fill picks cases *because* they look
difficult (judge-human disagreements, order flips, small margins, version flips), so their mean
is not the population's and PPI's correction would be biased. :func:`labelled_cases` refuses one
with that reason (:class:`BiasedSample`). Reviews of other versions' answers, or of answers that have
changed since (a version's source was edited), label nothing here: they are left out and counted.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from assay.core.errors import InputError, Problem
from assay.judge.matchup import WIN
from assay.queue.snapshot import ReviewRow, Snapshot


class BiasedSample(InputError):
    """A review snapshot offered as PPI's labelled sample that is not a uniform random sample (exit 2)."""


class LabelledCase(BaseModel):
    """One reviewed case's human values (see the module docstring), with the two answers the reviewers saw
    (``a`` the baseline's, ``b`` the candidate's) and the number of reviews read."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    a: str
    b: str
    win: float | None
    score: float | None
    reviews: int


def _refuse_hard(snapshot: Snapshot, path: str) -> None:
    if not snapshot.random_fill:
        raise BiasedSample([Problem(path, 1, "fill", f"queue {snapshot.queue.name!r} is a {snapshot.queue.fill} fill",
                                    "a hard fill picks the cases most likely to expose problems, not a random sample, so "
                                    "it cannot correct the judge's estimate (PPI needs a uniform sample); make one with "
                                    "`assay queue create NAME --from compare --fill random` and list that snapshot in ppi.reviews")])


def _compares(review: ReviewRow, baseline: str, candidate: str) -> bool:
    """Whether ``review`` compares ``baseline`` (answer ``a``) with ``candidate`` (answer ``b``)."""
    return review.kind == "pair" and review.models.get("a") == baseline and review.models.get("b") == candidate


def labelled_cases(snapshots: Sequence[tuple[str, Snapshot]], baseline: str, candidate: str) -> tuple[list[LabelledCase], int]:
    """The human values of every case reviewed in ``snapshots`` (``(path, snapshot)`` pairs), sorted by id and
    answers, and the number of reviews left out because they did not compare ``baseline`` (answer ``a``) with
    ``candidate`` (answer ``b``): a queue of other versions, or not made ``--from compare``.

    Reviews of one case with the same two answers are pooled (over snapshots too). Whether the answers
    are still the runs' answers is for the caller to check (:func:`assay.queue.corrected.join`).

    Raises:
        BiasedSample: a snapshot is not a random fill (its file named, with the reason).
    """
    wins: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    scores: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    other = 0
    for path, snapshot in snapshots:
        _refuse_hard(snapshot, path)
        for r in snapshot.reviews:
            if not _compares(r, baseline, candidate):
                other += 1
                continue
            key = (r.item, r.answers["a"], r.answers["b"])
            counts[key] += 1
            if r.choice is not None:
                wins[key].append(WIN[r.choice])  # the judge's mapping: same letters
            cand = r.scores.get("b") or {}
            if cand:
                scores[key].append(sum(cand.values()) / len(cand))
    from assay.stats.ppi import rubric_values

    out = []
    for key in sorted(counts):
        w, s = wins.get(key), scores.get(key)
        out.append(LabelledCase(id=key[0], a=key[1], b=key[2], win=sum(w) / len(w) if w else None,
                                score=float(rubric_values([sum(s) / len(s)])[0]) if s else None, reviews=counts[key]))
    return out, other


def other_comparisons(snapshots: Sequence[tuple[str, Snapshot]], baseline: str, candidate: str) -> list[str]:
    """One line per snapshot holding reviews that :func:`labelled_cases` leaves out because they do not compare
    ``baseline`` (answer ``a``) with ``candidate`` (answer ``b``): the file, the field, how many reviews, what they
    compared and the fix. ``[]`` when every review fits.

    >>> other_comparisons([], "baseline", "candidate")
    []
    """
    out = []
    for path, snapshot in snapshots:
        seen = Counter(f"{r.models.get('a')!r} (a) with {r.models.get('b')!r} (b)" if r.kind == "pair" else f"a {r.kind} item"
                       for r in snapshot.reviews
                       if not _compares(r, baseline, candidate))
        if seen:
            what = "; ".join(f"{n} compare {pair}" for pair, n in sorted(seen.items()))
            out.append(f"{path}: field 'models': {sum(seen.values())} review(s) left out, not of compare.baseline "
                       f"{baseline!r} (a) with compare.candidate {candidate!r} (b): {what}. Fix: review these versions "
                       "in a `--from compare --fill random` queue and list its snapshot in ppi.reviews, or drop this one")
    return out
