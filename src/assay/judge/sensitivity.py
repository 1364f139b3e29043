"""Prompt-wording sensitivity: does the same judge label the same pairs differently under two wordings?

A judge that reads the answers should give the same labels when only the rubric's wording changes;
one that changes its mind is reading the wording. :func:`wording_sensitivity` labels every pair
under two prompt versions with one judge and reports the observed agreement between the two label
lists, their confusion, the pairs that changed, and the invalid/refused/failed counts under each
prompt. Stability is counted only over the pairs whose every verdict was ok under both wordings:
an unparseable reply is scored as a tie, and two unparseable replies would otherwise "agree".
The number of such pairs is reported next to the figure; with none, the figure is nan with the
reason "no valid replies". The fake judge does not read the prompt, so with it the agreement is
1 by construction.

Ties carry agreement cheaply: a judge that picks the answer shown first in both orders turns every
pair into an order flip, hence a tie, under any wording, and "agrees" with itself without reading a
word. The report counts the pairs that are ``tie`` under both wordings (``tie_agreements``) and its
reading (:func:`stability_reading`) says the agreement is carried by ties when they are more than
half of the agreeing pairs, or that it is little better than chance when kappa is undefined or
below :data:`SLIGHT_KAPPA`; only otherwise does it say the labels held.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from assay.core.fmt import md_words
from assay.stats.agreement import contingency
from assay.judge.base import STATUSES, JSONObject, Judge, JudgeIdentity
from assay.judge.orders import judge_pairs, status_counts
from assay.data.pairs import LABELS, Pair

if TYPE_CHECKING:
    from assay.artifacts.judge import SensitivityMetrics
    from assay.artifacts.provenance import Provenance
    from assay.judge.prompts import PromptVersion

NO_PAIRS = "no pairs"
NO_VALID = "no valid replies"
#: Below this kappa the agreement is little better than chance ("slight" on Landis and Koch's scale).
SLIGHT_KAPPA = 0.2


def _prompt_record(prompt: PromptVersion) -> JSONObject:
    return {k: getattr(prompt, k, None) for k in ("name", "version", "sha")}


class LabelChange(BaseModel):
    """A pair whose label changed with the wording: its id and its label under prompt ``a`` and ``b``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    a: Literal["a", "b", "tie"]
    b: Literal["a", "b", "tie"]


@dataclass(frozen=True)
class SensitivityReport:
    """One judge's labels of the same pairs under two prompt versions, compared (see :func:`wording_sensitivity`)."""

    n: int
    n_valid: int
    swap: bool
    judge: JudgeIdentity
    prompts: dict[str, JSONObject]
    agreement: float
    agreement_undefined: str | None
    kappa: float
    kappa_undefined: str | None
    confusion: dict[str, dict[str, int]]
    statuses: dict[str, dict[str, int]]
    order_disagreements: dict[str, int]
    changed: list[LabelChange]
    not_valid: list[str]
    tie_agreements: int


