"""Calibrating a judge against human labels: agreement with an interval, kappa with an interval,
confusion, slices, the shape of the errors, the usability verdict with its reasons, and staleness.

Calibration asks: on the pairs people decided, how often does this judge with this prompt reach
the same decision, where does it fail, and how sure are we? The record names the prompt (version
and SHA-256 of every byte), the label set (:func:`labels_hash`) and the judge (identity and a hash
of its settings, the usability rule included), so a changed prompt word, judge setting or label
makes it stale (:func:`staleness`). The record is a typed model,
:class:`~assay.judge.calibration_record.Calibration`; :func:`outputs` turns it into the metrics
and provenance files and :mod:`assay.judge.calibration_report` into reports/calibration.md.

Accounting. The judge's own output keeps the rule of :mod:`assay.judge.orders`: a flip between the
two orders is a tie. Here, a pair where any verdict was not ok (unparseable, refused or failed) is
labelled ``invalid`` and counts as a disagreement with every human label, ``tie`` included: a judge
that cannot answer never agrees with anyone. ``invalid`` is a column of the confusion table that
no human row can match, so kappa treats it as one more way to disagree. The record reports the
share of such pairs (``invalid_share``) and of order flips (``flip_share``), and
:mod:`assay.judge.usability` rejects a judge on either.

Intervals: agreement (overall and per slice) with :func:`assay.stats.proportion.proportion_ci`
(Wilson by default, the rule's ``interval``); kappa with the hybrid of its large-sample interval
and Wilson's for observed agreement (:meth:`assay.stats.agreement.Contingency.kappa_ci`), which
keeps a width under perfect agreement and covers at the demo's 42 pairs.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import assay
from assay.data.pairs import LABELS, Pair
from assay.judge.base import Judge, JudgeIdentity
from assay.judge.fake import cited, n_words, own_style
from assay.judge.calibration_record import (Calibration, CalibrationIdentity, CalibrationInputs, CalibrationResult,
                                            ErrorShape, FlipPattern, JudgeSettings, PromptRef, SliceResult)
from assay.judge.orders import PairJudgement, judge_pairs, status_counts
from assay.judge.usability import UsabilityRule, small_slices, usability
from assay.stats.proportion import IntervalMethod, proportion_ci

if TYPE_CHECKING:
    from assay.artifacts.rows import DimensionRow
    from assay.judge.prompts import PromptVersion
    from assay.artifacts.judge import CalibrationMetrics
    from assay.artifacts.provenance import Provenance

INVALID = "invalid"  # the calibration label of a pair with a verdict that was not ok
JUDGE_LABELS = (*LABELS, INVALID)
LEVEL = 0.95

ERROR_SHAPES = tuple(ErrorShape.model_fields)


def labels_hash(pairs: Sequence[Pair]) -> str:
    """SHA-256 of the label set's canonical content, independent of file layout and row order.

    The content is one compact JSON document ``{"fields": [...], "rows": [[...], ...]}``: every
    field of :class:`~assay.data.pairs.Pair` (question, facts, answers, kind, lang, ann1, ann2, final,
    note), one row per pair, rows sorted by id. Any edit to any field changes it; reordering rows or
    reformatting the JSON Lines file does not. Hashed one row at a time (memory holds one row).
    """
    fields = list(Pair.model_fields)
    digest = hashlib.sha256()

    def dump(value: object) -> None:
        digest.update(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))

    # the bytes of that one document, hashed a row at a time so memory holds one row, not the text
    digest.update(b'{"fields":')
    dump(fields)
    digest.update(b',"rows":[')
    for k, p in enumerate(sorted(pairs, key=lambda p: p.id)):
        if k:
            digest.update(b",")
        dump([getattr(p, f) for f in fields])
    digest.update(b"]}")
    return digest.hexdigest()


def judge_settings(identity: JudgeIdentity, *, swap: bool, rule: UsabilityRule) -> JudgeSettings:
    """Everything besides prompt and labels that a calibration record depends on: the judge's
    identity, ``swap`` and the usability rule."""
    return JudgeSettings(judge=dict(identity), swap=bool(swap), rule=rule)


def settings_hash(settings: JudgeSettings) -> str:
    """SHA-256 of the settings as sorted-key compact JSON."""
    text = json.dumps(settings.model_dump(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _share(k: int, n: int) -> float:
    return k / n if n else math.nan


def _slices(keys: Sequence[str], hits: Sequence[bool], method: IntervalMethod) -> dict[str, SliceResult]:
    correct: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for key, hit in zip(keys, hits, strict=True):
        total[key] += 1
        correct[key] += hit
    out = {}
    for k in sorted(total):
        low, high = proportion_ci(correct[k], total[k], method, LEVEL)
        out[k] = SliceResult(correct=correct[k], n=total[k], agreement=correct[k] / total[k],
                             agreement_ci_low=low, agreement_ci_high=high)
    return out


def calibration_label(result: PairJudgement) -> str:
    """The judge label a calibration scores: ``invalid`` when any verdict of the pair was not ok,
    else the pair's label (``a``/``b``/``tie``, an order flip being a tie)."""
    return result.label if all(s == "ok" for s in result.statuses) else INVALID


