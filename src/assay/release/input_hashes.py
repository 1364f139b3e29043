"""Current hashes of the pipeline's inputs, by the names provenance files record them under.

Provenance files carry ``inputs: {name: hash}``; the gate recomputes each named input here and calls
a stage's outputs stale when any differs. Each value is a function so only the inputs some
provenance file names are hashed, once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.core.io import read_yaml, sha256_file, sha256_tree
from assay.core.paths import InputPaths
from assay.queue.snapshot import SNAPSHOT_DIR

SPLIT_TABLE = "data/derived/split.parquet"


def current_inputs(root: str | Path = ".", params_file: str = "params.yaml") -> dict[str, Callable[[], str]]:
    """``{input name: () -> current hash}`` for the inputs assay's stages record.

    Names: ``plan``, ``cases_file``, ``corpus``, ``sources``, ``pairs``, ``guidelines`` (file and tree
    SHA-256 at the ``inputs`` paths of params.yaml), ``cases`` (the order-independent dataset hash,
    which needs the cases to validate), ``split`` (the split table), ``run_<version>`` (each run
    table) and ``evaluate_<version>:answers`` (an answers-file version's file, which DVC does not
    track because a ``foreach`` stage cannot list it) and ``review_<name>:snapshot`` (each review
    snapshot in ``review.snapshots``, data/reviews/NAME.jsonl). A missing file raises ``OSError`` or an
    :class:`~assay.core.errors.AssayError`; the gate counts it as changed.
    """
    base = Path(root)
    params = read_yaml(base / params_file) or {}
    paths = InputPaths.model_validate(params.get("inputs") or {})

    def dataset() -> str:
        from assay.data.cases import dataset_hash, load_cases

        return dataset_hash(load_cases(base / paths.cases))

    inputs = {
        "plan": lambda: sha256_file(base / paths.plan),
        "cases_file": lambda: sha256_file(base / paths.cases),
        "corpus": lambda: sha256_tree(base / paths.corpus),
        "sources": lambda: sha256_tree(base / paths.sources),
        "pairs": lambda: sha256_file(base / paths.pairs),
        "guidelines": lambda: sha256_file(base / paths.guidelines),
        "split": lambda: sha256_file(base / SPLIT_TABLE),
        "cases": dataset,
    }
    versions = (params.get("rag") or {}).get("versions") or {}
    for name, settings in versions.items():
        inputs[f"run_{name}"] = lambda n=name: sha256_file(base / "data/derived/runs" / f"{n}.parquet")
        if (settings or {}).get("answers"):
            inputs[f"evaluate_{name}:answers"] = lambda a=settings["answers"]: sha256_file(base / a)
    for name in (params.get("review") or {}).get("snapshots") or []:
        inputs[f"review_{name}:snapshot"] = lambda n=name: sha256_file(base / SNAPSHOT_DIR / f"{n}.jsonl")
    return inputs