def wording_sensitivity(judge: Judge, pairs: list[Pair], prompt_a: PromptVersion, prompt_b: PromptVersion,
                        swap: bool = True) -> SensitivityReport:
    """Compare the labels one judge gives the same pairs under two prompt versions.

    Args:
        judge: any :class:`~assay.judge.base.Judge`.
        pairs: the labelled pairs (their human labels are not used here).
        prompt_a, prompt_b: two prompt versions (``assay.judge.prompts.PromptVersion``).
        swap: judge both orders and count an order flip as a tie (``assay.judge.orders.judge_pairs``).

    Returns:
        A :class:`SensitivityReport`: ``n`` (all pairs); ``n_valid`` (pairs whose every verdict was ok under both
        wordings: the only pairs the figures below count); ``swap``; ``judge`` (identity);
        ``prompts`` (name, version, sha of ``a`` and ``b``); ``agreement`` (observed: share of the
        valid pairs with the same label under both) with ``agreement_undefined`` (``"no pairs"``,
        ``"no valid replies"`` when ``n_valid`` is 0 and the agreement is nan, else ``None``);
        ``kappa`` (Cohen's, the same agreement corrected for chance, from
        :mod:`assay.stats.agreement`) with ``kappa_undefined`` giving the reason when it is nan,
        else ``None``; ``confusion`` (valid pairs; rows: label under prompt a, columns: label under
        prompt b, every label present); ``statuses`` (per prompt, verdict counts by status, one per
        request, so ``2 n`` with ``swap``); ``order_disagreements`` (per prompt, pairs whose two ok
        verdicts named different answers); ``changed`` (id and both labels of every valid pair
        whose label changed, sorted by id); ``not_valid`` (ids of the pairs left out, sorted);
        ``tie_agreements`` (valid pairs labelled ``tie`` under both wordings).

    >>> from assay.judge.base import Verdict
    >>> class Always:
    ...     identity = {"kind": "always-first"}
    ...     def judge_many(self, items, prompt): return [Verdict("first") for _ in items]
    >>> p = Pair(id="p1", case_question="q", facts=[], a="x", b="y", kind="tie", lang="en",
    ...          ann1="tie", ann2="tie", final="tie")
    >>> r = wording_sensitivity(Always(), [p], "v1", "v2", swap=False)
    >>> r.agreement, r.n_valid, r.confusion["a"]["a"]
    (1.0, 1, 1)
    """
    results_a = judge_pairs(judge, pairs, prompt_a, swap)
    results_b = judge_pairs(judge, pairs, prompt_b, swap)
    valid = [all(s == "ok" for s in (*x.statuses, *y.statuses)) for x, y in zip(results_a, results_b, strict=True)]
    kept = [(p, x.label, y.label) for p, x, y, ok in zip(pairs, results_a, results_b, valid, strict=True) if ok]
    table = contingency([x for _, x, _ in kept], [y for _, _, y in kept], LABELS)
    undefined = NO_PAIRS if not pairs else NO_VALID if not kept else None
    return SensitivityReport(
        n=len(pairs),
        n_valid=table.n,
        swap=swap,
        judge=judge.identity,
        prompts={"a": _prompt_record(prompt_a), "b": _prompt_record(prompt_b)},
        agreement=table.observed(),
        agreement_undefined=undefined,
        kappa=table.kappa(),
        kappa_undefined=undefined or table.undefined(),
        confusion=table.confusion(),
        statuses={"a": status_counts(results_a, STATUSES), "b": status_counts(results_b, STATUSES)},
        order_disagreements={"a": sum(r.order_disagreement for r in results_a),
                             "b": sum(r.order_disagreement for r in results_b)},
        changed=sorted((LabelChange(id=p.id, a=x, b=y) for p, x, y in kept if x != y), key=lambda row: row.id),
        not_valid=sorted(p.id for p, ok in zip(pairs, valid, strict=True) if not ok),
        tie_agreements=table.confusion()["tie"]["tie"],
    )


def outputs(report: SensitivityReport, **inputs: str) -> tuple[SensitivityMetrics, Provenance]:
    """Split a report into its numbers (metrics/sensitivity.json) and its provenance.

    The provenance ``settings`` hold ``judge``, ``prompts`` and ``swap``; its ``details`` hold
    ``kappa_undefined`` and the ``changed`` pairs. ``inputs`` are the input hashes by name.
    """
    from assay.artifacts.judge import SensitivityMetrics
    from assay.artifacts.provenance import provenance

    r = report
    numbers = SensitivityMetrics(n=r.n, n_valid=r.n_valid, agreement=r.agreement, kappa=r.kappa, confusion=r.confusion,
                                 statuses=r.statuses, order_disagreements=r.order_disagreements,
                                 tie_agreements=r.tie_agreements)
    return numbers, provenance(
        settings={"judge": r.judge, "prompts": r.prompts, "swap": r.swap},
        details={"kappa_undefined": r.kappa_undefined, "agreement_undefined": r.agreement_undefined,
                 "changed": [c.model_dump() for c in r.changed], "not_valid": r.not_valid}, **inputs)