def _error_shape(pairs: Sequence[Pair], labels: Sequence[str]) -> ErrorShape:
    shape = dict.fromkeys(ERROR_SHAPES, 0)
    for pair, label in zip(pairs, labels, strict=True):
        if label == pair.final or label == INVALID:  # invalid pairs are counted in invalid_share
            continue
        if label == "tie":
            shape["missed_decisive"] += 1
            continue
        shape["wrong_decisive"] += 1
        picked, other = (pair.a, pair.b) if label == "a" else (pair.b, pair.a)
        shape["picked_longer"] += n_words(picked) > n_words(other)
        shape["picked_first"] += label == "a"
        shape["picked_uncited"] += (not cited(picked)) and cited(other)
        shape["picked_own_style"] += own_style(picked) and not own_style(other)
    return ErrorShape(**shape)


FLIP_PATTERNS = tuple(FlipPattern.model_fields)


def flip_pattern(results: Sequence[PairJudgement]) -> FlipPattern:
    """Where the order flips came from: counts over the pairs whose two ok verdicts disagreed.

    ``first_both``: both verdicts picked the answer shown first (a first, then b first);
    ``second_both``: both picked the answer shown second; ``tie_in_one``: one order said tie and the
    other picked an answer. ``forward_first`` and ``backward_first``: how many flipped pairs' (a, b)
    and (b, a) verdicts picked the answer shown first. All 0 without swap or without flips. Flips
    are scored as ties before the error shape is counted, so a judge that always picks the first
    answer shows here, not among the wrong decisive picks.
    """
    out = dict.fromkeys(FLIP_PATTERNS, 0)
    for r in results:
        if not r.order_disagreement or r.backward is None:
            continue
        f, b = r.forward.winner, r.backward.winner
        out["first_both"] += f == b == "first"
        out["second_both"] += f == b == "second"
        out["tie_in_one"] += "tie" in (f, b)
        out["forward_first"] += f == "first"
        out["backward_first"] += b == "first"
    return FlipPattern(**out)


@dataclass(frozen=True)
class CalibrationRun:
    """A calibration record plus the calibration label of every pair (in input order): ``a``, ``b``,
    ``tie`` or ``invalid``, for the reports."""

    record: Calibration
    labels: list[str]


def calibration_run(pairs: Sequence[Pair], judge: Judge, prompt: PromptVersion, swap: bool = True,
                    rule: UsabilityRule | None = None, labels_sha: str | None = None) -> CalibrationRun:
    """Judge every pair (both orders with ``swap``) and compare with the final human label.

    See :func:`calibrate` for the record. ``rule`` defaults to ``UsabilityRule()``; ``labels_sha``
    skips recomputing :func:`labels_hash` when the caller already has it.
    """
    from assay.core.bulk import bulk

    with bulk():  # 4 objects per pair and order, none in a reference cycle: see assay.core.bulk
        return _calibration_run(pairs, judge, prompt, swap, rule, labels_sha)


