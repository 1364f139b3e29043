"""Calibrating a judge against human labels: agreement with an interval, kappa with an interval,
confusion, slices, the shape of the errors, the usability verdict with its reasons, and staleness.

Calibration asks: on the pairs people decided, how often does this judge with this prompt reach
the same decision, where does it fail, and how sure are we? The record names the prompt (version
and SHA-256 of every byte), the label set (:func:`labels_hash`) and the judge (identity and a hash
of its settings, the usability rule included), so a changed prompt word, judge setting or label
makes it stale (:func:`staleness`).

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
from collections.abc import Sequence
from dataclasses import dataclass


import assay
from assay.core.fmt import md_words
from assay.data.pairs import LABELS, Pair
from assay.judge.base import Judge
from assay.judge.fake import cited, n_words, own_style
from assay.judge.orders import PairJudgement, judge_pairs, status_counts
from assay.judge.usability import UsabilityRule, small_slices, usability
from assay.stats.proportion import IntervalMethod, proportion_ci

INVALID = "invalid"  # the calibration label of a pair with a verdict that was not ok
JUDGE_LABELS = (*LABELS, INVALID)
LEVEL = 0.95

ERROR_SHAPES = ("wrong_decisive", "picked_longer", "picked_first", "picked_uncited", "picked_own_style",
                "missed_decisive")


def labels_hash(pairs: Sequence[Pair]) -> str:
    """SHA-256 of the label set's canonical content, independent of file layout and row order.

    The content is one compact JSON document ``{"fields": [...], "rows": [[...], ...]}``: every
    field of :class:`~assay.data.pairs.Pair` (question, facts, answers, kind, lang, ann1, ann2, final,
    note), one row per pair, rows sorted by id. Any edit to any field changes it; reordering rows or
    reformatting the JSON Lines file does not. (One ``json.dumps`` call: 0.2 s for 100,000 pairs.)
    """
    fields = list(Pair.model_fields)
    at = fields.index("id")
    rows = sorted(([getattr(p, f) for f in fields] for p in pairs), key=lambda row: row[at])
    text = json.dumps({"fields": fields, "rows": rows}, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def judge_settings(identity: dict, *, swap: bool, rule: UsabilityRule) -> dict:
    """Everything besides prompt and labels that a calibration record depends on: the judge's
    identity, ``swap`` and the usability rule (``{"judge", "swap", "rule"}``)."""
    return {"judge": dict(identity), "swap": bool(swap), "rule": rule.model_dump()}


def settings_hash(settings: dict) -> str:
    """SHA-256 of the settings as sorted-key compact JSON."""
    text = json.dumps(settings, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _share(k: int, n: int) -> float:
    return k / n if n else math.nan


def _slices(keys: Sequence[str], hits: Sequence[bool], method: IntervalMethod) -> dict[str, dict]:
    correct: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for key, hit in zip(keys, hits, strict=True):
        total[key] += 1
        correct[key] += hit
    out = {}
    for k in sorted(total):
        low, high = proportion_ci(correct[k], total[k], method, LEVEL)
        out[k] = {"correct": correct[k], "n": total[k], "agreement": correct[k] / total[k],
                  "agreement_ci_low": low, "agreement_ci_high": high}
    return out


def calibration_label(result: PairJudgement) -> str:
    """The judge label a calibration scores: ``invalid`` when any verdict of the pair was not ok,
    else the pair's label (``a``/``b``/``tie``, an order flip being a tie)."""
    return result.label if all(s == "ok" for s in result.statuses) else INVALID


def _error_shape(pairs: Sequence[Pair], labels: Sequence[str]) -> dict[str, int]:
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
    return shape


FLIP_PATTERNS = ("first_both", "second_both", "tie_in_one", "forward_first", "backward_first")


def flip_pattern(results: Sequence[PairJudgement]) -> dict[str, int]:
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
    return out


@dataclass(frozen=True)
class CalibrationRun:
    """A calibration record plus the calibration label of every pair (in input order): ``a``, ``b``,
    ``tie`` or ``invalid``, for the reports."""

    record: dict
    labels: list[str]


def calibration_run(pairs: Sequence[Pair], judge: Judge, prompt, swap: bool = True,
                    rule: UsabilityRule | None = None, labels_sha: str | None = None) -> CalibrationRun:
    """Judge every pair (both orders with ``swap``) and compare with the final human label.

    See :func:`calibrate` for the record. ``rule`` defaults to ``UsabilityRule()``; ``labels_sha``
    skips recomputing :func:`labels_hash` when the caller already has it.
    """
    from assay.core.bulk import bulk

    with bulk():  # 4 objects per pair and order, none in a reference cycle: see assay.core.bulk
        return _calibration_run(pairs, judge, prompt, swap, rule, labels_sha)