def stability_reading(report: SensitivityReport) -> str:
    """What the agreement between the wordings shows, in words that match kappa and the ties.

    Edge cases: no valid pairs says so; ties that are more than half of the agreeing pairs are named
    as carrying the agreement (whatever kappa is); kappa undefined or below :data:`SLIGHT_KAPPA`
    says the agreement is little better than chance; otherwise the labels held.
    """
    if report.agreement_undefined:
        return f"Nothing to read: {report.agreement_undefined}."
    agreeing = report.n_valid - len(report.changed)
    ties = report.tie_agreements
    if agreeing and ties * 2 > agreeing:
        return (f"The agreement is carried by ties: {ties} of the {agreeing} pairs labelled alike are tie under both "
                "wordings (an order flip is scored as a tie, so a judge that picks the answer shown first in both "
                "orders agrees with itself without reading the answers). This does not show that the judge reads "
                "the answers; see the order disagreements below and in the calibration report.")
    if report.kappa_undefined or report.kappa < SLIGHT_KAPPA:
        kappa = report.kappa_undefined or f"{report.kappa:.3f}"
        return (f"Kappa is {kappa}: the labels agree little more than chance would, so the agreement "
                f"{report.agreement:.3f} does not show that the labels held.")
    return (f"The labels held under both wordings beyond chance (kappa {report.kappa:.3f}), with {ties} of the "
            f"{agreeing} pairs labelled alike being ties.")


def sensitivity_markdown(report: SensitivityReport) -> str:
    """The wording-sensitivity report as a page a person reads."""
    a, b = report.prompts["a"], report.prompts["b"]
    kappa = "undefined (" + report.kappa_undefined + ")" if report.kappa_undefined else f"{report.kappa:.3f}"
    if report.agreement_undefined:
        stability = f"- Agreement between the two label lists: {report.agreement_undefined}."
    else:
        stability = (f"- Agreement between the two label lists: {report.agreement:.3f} over the {report.n_valid} "
                     f"of {report.n} pairs with valid replies under both wordings; kappa {kappa}.")
    lines = [f"# Prompt-wording sensitivity: v{a['version']} vs v{b['version']}", "",
             f"The same judge labelled {report.n} pairs under two wordings of the rubric "
             f"(v{a['version']} sha {str(a['sha'])[:10]}, v{b['version']} sha {str(b['sha'])[:10]}; both orders: {report.swap}).", "",
             stability,
             f"- Reading: {stability_reading(report)}",
             f"- Pairs left out because a reply was not ok under either wording: {len(report.not_valid)}.",
             f"- Labels that changed with the wording: {len(report.changed)}.", "",
             "| prompt | ok | invalid | refused | failed | order disagreements |", "|---|---:|---:|---:|---:|---:|"]
    for side, p in (("a", a), ("b", b)):
        st = report.statuses[side]
        lines.append(f"| v{p['version']} | {st['ok']} | {st['invalid']} | {st['refused']} | {st['failed']} | "
                     f"{report.order_disagreements[side]} |")
    lines += ["", "A judge that reads the answers gives the same decisive labels under both wordings; one that changes its "
              "mind is reading the wording, and one whose agreement is all ties may be reading neither. "
              "The fake judge does not read prompts, so with it agreement is 1 by construction: "
              "measure a real judge (judge.kind: openai).", ""]
    if report.changed:
        lines += ["| pair | label under a | label under b |", "|---|---|---|"]
        lines += [f"| {md_words(r.id)} | {md_words(r.a)} | {md_words(r.b)} |" for r in report.changed]
    return "\n".join(lines) + "\n"
