"""The leakage report: near-duplicates across the split and between the cases and every source.

Exact near-duplicates (word-set Jaccard at or above ``leakage.threshold``, see
:mod:`~assay.data.leakage.setjoin`) are the report's ``dev_holdout`` and ``sources`` lists. The
optional paraphrase detector (:mod:`~assay.data.leakage.paraphrase`) adds its own block,
``paraphrase``, with its own threshold; it lists only what the exact detector did not find, and
counts the overlap, so the two are never mixed.

Sources are streamed chunk by chunk (:mod:`~assay.data.leakage.sources`) through an engine
(:mod:`~assay.data.leakage.engine`); each chunk is joined against an index of all case questions,
and the results are sorted at the end, so the bytes do not depend on the chunk size or the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from pydantic import ConfigDict, Field

from assay.data.leakage.engine import LocalEngine
from assay.data.leakage.paraphrase import BUILTIN, load_detector
from assay.data.leakage.setjoin import build_index, near_duplicates, probe
from assay.data.leakage.sources import CHUNK_LINES, MAX_LINE_BYTES, Chunk, SourceFolder, SourceTexts
from assay.core.records import InputModel

if TYPE_CHECKING:
    import numpy as np

    from assay.data.cases import CaseRecord
    from assay.data.leakage.engine import Engine
    from assay.data.leakage.paraphrase import Matcher
    from assay.data.leakage.setjoin import PrefixIndex

#: One finding as written to the leakage report (``dev``/``holdout``/``score`` or ``case``/``source``/``line``/``score``).
Row = dict[str, Any]
#: What :func:`_join_chunk` carries back: source name, first unit, units read, the (i, j, score) arrays and the
#: paraphrase findings.
_ChunkResult = tuple[str, int, int, "np.ndarray", "np.ndarray", "np.ndarray", list[tuple[int, int, float]]]

LIMITATION = ("Word overlap finds copies and near-copies only. A paraphrase that shares few words "
              "(for example 'send the router back' and 'return the router') scores low and is not reported, "
              "and no word check can see what a hosted model saw in its training data.")


class ParaphraseParams(InputModel):
    """params.yaml ``leakage.paraphrase``: the optional second detector."""

    model_config = ConfigDict(extra="forbid")
    detector: str = BUILTIN
    threshold: float = Field(gt=0, le=1)


class LeakageParams(InputModel):
    """params.yaml section ``leakage``.

    ``chunk_lines``, ``engine`` and ``dask_scheduler`` change how the work is done, never the result.
    """

    model_config = ConfigDict(extra="forbid")
    threshold: float = Field(gt=0, le=1)
    chunk_lines: int = Field(default=CHUNK_LINES, ge=1)
    max_line_bytes: int = Field(default=MAX_LINE_BYTES, ge=1)
    engine: Literal["local", "dask"] = "local"
    dask_scheduler: str | None = None
    paraphrase: ParaphraseParams | None = None


def _join_chunk(shared: tuple[PrefixIndex, Matcher | None], chunk: Chunk) -> _ChunkResult:
    """One chunk against the cases (on a Dask worker with the dask engine); carries its place back."""
    index, matcher = shared
    i, j, s = probe(index, chunk.texts)
    return chunk.source, chunk.first, len(chunk.texts), i, j, s, matcher(chunk.texts) if matcher is not None else []


def _source_rows(cases: Sequence[CaseRecord], name: str, first: int, hits: Iterable[tuple[int, int, float]]) -> list[Row]:
    return [{"case": cases[i].id, "source": name, "line": first + j, "score": round(s, 4)} for i, j, s in hits]


def _cross_rows(dev: Sequence[CaseRecord], hold: Sequence[CaseRecord], hits: Iterable[tuple[int, int, float]]) -> list[Row]:
    return [{"dev": dev[i].id, "holdout": hold[j].id, "score": round(s, 4)} for i, j, s in hits]


def leakage_report(cases: Sequence[CaseRecord], sides: dict[str, str],
                   sources: SourceFolder | SourceTexts | Mapping[str, Sequence[str]], threshold: float, *,
                   engine: Engine | None = None, paraphrase: ParaphraseParams | None = None) -> dict[str, Any]:
    """Near-duplicates across the split and between any case and each source.

    Args:
        cases: case records (``id``, ``question``).
        sides: case id to ``"dev"`` or ``"holdout"``.
        sources: a :class:`~assay.data.leakage.sources.SourceFolder`, a
            :class:`~assay.data.leakage.sources.SourceTexts`, or a plain ``{name: texts}`` mapping.
        threshold: word-set Jaccard at or above which two texts are near-duplicates.
        engine: :class:`~assay.data.leakage.engine.LocalEngine` (default) or ``DaskEngine``.
        paraphrase: the optional second detector and its threshold; ``None`` leaves it off.

    Returns:
        ``{"dev_holdout": [{"dev", "holdout", "score"}], "sources": [{"case", "source", "line",
        "score"}], "threshold", "limitation"}`` sorted by ids; ``line`` is the 1-based unit index
        within the source (for JSONL, the n-th question). Added only when they apply: ``"warnings"``
        (an empty sources folder or source) and ``"paraphrase"`` with ``"detectors"``.

    Raises:
        InputError: a bad source line (file:line), once the reader has collected them all.
        PluginError: the paraphrase detector cannot be loaded (:func:`assay.core.plugins.load_callable`).
    """
    reader = cast("SourceFolder | SourceTexts", sources if hasattr(sources, "chunks") else SourceTexts(sources))
    engine = engine or LocalEngine()
    dev = [c for c in cases if sides[c.id] == "dev"]
    hold = [c for c in cases if sides[c.id] == "holdout"]
    dev_q, hold_q, all_q = [c.question for c in dev], [c.question for c in hold], [c.question for c in cases]
    cross = _cross_rows(dev, hold, near_duplicates(dev_q, hold_q, threshold))
    detector = load_detector(paraphrase.detector) if paraphrase else None
    shared = (build_index(all_q, threshold), detector(all_q, paraphrase.threshold) if detector and paraphrase else None)
    src: list[Row] = []
    para_src: list[Row] = []
    units: dict[str, int] = {}
    for name, first, n, i, j, s, para in engine.map(_join_chunk, shared, reader.chunks()):
        units[name] = units.get(name, 0) + n
        src += _source_rows(cases, name, first, zip(i.tolist(), j.tolist(), s.tolist(), strict=True))
        para_src += _source_rows(cases, name, first, para)
    cross.sort(key=lambda r: (r["dev"], r["holdout"]))
    src.sort(key=lambda r: (r["case"], r["source"], r["line"]))
    report = {"dev_holdout": cross, "sources": src, "threshold": threshold, "limitation": LIMITATION}
    if warnings := reader.warnings(units):
        report["warnings"] = warnings
    if paraphrase and detector:  # detector is loaded exactly when paraphrase is set
        para_cross = _cross_rows(dev, hold, detector(dev_q, paraphrase.threshold)(hold_q))
        report.update(_paraphrase_block(paraphrase, threshold, cross, src, para_cross, para_src))
    return report


def _paraphrase_block(params: ParaphraseParams, threshold: float, cross: list[Row], src: list[Row], para_cross: list[Row],
                      para_src: list[Row]) -> dict[str, Any]:
    """The paraphrase detector's findings minus the exact ones, and which detector wrote which list."""
    seen_cross = {(r["dev"], r["holdout"]) for r in cross}
    seen_src = {(r["case"], r["source"], r["line"]) for r in src}
    new_cross = [r for r in para_cross if (r["dev"], r["holdout"]) not in seen_cross]
    new_src = [r for r in para_src if (r["case"], r["source"], r["line"]) not in seen_src]
    new_cross.sort(key=lambda r: (r["dev"], r["holdout"]))
    new_src.sort(key=lambda r: (r["case"], r["source"], r["line"]))
    block = {"detector": params.detector, "threshold": params.threshold, "dev_holdout": new_cross,
             "sources": new_src, "also_exact": {"dev_holdout": len(para_cross) - len(new_cross),
                                                "sources": len(para_src) - len(new_src)}}
    detectors = {"exact": f"word-set Jaccard >= {threshold}: dev_holdout, sources",
                 "paraphrase": f"{params.detector} >= {params.threshold}: paraphrase.dev_holdout, "
                               "paraphrase.sources (pairs the exact detector did not find; "
                               "paraphrase.also_exact counts the others)"}
    return {"paraphrase": block, "detectors": detectors}


def leakage_metrics(report: dict, names: Sequence[str]) -> dict:
    """Counts for metrics/leakage.json (numbers only): hits across the split, with sources, per source."""
    by_source = {name: sum(r["source"] == name for r in report["sources"]) for name in names}
    metrics = {"dev_holdout": len(report["dev_holdout"]), "sources": len(report["sources"]),
               "by_source": by_source, "threshold": report["threshold"]}
    if "paraphrase" in report:
        p = report["paraphrase"]
        metrics["paraphrase"] = {"dev_holdout": len(p["dev_holdout"]), "sources": len(p["sources"]),
                                 "threshold": p["threshold"]}
    return metrics