def _calibration_run(pairs, judge, prompt, swap, rule, labels_sha) -> CalibrationRun:
    from assay.stats.agreement import contingency

    rule = rule or UsabilityRule()
    # settings come from the identity before judging: what params alone determine. A real judge may
    # add what the server reported (the model version) to its identity afterwards; that is kept in
    # record["judge"] but not hashed, so `assay calibration-status` can recompute the hash offline.
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
    labels_sha = labels_sha or labels_hash(pairs)
    settings_sha = settings_hash(settings)
    record = {
        "n": n,
        "agreement": _share(sum(hits), n),
        "agreement_ci_low": low,
        "agreement_ci_high": high,
        "interval": rule.interval,
        "level": LEVEL,
        "kappa": table.kappa(),
        "kappa_ci_low": kappa_low,
        "kappa_ci_high": kappa_high,
        "kappa_undefined": table.undefined(),
        "confusion": {h: row for h, row in table.confusion().items() if h in LABELS},
        "by_kind": _slices([p.kind for p in pairs], hits, rule.interval),
        "by_lang": _slices([p.lang for p in pairs], hits, rule.interval),
        "errors": _error_shape(pairs, labels),
        "order_disagreements": flips,
        "flip_pattern": flip_pattern(results),
        "flip_share": _share(flips, n),
        "invalid_pairs": invalid_pairs,
        "invalid_share": _share(invalid_pairs, n),
        **status_counts(results),
        "swap": bool(swap),
        "prompt": {"name": prompt.name, "version": prompt.version, "sha": prompt.sha},
        "labels_hash": labels_sha,
        "judge": dict(judge.identity),
        "settings": settings,
        "judge_settings_hash": settings_sha,
        "assay_version": assay.__version__,
        "inputs": {"prompt": prompt.sha, "labels": labels_sha, "judge_settings": settings_sha},
    }
    reasons = usability(record, rule)
    record["usable"] = 0 if reasons else 1
    record["reasons"] = reasons
    record["small_slices"] = small_slices(record, rule)
    return CalibrationRun(record, labels)


def calibrate(pairs: Sequence[Pair], judge: Judge, prompt, swap: bool = True,
              rule: UsabilityRule | None = None) -> dict:
    """The calibration record of ``judge`` with ``prompt`` against the pairs' final labels.

    Returns a dict with:
        ``n``; ``agreement`` (share of pairs where the calibration label equals ``final``; a pair
        with a verdict that was not ok never agrees; nan for no pairs) and its interval
        ``agreement_ci_low``/``high`` (method ``interval``, ``level`` 0.95; nan for no pairs);
        ``kappa`` (Cohen's, final vs calibration label, nan when undefined, with the reason in
        ``kappa_undefined``) and ``kappa_ci_low``/``high``; ``confusion`` (human rows a, b, tie x
        judge columns a, b, tie, invalid); ``by_kind`` and ``by_lang`` (``{slice: {"correct", "n",
        "agreement", "agreement_ci_low", "agreement_ci_high"}}``); ``errors`` (wrong decisive picks
        and their shape: picked the longer answer, the one shown first in the (a, b) order, the
        uncited one, the one in the judge's own style; plus ``missed_decisive``, a judge tie where
        people decided; invalid pairs are not in it); ``order_disagreements`` and ``flip_share``
        (pairs whose two ok verdicts disagreed, over ``n``) and ``flip_pattern`` (see
        :func:`flip_pattern`); ``invalid_pairs`` and
        ``invalid_share`` (pairs with any verdict not ok, over ``n``); ``invalid``/``refused``/
        ``failed`` (verdict counts, two per pair with swap); ``swap``; provenance: ``prompt``
        {name, version, sha}, ``labels_hash``, ``judge`` (identity), ``settings`` and
        ``judge_settings_hash``, ``assay_version`` and ``inputs`` (the three hashes by name); ``usable`` (1/0), ``reasons`` (list,
        see :func:`assay.judge.usability.usability`) and ``small_slices`` (list of slices too small
        to judge). Use :func:`outputs` for the metrics and provenance files.
    """
    return calibration_run(pairs, judge, prompt, swap, rule).record


