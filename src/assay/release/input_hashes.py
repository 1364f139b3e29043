"""Current hashes of the pipeline's inputs, by the names provenance files record them under.

Provenance files carry ``inputs: {name: hash}``; the gate recomputes each named input here and calls
a stage's outputs stale when any differs. Each value is a function so only the inputs some
provenance file names are hashed, once.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from assay.artifacts.registry import CALIBRATION, RUN_TABLE, SPLIT_TABLE
from assay.core.io import read_yaml, sha256_file, sha256_path, sha256_tree
from assay.core.paths import InputPaths
from assay.data.tools import CATALOGUE_PATH
from assay.queue.snapshot import SNAPSHOT_DIR

if TYPE_CHECKING:
    from assay.judge.params import JudgeParams


def current_inputs(root: str | Path = ".", params_file: str = "params.yaml") -> dict[str, Callable[[], str]]:
    """``{input name: () -> current hash}`` for the inputs assay's stages record.

    Names: ``plan``, ``cases_file``, ``corpus``, ``sources``, ``pairs``, ``guidelines``, ``tools`` (file and tree
    SHA-256 at the ``inputs`` paths of params.yaml), ``cases`` (the order-independent dataset hash,
    which needs the cases to validate), ``labels`` (the judge's label set, order-independent, see
    :func:`assay.judge.calibration.labels_hash`) and ``prompt`` (the sha of the judge prompt in use),
    from params ``judge`` and ``inputs``, both paths under ``root``, ``split`` (the split table), ``run_<version>`` (each run
    table) and ``evaluate_<version>:source`` (the file or folder a version's answers come from: an
    answers file, a callable's module, the reference system's module; see
    :class:`assay.rag.runner.VersionParams`) and ``review_<name>:snapshot`` (each review
    snapshot in ``review.snapshots`` and ``ppi.reviews``, data/reviews/NAME.jsonl) and ``judge_compare:replies``
    (the tree of the judge_compare stage's stored replies) and ``metrics/calibration.json`` (that file's
    SHA-256, which the ``ppi`` stage records: it names whether the judge is usable). A missing file raises ``OSError`` or an
    :class:`~assay.core.errors.AssayError`; the gate counts it as changed.
    """
    base = Path(root)
    params = read_yaml(base / params_file) or {}
    paths = InputPaths.model_validate(params.get("inputs") or {})

    def dataset() -> str:
        from assay.data.cases import dataset_hash, load_cases

        return dataset_hash(load_cases(base / paths.cases))

    def judge_params() -> JudgeParams:
        from assay.core.params import load_section
        from assay.judge.params import JudgeParams

        return load_section("judge", JudgeParams, base / params_file)  # InputError when the section is bad

    def labels() -> str:
        from assay.data.pairs import load_pairs, pair_kinds
        from assay.judge.calibration import labels_hash

        return labels_hash(load_pairs(base / paths.pairs, pair_kinds(base / params_file)))

    def prompt() -> str:
        from assay.judge.prompts import load_prompt

        return load_prompt(judge_params().prompt_file(base / paths.prompts)).sha

    inputs: dict[str, Callable[[], str]] = {
        "plan": lambda: sha256_file(base / paths.plan),
        "cases_file": lambda: sha256_file(base / paths.cases),
        "corpus": lambda: sha256_tree(base / paths.corpus),
        "sources": lambda: sha256_tree(base / paths.sources),
        "pairs": lambda: sha256_file(base / paths.pairs),
        "guidelines": lambda: sha256_file(base / paths.guidelines),
        "tools": lambda: sha256_file(base / str(paths.tools or CATALOGUE_PATH)),
        "split": lambda: sha256_file(SPLIT_TABLE.path(base)),
        "cases": dataset,
        "labels": labels,
        "prompt": prompt,
        CALIBRATION.relpath(): lambda: sha256_file(CALIBRATION.path(base)),
    }
    versions = (params.get("rag") or {}).get("versions") or {}
    for name, settings in versions.items():
        inputs[f"run_{name}"] = partial(sha256_file, RUN_TABLE.path(base, version=name))
        if (settings or {}).get("source"):
            inputs[f"evaluate_{name}:source"] = partial(sha256_path, base / settings["source"])
    from assay.judge.matchup import JUDGE_COMPARE_INPUT, REPLIES_DIR

    inputs[JUDGE_COMPARE_INPUT] = lambda: sha256_tree(base / REPLIES_DIR)
    reviewed = [*((params.get("review") or {}).get("snapshots") or []), *((params.get("ppi") or {}).get("reviews") or [])]
    for name in reviewed:
        inputs[f"review_{name}:snapshot"] = partial(sha256_file, base / SNAPSHOT_DIR / f"{name}.jsonl")
    return inputs
