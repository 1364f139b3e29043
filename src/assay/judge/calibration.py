"""Calibrating a judge against human labels: agreement with an interval, kappa, confusion, slices,
the shape of the errors, a usability rule that names its reasons, and staleness.

Calibration asks: on the pairs people decided, how often does this judge with this prompt reach
the same decision, where does it fail, and how sure are we? The record names the prompt (version
and SHA-256 of every byte), the label set (:func:`labels_hash`) and the judge (identity and a hash
of its settings), so a changed prompt word, judge setting or label makes it stale
(:func:`staleness`).

Usability (seed 000's ``usable``): reject when kappa is below ``min_kappa`` or undefined, and when
any kind slice's agreement is below ``min_slice_agreement``. A pass says only that the judge
agrees with these labels on these kinds of pairs; it says nothing about other data, and a slice
of six pairs is weak evidence (use it to decide where to label more).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import assay
from assay.judge.base import Judge
from assay.judge.fake import cited, n_words, own_style
from assay.judge.orders import judge_pairs, status_counts
from assay.data.pairs import LABELS, Pair
from assay.stats.bootstrap import bootstrap_ci

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


def judge_settings(identity: dict, *, swap: bool, resamples: int, seed: int, min_kappa: float,
                   min_slice_agreement: float) -> dict:
    """Everything besides prompt and labels that a calibration record depends on."""
    return {"judge": dict(identity), "swap": bool(swap), "bootstrap_resamples": int(resamples), "seed": int(seed),
            "min_kappa": float(min_kappa), "min_slice_agreement": float(min_slice_agreement)}


def settings_hash(settings: dict) -> str:
    """SHA-256 of the settings as sorted-key compact JSON."""
    text = json.dumps(settings, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _slices(keys: Sequence[str], hits: Sequence[bool]) -> dict[str, dict]:
    correct, total = Counter(), Counter()
    for key, hit in zip(keys, hits):
        total[key] += 1
        correct[key] += hit
    return {k: {"correct": correct[k], "n": total[k], "agreement": correct[k] / total[k]} for k in sorted(total)}


def _error_shape(pairs: Sequence[Pair], labels: Sequence[str]) -> dict[str, int]:
    shape = dict.fromkeys(ERROR_SHAPES, 0)
    for pair, label in zip(pairs, labels):
        if label == pair.final:
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


def usability(record: dict, min_kappa: float, min_slice_agreement: float) -> list[str]:
    """Reasons to reject the judge (empty when usable), for example ``["kappa 0.456 < 0.6",
    "slice self 0/6 < 0.6"]``. Undefined kappa or no pairs are reasons too."""
    if record["n"] == 0:
        return ["no pairs to calibrate on"]
    kappa = record["kappa"]
    reasons = []
    if kappa is None or math.isnan(kappa):
        reasons.append("kappa undefined (one label everywhere on both sides)")
    elif kappa < min_kappa:
        reasons.append(f"kappa {kappa:.3f} < {min_kappa:g}")
    for kind, s in record["by_kind"].items():
        if s["agreement"] < min_slice_agreement:
            reasons.append(f"slice {kind} {s['correct']}/{s['n']} < {min_slice_agreement:g}")
    return reasons


@dataclass(frozen=True)
class CalibrationRun:
    """A calibration record plus the judge label of every pair (in input order), for the reports."""

    record: dict
    labels: list[str]


def calibration_run(pairs: Sequence[Pair], judge: Judge, prompt, swap: bool = True, resamples: int = 2000,
                    seed: int = 0, min_kappa: float = 0.6, min_slice_agreement: float = 0.6,
                    labels_sha: str | None = None) -> CalibrationRun:
    """Judge every pair (both orders with ``swap``) and compare with the final human label.

    See :func:`calibrate` for the record. ``labels_sha`` skips recomputing :func:`labels_hash`
    when the caller already has it.
    """
    from assay.stats.agreement import confusion, kappa

    # settings come from the identity before judging: what params alone determine. A real judge may
    # add what the server reported (the model version) to its identity afterwards; that is kept in
    # record["judge"] but not hashed, so `assay calibration-status` can recompute the hash offline.
    settings = judge_settings(judge.identity, swap=swap, resamples=resamples, seed=seed, min_kappa=min_kappa,
                              min_slice_agreement=min_slice_agreement)
    results = judge_pairs(judge, pairs, prompt, swap)
    labels = [r.label for r in results]
    finals = [p.final for p in pairs]
    hits = [j == f for j, f in zip(labels, finals)]
    n = len(pairs)
    low, high = bootstrap_ci(hits, resamples=resamples, seed=seed)
    labels_sha = labels_sha or labels_hash(pairs)
    settings_sha = settings_hash(settings)
    record = {
        "n": n,
        "agreement": sum(hits) / n if n else math.nan,
        "agreement_ci_low": low,
        "agreement_ci_high": high,
        "kappa": kappa(finals, labels, labels=LABELS) if n else math.nan,
        "confusion": confusion(finals, labels, labels=LABELS),
        "by_kind": _slices([p.kind for p in pairs], hits),
        "by_lang": _slices([p.lang for p in pairs], hits),
        "errors": _error_shape(pairs, labels),
        "order_disagreements": sum(r.order_disagreement for r in results),
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
    reasons = usability(record, min_kappa, min_slice_agreement)
    record["usable"] = 0 if reasons else 1
    record["reasons"] = reasons
    return CalibrationRun(record, labels)


def calibrate(pairs: Sequence[Pair], judge: Judge, prompt, swap: bool = True, resamples: int = 2000, seed: int = 0,
              min_kappa: float = 0.6, min_slice_agreement: float = 0.6) -> dict:
    """The calibration record of ``judge`` with ``prompt`` against the pairs' final labels.

    Returns a dict with:
        ``n``; ``agreement`` (share of pairs where the judge label equals ``final``; nan for no
        pairs) and its percentile-bootstrap 95% interval ``agreement_ci_low``/``high``
        (``resamples`` resamples, ``seed``); ``kappa`` (Cohen's, final vs judge; nan when
        undefined); ``confusion`` (human rows x judge columns over a, b, tie); ``by_kind`` and
        ``by_lang`` (``{slice: {"correct", "n", "agreement"}}``); ``errors`` (wrong decisive picks
        and their shape: picked the longer answer, the one shown first in the (a, b) order, the
        uncited one, the one in the judge's own style; plus ``missed_decisive``, a judge tie where
        people decided); ``order_disagreements``; ``invalid``/``refused``/``failed`` verdict counts;
        ``swap``; provenance: ``prompt`` {name, version, sha}, ``labels_hash``, ``judge``
        (identity), ``settings`` and ``judge_settings_hash``, ``assay_version`` and ``inputs`` (the
        three hashes by name); ``usable`` (1/0)
        and ``reasons`` (a list: use :func:`outputs` for the metrics and provenance files).
    """
    return calibration_run(pairs, judge, prompt, swap, resamples, seed, min_kappa, min_slice_agreement).record


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
                      settings={k: record[k] for k in IDENTITY_KEYS}, details={"reasons": record["reasons"]})
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
            for p, label in zip(pairs, labels)]


def _pct(x: float) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def report_markdown(record: dict) -> str:
    """A one-page Markdown summary of a calibration record."""
    p, j = record["prompt"], record["judge"]
    judge_name = ", ".join(f"{k}={v}" for k, v in j.items())
    lines = [
        "# Judge calibration",
        "",
        f"Judge: {judge_name}. Prompt {p['name']} v{p['version']} (sha {p['sha'][:10]}). "
        f"Labels {record['labels_hash'][:10]}. Both orders: {'yes' if record['swap'] else 'no'}.",
        "",
        f"**{'Usable' if record['usable'] else 'Not usable'}.**"
        + ("" if record["usable"] else " Reasons: " + "; ".join(record["reasons"]) + "."),
        "",
        "## Totals",
        "",
        f"- pairs: {record['n']}",
        f"- agreement with the final human label: {_pct(record['agreement'])} "
        f"(95% bootstrap interval {_pct(record['agreement_ci_low'])} to {_pct(record['agreement_ci_high'])}, "
        f"n = {record['n']})",
        f"- Cohen's kappa: {_pct(record['kappa'])}",
        f"- order disagreements (a flip between the two orders, scored as tie): {record['order_disagreements']}",
        f"- verdicts not ok: invalid {record['invalid']}, refused {record['refused']}, failed {record['failed']}",
        "",
        "## Confusion (human rows, judge columns)",
        "",
        "| human \\ judge | " + " | ".join(LABELS) + " |",
        "|---|" + "---:|" * len(LABELS),
    ]
    lines += [f"| {h} | " + " | ".join(str(record["confusion"][h][c]) for c in LABELS) + " |" for h in LABELS]
    for title, key in (("By kind", "by_kind"), ("By language", "by_lang")):
        lines += ["", f"## {title}", "", "| slice | correct | n | agreement |", "|---|---:|---:|---:|"]
        lines += [f"| {k} | {s['correct']} | {s['n']} | {_pct(s['agreement'])} |" for k, s in record[key].items()]
    e = record["errors"]
    lines += [
        "", "## Shape of the errors", "",
        f"Of {e['wrong_decisive']} wrong decisive picks: {e['picked_longer']} picked the longer answer, "
        f"{e['picked_first']} the answer shown first in the (a, b) order, {e['picked_uncited']} the uncited one, "
        f"{e['picked_own_style']} the one in the judge's own style. "
        f"The judge said tie on {e['missed_decisive']} pairs people decided.",
        "",
        "Agreement with these labels on these kinds of pairs is all this shows: not correctness, and "
        "not behaviour on other kinds, languages or domains. Slices of a few pairs are weak evidence.",
    ]
    return "\n".join(lines) + "\n"
