"""Current hashes of the pipeline's inputs, by the names metrics files record them under.

Metrics files carry ``inputs: {name: hash}``; the gate recomputes each named input here and calls a
metrics file stale when any differs. Each value is a function so only the inputs a metrics file
names are hashed, once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.core.io import read_yaml, sha256_file, sha256_tree

CASES, CORPUS = "data/cases.jsonl", "data/corpus"


def current_inputs(root: str | Path = ".", params_file: str = "params.yaml") -> dict[str, Callable[[], str]]:
    """``{input name: () -> current hash}`` for the inputs assay's stages record.

    Names: ``plan``, ``cases_file``, ``corpus``, ``sources``, ``pairs``, ``guidelines`` (file and tree SHA-256),
    ``cases`` (the order-independent dataset hash, which needs the cases to validate), ``run_<version>``
    (each run table) and ``rag/<version>.json:answers`` (an answers-file version's file, which DVC
    does not track because a ``foreach`` stage cannot list it). Paths come from params.yaml where a
    stage reads them from there. A missing file raises ``OSError``; the gate counts it as changed.
    """
    base = Path(root)
    params = read_yaml(base / params_file) or {}
    plan = params.get("plan", {}).get("path", "data/plan.yaml")
    sources = params.get("leakage", {}).get("sources", "data/sources")
    pairs = params.get("agreement", {}).get("pairs", "data/pairs.jsonl")
    guidelines = params.get("agreement", {}).get("guidelines", "data/guidelines.md")

    def dataset() -> str:
        from assay.data.cases import dataset_hash, load_cases

        return dataset_hash(load_cases(base / CASES))

    inputs = {
        "plan": lambda: sha256_file(base / plan),
        "cases_file": lambda: sha256_file(base / CASES),
        "corpus": lambda: sha256_tree(base / CORPUS),
        "sources": lambda: sha256_tree(base / sources),
        "pairs": lambda: sha256_file(base / pairs),
        "guidelines": lambda: sha256_file(base / guidelines),
        "cases": dataset,
    }
    versions = (params.get("rag") or {}).get("versions") or {}
    for name, settings in versions.items():
        inputs[f"run_{name}"] = lambda n=name: sha256_file(base / "data/derived/runs" / f"{n}.parquet")
        if (settings or {}).get("answers"):
            inputs[f"rag/{name}.json:answers"] = lambda a=settings["answers"]: sha256_file(base / a)
    return inputs