def _calibration_run(pairs: Sequence[Pair], judge: Judge, prompt: PromptVersion, swap: bool,
                     rule: UsabilityRule | None, labels_sha: str | None) -> CalibrationRun:
    from assay.stats.agreement import contingency

    rule = rule or UsabilityRule()
    # settings come from the identity before judging: what params alone determine. A real judge may
    # add what the server reported (the model version) to its identity afterwards; that is kept in
    # record.judge but not hashed, so `assay calibration-status` can recompute the hash offline.
    settings = judge_settings(judge.identity, swap=swap, rule=rule)
    results = judge_pairs(judge, pairs, prompt, swap)
    labels = [calibration_label(r) for r in results]
    finals = [p.final for p in pairs]
    hits = [j == f for j, f in zip(labels, finals, strict=True)]
    n = len(pairs)
    table = contingency(finals, labels, labels=JUDGE_LABELS)
    kappa_low, kappa_high = table.kappa_ci(level=LEVEL)
    low, high = proportion_ci(sum(hits), n, rule.interval, LEVEL)
    invalid_pairs = labels.count(INVALID)
    flips = sum(r.order_disagreement for r in results)
    statuses = status_counts(results)
    result = CalibrationResult(
        n=n, agreement=_share(sum(hits), n), agreement_ci_low=low, agreement_ci_high=high,
        interval=rule.interval, level=LEVEL,
        kappa=table.kappa(), kappa_ci_low=kappa_low, kappa_ci_high=kappa_high, kappa_undefined=table.undefined(),
        confusion={h: row for h, row in table.confusion().items() if h in LABELS},
        by_kind=_slices([p.kind for p in pairs], hits, rule.interval),
        by_lang=_slices([p.lang for p in pairs], hits, rule.interval),
        errors=_error_shape(pairs, labels),
        order_disagreements=flips, flip_pattern=flip_pattern(results), flip_share=_share(flips, n),
        invalid_pairs=invalid_pairs, invalid_share=_share(invalid_pairs, n),
        invalid=statuses["invalid"], refused=statuses["refused"], failed=statuses["failed"])
    labels_sha = labels_sha or labels_hash(pairs)
    settings_sha = settings_hash(settings)
    reasons = usability(result, rule)
    record = Calibration(
        **dict(result),
        swap=bool(swap), prompt=PromptRef(name=prompt.name, version=prompt.version, sha=prompt.sha),
        labels_hash=labels_sha, judge=dict(judge.identity), settings=settings, judge_settings_hash=settings_sha,
        assay_version=assay.__version__,
        inputs=CalibrationInputs(prompt=prompt.sha, labels=labels_sha, judge_settings=settings_sha),
        usable=not reasons, reasons=reasons, small_slices=small_slices(result, rule))
    return CalibrationRun(record, labels)


def calibrate(pairs: Sequence[Pair], judge: Judge, prompt: PromptVersion, swap: bool = True,
              rule: UsabilityRule | None = None) -> Calibration:
    """The calibration record of ``judge`` with ``prompt`` against the pairs' final labels.

    A pair with a verdict that was not ok never agrees; shares and intervals are nan for no pairs;
    kappa is nan when undefined, with the reason in ``kappa_undefined``. See
    :class:`~assay.judge.calibration_record.Calibration` for every field, :func:`flip_pattern` for the
    flip pattern and :func:`assay.judge.usability.usability` for ``reasons``. Use :func:`outputs`
    for the metrics and provenance files.
    """
    return calibration_run(pairs, judge, prompt, swap, rule).record


