"""A help desk in seven languages outside en/bn, end to end: `assay init`, its own cases, corpus, sources and
labelled pairs (with a pair kind of its own), then the real `dvc repro`.

Spanish, German (Latin with diacritics), Arabic, Hindi (Devanagari), Chinese, Japanese and Thai (no
spaces between words). In each language one case has a near-copy among the earlier questions (a
hand-checked leakage pair) and both cases retrieve their page first, under the reference system
(TF-IDF) and under the project's own keyword system (systems/my_rag.py). Language slices are the
data's own: seven, none of them en or bn.

Run with ``-s`` to print the per-language table: ``pytest tests/test_e2e_languages.py -s -q -n 0``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from conftest import BIN, run
from help_desk import CASES, LANGS, SOURCES, write_help_desk

def _first_retrieved(root: Path, version: str) -> dict[str, str | None]:
    table = pq.ParquetFile(root / "data" / "derived" / "runs" / f"{version}.parquet").read().to_pylist()
    return {r["id"]: (r["retrieved"] or [None])[0] for r in table}


@pytest.mark.e2e
def test_a_help_desk_in_seven_languages_runs_end_to_end(tmp_path):
    root = tmp_path / "desk"
    run([str(BIN / "assay"), "init", str(root), "--parts", "core,judge"], tmp_path)
    write_help_desk(root)
    run([str(BIN / "assay"), "validate", "data/cases.jsonl"], root)
    run([str(BIN / "assay"), "validate", "data/pairs.jsonl"], root)
    run([str(BIN / "dvc"), "repro", "-q"], root)

    leakage = json.loads((root / "reports" / "leakage.json").read_text(encoding="utf-8"))
    found = {m["case"]: (m["line"], m["score"]) for m in leakage["sources"] if m["source"] == "earlier_questions"}
    assert set(found) == {cid for cid, _, _ in SOURCES}  # one per language, and nothing else
    for line, (cid, _, score) in enumerate(SOURCES, start=1):
        assert found[cid] == (line, pytest.approx(score, abs=1e-4)), cid
    assert leakage["dev_holdout"] == []  # the two questions of a language share few words

    hits = {version: _first_retrieved(root, version) for version in ("baseline", "mine")}
    for version, first in hits.items():
        assert first == {cid: doc for cid, (_, _, doc, _) in CASES.items()}, version

    dataset = json.loads((root / "metrics" / "dataset.json").read_text(encoding="utf-8"))
    assert dataset["by_lang"] == dict.fromkeys(LANGS, 2)
    coverage = (root / "reports" / "coverage.md").read_text(encoding="utf-8")
    assert "Languages: ar 2, de 2, es 2, hi 2, ja 2, th 2, zh-Hans 2" in coverage  # ties by tag
    for version in ("baseline", "mine"):
        rag = json.loads((root / "metrics" / "rag" / f"{version}.json").read_text(encoding="utf-8"))
        assert set(rag["dev"]["by_lang"]) == set(rag["holdout"]["by_lang"]) == set(LANGS)
    calibration = json.loads((root / "metrics" / "calibration.json").read_text(encoding="utf-8"))
    assert set(calibration["by_lang"]) == set(LANGS) and set(calibration["by_kind"]) == {"clear", "refusal"}
    summary = run([str(BIN / "assay"), "summary"], root).stdout
    assert "cases        14 (2 ar, 2 de, 2 es, 2 hi, 2 ja, 2 th, 2 zh-Hans)" in summary
    gate = run([str(BIN / "assay"), "gate"], root, check=False)
    assert gate.returncode in (0, 1), gate.stdout + gate.stderr

    print("\nlang     leakage (case, source line, Jaccard)   first retrieved: baseline / mine")
    for lang in LANGS:
        leak = [f"{cid} line {found[cid][0]} {found[cid][1]:.4f}" for cid, *_ in SOURCES if CASES[cid][0] == lang]
        for cid in (c for c, v in CASES.items() if v[0] == lang):
            mark = "hit" if hits["baseline"][cid] == hits["mine"][cid] == CASES[cid][2] else "MISS"
            print(f"{lang:8} {(leak.pop() if leak else ''):38} {cid}: {hits['baseline'][cid]} / {hits['mine'][cid]} {mark}")
    assert yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))["agreement"]["kinds"] == ["clear", "refusal"]
