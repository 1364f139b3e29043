"""The agreement receipt: how much annotators A and B agreed, recorded before any discussion.

The receipt pairs A's and B's judgments by ``(query_id, document_id)`` and records: the SHA-256 of
both judgment files, the number of pairs and of disagreements on ``relevance`` (and, in
``field_disagreements``, on each judged field: relevance, abstention_correct, the set of
acceptable_citation_ids, temporal_classification; all go to the arbiter), and two agreement
measures for the ordinal grades -1 < 0 < 1 < 2, each with its name, formula and interval:

* Krippendorff's alpha with the ordinal metric (:func:`assay.stats.reliability.ordinal_alpha`);
* Cohen's weighted kappa with quadratic weights (:func:`assay.stats.reliability.weighted_kappa`).

Interval: a percentile bootstrap over queries (every pair of a resampled query goes along, because
pairs of one query are not independent), ``resamples`` replicates from ``seed``; its coverage is
checked by simulation in the tests. The tool is assay's own implementation, named with assay's and
numpy's versions; the tests check alpha against the ``krippendorff`` package and kappa against
scikit-learn.

Edge cases: the two files must hold the same pairs (run ``assay study check`` first); a pair
in one file only is refused with the file and line. Every grade equal: both measures are nan
(null in the receipt) with the reason.

:func:`receipt_step` is stage ``study_receipt``'s work on both splits (docs/relevance-study.md,
"Compute the agreement receipt, before any discussion").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from importlib import metadata
from pathlib import Path

import numpy as np

import assay
from assay.artifacts.base import finite
from assay.core.errors import InputError, Problem
from assay.stats.reliability import cluster_bootstrap, ordinal_alpha, pair_tables, weighted_kappa
from assay.study.evidence import ANNOTATORS, RECEIPT, SPLITS, EvidenceRoot, file_hashes, judgments_name
from assay.study.formats import FIELDS, RELEVANCE, JudgmentRow, digest, field_value, read_rows
from assay.study.opening import note_sealed_read
from assay.study.params import StudyParams
from assay.study.protocol import Study
from assay.study.records import stage_record as _record

#: the grades in ordinal order (the protocol's: -1 misleading/stale, 0 no support, 1 partial, 2 direct)
ORDER: tuple[int, ...] = tuple(sorted(RELEVANCE))

#: How grade -1 is handled, said wherever the receipt's figures are shown (the evidence receipt.json
#: itself keeps its fields: the manifest hashes it).
GRADE_NOTE = ("The receipt orders grade -1 (misleading or stale) below 0 (no support), so a -1 against a 2 is a "
              "wider disagreement than a 0 against a 2; the IR measures give -1 and 0 the same gain 0 and count "
              "neither as relevant, so a -1/0 disagreement lowers these figures but changes no IR measure.")

ALPHA = "Krippendorff's alpha, ordinal metric"
ALPHA_FORMULA = ("alpha = 1 - (n - 1) * sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck; o = coincidence matrix of the "
                 "two graders, n_c its margins, n = 2 * pairs, d2_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2")
KAPPA = "Cohen's weighted kappa, quadratic weights"
KAPPA_FORMULA = ("kappa_w = 1 - N * sum_ij w_ij O_ij / sum_ij w_ij r_i c_j; O = pair counts, r and c its row "
                 "and column totals, N = pairs, w_ij = (i - j)^2 over the grades -1 < 0 < 1 < 2")


@dataclass(frozen=True)
class Paired:
    """A's and B's grades of the same pairs, in A's file order."""

    pairs: list[tuple[str, str]]
    a: list[JudgmentRow]
    b: list[JudgmentRow]

    @property
    def disagreements(self) -> list[int]:
        """Positions of the pairs whose two relevance grades differ."""
        return [i for i, (x, y) in enumerate(zip(self.a, self.b, strict=True)) if x.relevance != y.relevance]

    def disputed(self, i: int) -> dict[str, tuple[object, object]]:
        """``{field: (A's value, B's value)}`` for every judged field the two rows of pair ``i`` differ on.

        Values are compared with :func:`~assay.study.formats.field_value` (citations as sets); an
        agreed pair gives ``{}``.
        """
        x, y = self.a[i], self.b[i]
        return {f: (field_value(x, f), field_value(y, f)) for f in FIELDS if field_value(x, f) != field_value(y, f)}

    def field_disagreements(self) -> dict[str, int]:
        """Number of pairs A and B disagree on, per judged field (every field present, 0 when none)."""
        counts = dict.fromkeys(FIELDS, 0)
        for i in range(len(self.pairs)):
            for f in self.disputed(i):
                counts[f] += 1
        return counts