def outputs(record: Calibration) -> tuple[CalibrationMetrics, Provenance]:
    """Split a record into its numbers (metrics/calibration.json) and its provenance file.

    The provenance ``settings`` hold the record's :class:`~assay.judge.calibration_record.CalibrationIdentity`
    (what :func:`staleness` reads) and its ``details`` the usability ``reasons``, the small slices,
    the interval method and why kappa is undefined (None when it is not).
    """
    from assay.artifacts.judge import CalibrationMetrics, SliceAgreement
    from assay.artifacts.provenance import Provenance

    def slices(group: dict[str, SliceResult]) -> dict[str, SliceAgreement]:
        return {k: SliceAgreement(**s.model_dump()) for k, s in group.items()}

    r = record
    numbers = CalibrationMetrics(
        n=r.n, agreement=r.agreement, agreement_ci_low=r.agreement_ci_low, agreement_ci_high=r.agreement_ci_high,
        level=r.level, kappa=r.kappa, kappa_ci_low=r.kappa_ci_low, kappa_ci_high=r.kappa_ci_high,
        confusion=r.confusion, by_kind=slices(r.by_kind), by_lang=slices(r.by_lang), errors=r.errors.model_dump(),
        order_disagreements=r.order_disagreements, flip_pattern=r.flip_pattern.model_dump(), flip_share=r.flip_share,
        invalid_pairs=r.invalid_pairs, invalid_share=r.invalid_share, invalid=r.invalid, refused=r.refused,
        failed=r.failed, usable=int(r.usable))
    prov = Provenance(assay_version=r.assay_version, inputs=r.inputs.model_dump(),
                      settings=r.identity.model_dump(),
                      details={"reasons": list(r.reasons), "small_slices": list(r.small_slices),
                               "interval": r.interval, "kappa_undefined": r.kappa_undefined})
    return numbers, prov


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def staleness(record: CalibrationIdentity, prompt: PromptVersion, settings: JudgeSettings, labels_sha: str) -> list[str]:
    """What changed since ``record`` was made; an empty list means it is current.

    Args:
        record: what the calibration was about (:attr:`Calibration.identity
            <assay.judge.calibration_record.Calibration.identity>`, or
            :meth:`~assay.judge.calibration_record.CalibrationIdentity.parse` of a provenance file).
        prompt: the prompt version in use now.
        settings: :func:`judge_settings` for the judge and params in use now.
        labels_sha: :func:`labels_hash` of the label set now.

    Returns:
        Lines such as ``prompt pairwise v2 sha 182d1c0ae9 -> 5b3c0e11aa``, ``prompt version 1 -> 2``,
        ``judge settings: judge.preset 'mixed' -> 'clean'`` and ``labels 0f3a9c2b1d -> 77e1a0c4b9``.
    """
    changes = []
    old_prompt = record.prompt
    if old_prompt.version != prompt.version or old_prompt.name != prompt.name:
        changes.append(f"prompt {old_prompt.name} v{old_prompt.version} -> {prompt.label}")
    elif old_prompt.sha != prompt.sha:
        changes.append(f"prompt {prompt.label} sha {old_prompt.sha[:10]} -> {prompt.short_sha}")
    new_hash = settings_hash(settings)
    if record.judge_settings_hash != new_hash:
        old, new = _flatten(record.settings), _flatten(settings.model_dump())
        diffs = [f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in sorted(old.keys() | new.keys()) if old.get(k) != new.get(k)]
        changes.append("judge settings: " + ("; ".join(diffs) if diffs else
                                             f"hash {record.judge_settings_hash[:10]} -> {new_hash[:10]}"))
    if record.labels_hash != labels_sha:
        changes.append(f"labels {record.labels_hash[:10]} -> {labels_sha[:10]}")
    return changes


def pair_rows(pairs: Sequence[Pair], labels: Sequence[str]) -> Iterator[DimensionRow]:
    """Per-pair rows of :data:`~assay.artifacts.registry.JUDGE_DIMENSIONS`: id, kind, lang, final, judge, and
    the rule-based dimension verdicts (see :mod:`assay.judge.dimensions`), in the order of ``pairs``; made
    one at a time, so a writer that takes them as they come holds one row."""
    from assay.artifacts.rows import DimensionRow
    from assay.judge.dimensions import dimensions

    for p, label in zip(pairs, labels, strict=True):
        yield DimensionRow(id=p.id, kind=p.kind, lang=p.lang, final=p.final, judge=label, **dimensions(p).model_dump())