#: Record keys that name what the calibration is about (the staleness check compares them).
IDENTITY_KEYS = ("prompt", "labels_hash", "judge", "settings", "judge_settings_hash", "swap")


def outputs(record: dict):
    """Split a record into its numbers (metrics/calibration.json) and its provenance file.

    The provenance ``settings`` hold :data:`IDENTITY_KEYS` (what :func:`staleness` reads) and its
    ``details`` the usability ``reasons``.
    """
    from assay.artifacts.judge import CalibrationMetrics
    from assay.artifacts.provenance import Provenance

    numbers = {k: v for k, v in record.items()
               if k in CalibrationMetrics.model_fields}
    prov = Provenance(assay_version=record["assay_version"], inputs=record["inputs"],
                      settings={k: record[k] for k in IDENTITY_KEYS},
                      details={"reasons": record["reasons"], "small_slices": record["small_slices"],
                               "interval": record["interval"], "kappa_undefined": record["kappa_undefined"]})
    return CalibrationMetrics(**numbers), prov


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def staleness(record: dict, prompt, settings: dict, labels_sha: str) -> list[str]:
    """What changed since ``record`` was made; an empty list means it is current.

    Args:
        record: a calibration record or its metrics (needs ``prompt``, ``judge_settings_hash``,
            ``labels_hash``; ``settings`` to name the changed keys).
        prompt: the prompt version in use now.
        settings: :func:`judge_settings` for the judge and params in use now.
        labels_sha: :func:`labels_hash` of the label set now.

    Returns:
        Lines such as ``prompt pairwise v2 sha 182d1c0ae9 -> 5b3c0e11aa``, ``prompt version 1 -> 2``,
        ``judge settings: judge.preset 'mixed' -> 'clean'`` and ``labels 0f3a9c2b1d -> 77e1a0c4b9``.
    """
    changes = []
    old_prompt = record.get("prompt") or {}
    if old_prompt.get("version") != prompt.version or old_prompt.get("name") != prompt.name:
        changes.append(f"prompt {old_prompt.get('name')} v{old_prompt.get('version')} -> {prompt.label}")
    elif old_prompt.get("sha") != prompt.sha:
        changes.append(f"prompt {prompt.label} sha {str(old_prompt.get('sha'))[:10]} -> {prompt.short_sha}")
    if record.get("judge_settings_hash") != settings_hash(settings):
        old, new = _flatten(record.get("settings") or {}), _flatten(settings)
        diffs = [f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in sorted(old.keys() | new.keys()) if old.get(k) != new.get(k)]
        changes.append("judge settings: " + ("; ".join(diffs) if diffs else
                                             f"hash {str(record.get('judge_settings_hash'))[:10]} -> {settings_hash(settings)[:10]}"))
    if record.get("labels_hash") != labels_sha:
        changes.append(f"labels {str(record.get('labels_hash'))[:10]} -> {labels_sha[:10]}")
    return changes


def pair_rows(pairs: Sequence[Pair], labels: Sequence[str]) -> list[dict]:
    """Per-pair rows for reports/judge_dimensions.jsonl: id, kind, lang, final, judge, and the
    rule-based dimension verdicts (see :mod:`assay.judge.dimensions`)."""
    from assay.judge.dimensions import dimensions

    return [{"id": p.id, "kind": p.kind, "lang": p.lang, "final": p.final, "judge": label, **dimensions(p)}
            for p, label in zip(pairs, labels, strict=True)]


def _pct(x: float) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def _slice_rows(slices: dict, min_n: int) -> list[str]:
    return [f"| {md_words(k)} | {s['correct']} | {s['n']} | {_pct(s['agreement'])} | {_pct(s['agreement_ci_low'])} to "
            f"{_pct(s['agreement_ci_high'])} |" + (" too small to judge |" if s["n"] < min_n else " |")
            for k, s in slices.items()]


def flip_words(flips: int, n: int, pattern: dict[str, int], swap: bool) -> str:
    """The order flips in words, with their position pattern (see :func:`flip_pattern`).

    >>> flip_words(28, 42, {"first_both": 27, "second_both": 0, "tie_in_one": 1, "forward_first": 28,
    ...                     "backward_first": 27}, True)[:95]
    '28 of 42 pairs flipped when the answers swapped (scored as ties, so not among the picks above):'
    """
    if not swap:
        return "Each pair was shown in one order only, so order flips were not measured."
    if not flips:
        return f"0 of {n} pairs flipped when the answers swapped."
    return (f"{flips} of {n} pairs flipped when the answers swapped (scored as ties, so not among the picks above): "
            f"in {pattern['first_both']} of them the judge picked the answer shown first both times, in "
            f"{pattern['second_both']} the answer shown second both times, and in {pattern['tie_in_one']} it said tie "
            f"in one order. Of the {flips} flipped pairs, the (a, b) verdict picked the answer shown first in "
            f"{pattern['forward_first']} and the (b, a) verdict in {pattern['backward_first']}.")