def pair_judgments(root: EvidenceRoot, split: str) -> Paired:
    """Read both annotators' judgments of ``split`` and pair them.

    Raises:
        InputError: a bad row, a repeated pair, or a pair judged by one annotator only (file:line).
    """
    files = {who: root.file(split, judgments_name(who)) for who in ("A", "B")}
    rows = {who: read_rows(root, path, JudgmentRow) for who, path in files.items()}
    keyed: dict[str, dict[tuple[str, str], tuple[int, JudgmentRow]]] = {}
    problems: list[Problem] = []
    for who, found in rows.items():
        keyed[who] = {}
        for line, row in found:
            key = (row.query_id, row.document_id)
            if key in keyed[who]:
                problems.append(Problem(root.show(files[who]), line, "document_id", f"pair {key} is judged twice",
                                        "run `assay study check` and return the file to its annotator"))
            keyed[who][key] = (line, row)
    for who, other in (("A", "B"), ("B", "A")):
        for key, (line, _) in keyed[who].items():
            if key not in keyed[other]:
                problems.append(Problem(root.show(files[who]), line, "document_id",
                                        f"pair {key} has no judgment from annotator {other}",
                                        "both annotators judge every packet pair; run `assay study check`"))
    if problems:
        raise InputError(problems)
    pairs = list(keyed["A"])
    return Paired(pairs, [keyed["A"][k][1] for k in pairs], [keyed["B"][k][1] for k in pairs])


def _measure(name: str, formula: str, statistic: Callable[[np.ndarray], np.ndarray], observed: np.ndarray, per_query: np.ndarray,
             resamples: int, seed: int, level: float) -> dict:
    value = float(statistic(observed))
    low, high = cluster_bootstrap(per_query, statistic, resamples, seed, level)
    return {"name": name, "formula": formula, "value": finite(value),
            "undefined": "every grade is the same: no variation to agree on beyond chance" if value != value else None,
            "interval": {"low": finite(low), "high": finite(high), "level": level,
                         "method": f"percentile bootstrap over queries, {resamples} resamples, seed {seed}"}}


def build_receipt(root: EvidenceRoot, split: str, resamples: int = 2000, seed: int = 13, level: float = 0.95) -> dict:
    """The receipt of ``split`` as a dict (not written; see :func:`write_receipt`)."""
    paired = pair_judgments(root, split)
    pos = {g: i for i, g in enumerate(ORDER)}
    a = [pos[r.relevance] for r in paired.a]
    b = [pos[r.relevance] for r in paired.b]
    queries, per_query = pair_tables([q for q, _ in paired.pairs], a, b, len(ORDER))
    observed = per_query.sum(axis=0)
    kappa = partial(weighted_kappa, weights="quadratic")
    return {
        "split": split,
        "step": "agreement receipt, computed before any discussion or reconciliation",
        "inputs": {name: digest(root, root.file(split, name)) for name in map(judgments_name, ("A", "B"))},
        "pairs": len(paired.pairs),
        "queries": len(queries),
        "disagreements": len(paired.disagreements),
        "field_disagreements": paired.field_disagreements(),
        "grades": list(ORDER),
        "pair_counts": {f"{ga}|{gb}": int(observed[i, j]) for i, ga in enumerate(ORDER) for j, gb in enumerate(ORDER)},
        "measures": [_measure(ALPHA, ALPHA_FORMULA, ordinal_alpha, observed, per_query, resamples, seed, level),
                     _measure(KAPPA, KAPPA_FORMULA, kappa, observed, per_query, resamples, seed + 1, level)],
        "tool": {"implementation": "assay.stats.reliability", "assay": assay.__version__,
                 "numpy": metadata.version("numpy")},
    }


def write_receipt(root: EvidenceRoot, split: str, receipt: dict) -> Path:
    """Write ``receipt`` to ``<root>/<split>/receipt.json`` (byte-stable JSON); return its path."""
    from assay.core.io import write_json

    path = root.file(split, RECEIPT)
    write_json(path, receipt)
    return path


def receipt_is_current(root: EvidenceRoot, split: str) -> dict:
    """The split's receipt, after checking it names the judgment files as they are now.

    Raises:
        InputError: no receipt (agreement must be recorded before the bundle), or a judgment file
            changed since the receipt (the originals must not be edited after submission).
    """
    import json

    path = root.file(split, RECEIPT)
    shown = root.show(path)
    if not path.is_file():
        raise InputError([Problem(shown, None, None, "no agreement receipt",
                                  "compute agreement before any discussion: `assay study receipt`")])
    receipt = json.loads(path.read_text(encoding="utf-8"))
    changed = [name for name, value in sorted(receipt.get("inputs", {}).items())
               if digest(root, root.file(split, name)) != value]
    if changed:
        raise InputError([Problem(shown, None, "inputs", f"{', '.join(changed)} changed since the receipt",
                                  "judgment files are never edited after submission; restore them, or start a new "
                                  "round and compute a new receipt before any discussion")])
    return receipt


def receipt_step(study: Study, root: EvidenceRoot, params: StudyParams) -> dict:
    """Compute and write each split's agreement receipt; the record holds both receipts (no raw grades)
    and, under ``grades``, how grade -1 is handled here and in the IR measures (:data:`GRADE_NOTE`)."""
    receipts = {}
    for split in SPLITS:
        for who in ANNOTATORS:
            note_sealed_read(root, split, "study_receipt", judgments_name(who))
        receipts[split] = build_receipt(root, split, params.resamples, params.seed, params.level)
        write_receipt(root, split, receipts[split])
    return _record(study, receipts=receipts, grades=GRADE_NOTE,
                   evidence=file_hashes(root, [f"{s}/{RECEIPT}" for s in SPLITS]))
