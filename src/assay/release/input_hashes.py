"""Current hashes of the pipeline's inputs, by the names provenance files record them under.

Provenance files carry ``inputs: {name: hash}``; the gate recomputes each named input here and calls
a stage's outputs stale when any differs. Each value is a function so only the inputs some
provenance file names are hashed, once.

Two inputs are hashes of validated content, not of bytes: ``labels`` (the label set, from the
pairs file) and ``cases`` (the dataset, from the cases file). Computing them validates every row
again, most of the gate's time on a large project. :func:`recorded_first` avoids it when a
provenance file records such a hash beside the SHA-256 of the file it came from
(:data:`DERIVED`): when that file's bytes hash the same now, the content hash is the one recorded
(the stage derived it from these very bytes), so the file is hashed but not parsed. A file whose
bytes changed is always parsed again; so is one no provenance pairs with its content hash.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache, partial
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


#: Content hashes and the input whose bytes they are computed from (validation aside, nothing else).
DERIVED: dict[str, str] = {"labels": "pairs", "cases": "cases_file"}


def recorded_first(recorded: Mapping[str, Mapping[str, str]], current: Mapping[str, Callable[[], str]],
                   derived: Mapping[str, str] = DERIVED) -> dict[str, Callable[[], str]]:
    """``current`` with every function computed at most once and content hashes taken from the records where they can be.

    For each content hash ``d`` of ``derived`` (source ``s``): every provenance in ``recorded``
    (output name -> ``{input name: hash}``) that records both ``d`` and ``s``, with ``s`` equal to
    its current hash, says what ``d`` is now. When they all say the same, ``d`` is that value and
    its function is not called; when none does, or two disagree (an edited record), ``d`` is
    computed as before. A source's function is called only when some record pairs it with ``d``.

    >>> calls = []
    >>> now = {"pairs": lambda: "p1", "labels": lambda: calls.append("parsed") or "L2"}
    >>> fast = recorded_first({"probe": {"pairs": "p1", "labels": "L1"}, "calibrate": {"labels": "L1"}}, now)
    >>> fast["labels"](), calls  # the bytes are as recorded: the recorded content hash, nothing parsed
    ('L1', [])
    >>> recorded_first({"probe": {"pairs": "p0", "labels": "L1"}}, now)["labels"](), calls  # bytes changed
    ('L2', ['parsed'])
    """
    out: dict[str, Callable[[], str]] = {name: cache(fn) for name, fn in current.items()}
    for d, s in derived.items():
        if d not in out or s not in out:
            continue
        said = {inputs[d] for inputs in recorded.values() if d in inputs and s in inputs and out[s]() == inputs[s]}
        if len(said) == 1:
            out[d] = _constant(said.pop())
    return out


def _constant(value: str) -> Callable[[], str]:
    return lambda: value
