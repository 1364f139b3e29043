"""Current hashes of the pipeline's inputs, by the names metrics files record them under.

Metrics files carry ``inputs: {name: hash}``; the gate recomputes each named input here and calls a
metrics file stale when any differs. Each value is a function so only the inputs a metrics file
names are hashed, once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.io import read_yaml, sha256_file, sha256_tree

CASES, CORPUS = "data/cases.jsonl", "data/corpus"


def current_inputs(root: str | Path = ".", params_file: str = "params.yaml") -> dict[str, Callable[[], str]]:
    """``{input name: () -> current hash}`` for the inputs assay's stages record.

    Names: ``plan``, ``cases_file``, ``corpus``, ``sources``, ``pairs`` (file and tree SHA-256) and
    ``cases`` (the order-independent dataset hash, which needs the cases to validate). Paths come
    from params.yaml where a stage reads them from there.
    """
    base = Path(root)
    params = read_yaml(base / params_file) or {}
    plan = params.get("plan", {}).get("path", "data/plan.yaml")
    sources = params.get("leakage", {}).get("sources", "data/sources")
    pairs = params.get("agreement", {}).get("pairs", "data/pairs.jsonl")

    def dataset() -> str:
        from assay.dataset import dataset_hash, load_cases

        return dataset_hash(load_cases(base / CASES))

    return {
        "plan": lambda: sha256_file(base / plan),
        "cases_file": lambda: sha256_file(base / CASES),
        "corpus": lambda: sha256_tree(base / CORPUS),
        "sources": lambda: sha256_tree(base / sources),
        "pairs": lambda: sha256_file(base / pairs),
        "cases": dataset,
    }