def report_markdown(record: dict) -> str:
    """A one-page Markdown summary of a calibration record."""
    p, j, rule = record["prompt"], record["judge"], record["settings"]["rule"]
    judge_name = ", ".join(f"{md_words(k)}={md_words(v)}" for k, v in j.items())
    kappa_rule = ("lower bound of its 95% interval" if rule["usability"] == "conservative" else "point estimate")
    kappa = (record["kappa_undefined"] if record["kappa_undefined"] else
             f"{_pct(record['kappa'])} (95% interval {_pct(record['kappa_ci_low'])} to {_pct(record['kappa_ci_high'])})")
    interval = f"95% {rule['interval']} interval"
    lines = [
        "# Judge calibration",
        "",
        f"Judge: {judge_name}. Prompt {md_words(p['name'])} v{p['version']} (sha {p['sha'][:10]}). "
        f"Labels {record['labels_hash'][:10]}. Both orders: {'yes' if record['swap'] else 'no'}.",
        "",
        f"**{'Usable' if record['usable'] else 'Not usable'}.**"
        + ("" if record["usable"] else " Reasons: " + "; ".join(md_words(r) for r in record["reasons"]) + "."),
        "",
        f"Rule: at least {rule.get('min_pairs', 1)} pairs with a human label; at most {rule['max_invalid_share']:g} "
        f"of pairs without a verdict and {rule['max_flip_share']:g} "
        f"with an order flip; kappa ({kappa_rule}) at least {rule['min_kappa']:g}; every kind and language slice "
        f"of at least {rule['min_slice_n']} pairs agrees at least {rule['min_slice_agreement']:g}.",
        "",
        "## Totals",
        "",
        f"- pairs: {record['n']}",
        f"- agreement with the final human label: {_pct(record['agreement'])} "
        f"({interval} {_pct(record['agreement_ci_low'])} to {_pct(record['agreement_ci_high'])}, n = {record['n']}); "
        "a pair without a verdict counts as a disagreement",
        f"- Cohen's kappa: {kappa}",
        f"- order flips (the verdict changed when the answers swapped places; scored as tie): "
        f"{record['order_disagreements']} of {record['n']} pairs ({_pct(record['flip_share'])})",
        f"- pairs without a verdict: {record['invalid_pairs']} of {record['n']} ({_pct(record['invalid_share'])}); "
        f"replies not ok: invalid {record['invalid']}, refused {record['refused']}, failed {record['failed']}",
        "",
        "## Confusion (human rows, judge columns)",
        "",
        "| human \\ judge | " + " | ".join(JUDGE_LABELS) + " |",
        "|---|" + "---:|" * len(JUDGE_LABELS),
    ]
    lines += [f"| {h} | " + " | ".join(str(record["confusion"][h][c]) for c in JUDGE_LABELS) + " |" for h in LABELS]
    for title, key in (("By kind", "by_kind"), ("By language", "by_lang")):
        lines += ["", f"## {title}", "", f"| slice | correct | n | agreement | {interval} | |",
                  "|---|---:|---:|---:|---|---|"]
        lines += _slice_rows(record[key], rule["min_slice_n"])
    e = record["errors"]
    lines += [
        "", "## Shape of the errors", "",
        f"Of {e['wrong_decisive']} wrong decisive picks: {e['picked_longer']} picked the longer answer, "
        f"{e['picked_first']} the answer shown first in the (a, b) order, {e['picked_uncited']} the uncited one, "
        f"{e['picked_own_style']} the one in the judge's own style. "
        f"The judge said tie on {e['missed_decisive']} pairs people decided.",
        "",
        flip_words(record["order_disagreements"], record["n"], record["flip_pattern"], record["swap"]),
        "",
        "Agreement with these labels on these kinds of pairs is all this shows: not correctness, and "
        "not behaviour on other kinds, languages or domains. Slices of a few pairs are weak evidence"
        + (": " + ", ".join(md_words(s) for s in record["small_slices"]) + " are too small to judge." if record["small_slices"] else "."),
    ]
    return "\n".join(lines) + "\n"
