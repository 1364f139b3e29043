"""The parts a project may use, and which one a params.yaml chooses.

``core`` (plan, cases, split, leakage, versions, comparison, release gate) is always there; the others
are chosen: ``judge`` (two-annotator agreement, the judge, bias probes, calibration, sensitivity),
``queue`` (review snapshots, training export), ``retrieval`` (retrieval modes, IR metrics) and
``study`` (the human relevance study, which pools the retrieval modes and so needs ``retrieval``).
A part that is not chosen has no stage, no params section and no gate row.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from assay.core.errors import InputError, Problem

PARTS: tuple[str, ...] = ("core", "judge", "queue", "retrieval", "study")
DEFAULT_PARTS: tuple[str, ...] = ("core", "judge")
#: part -> the parts it cannot run without (added for the user, with a note)
REQUIRES: dict[str, tuple[str, ...]] = {"study": ("retrieval",)}
#: one line each, for ``assay init --help`` and the generated README
DESCRIPTIONS: dict[str, str] = {
    "core": "plan, cases, split, leakage, RAG versions, paired comparison, release gate (always)",
    "judge": "two-annotator agreement, LLM judge, bias probes, calibration, prompt sensitivity",
    "queue": "blind review snapshots and their agreement with the judge, SFT/DPO export",
    "retrieval": "retrieval modes over one corpus and trec_eval-style IR metrics",
    "study": "the human relevance study of retrieval modes (needs retrieval); its own verdict",
}
#: params.yaml sections, by the part that owns them (``inputs`` and ``parts`` belong to every project)
SECTIONS: dict[str, str] = {
    "inputs": "core", "plan": "core", "split": "core", "leakage": "core", "rag": "core", "compare": "core",
    "gate": "core", "agreement": "judge", "judge": "judge", "review": "queue", "ppi": "queue", "relevance": "retrieval",
    "study": "study",
}


def resolve_parts(names: Iterable[str], where: str = "--parts") -> tuple[str, ...]:
    """The parts to use, in canonical order: ``core`` always, plus what the chosen parts require.

    >>> resolve_parts(["study"])
    ('core', 'retrieval', 'study')
    >>> resolve_parts([])
    ('core',)

    Raises:
        InputError: a name that is not a part (the message lists the parts).
    """
    chosen = {n.strip() for n in names if n.strip()}
    unknown = sorted(chosen - set(PARTS))
    if unknown:
        raise InputError([Problem(where, None, "parts", f"{', '.join(map(repr, unknown))} is not a part",
                                  f"choose from {', '.join(PARTS)}")])
    chosen.add("core")
    for part in list(chosen):
        chosen.update(REQUIRES.get(part, ()))
    return tuple(p for p in PARTS if p in chosen)


def project_parts(params_file: str | Path = "params.yaml") -> tuple[str, ...]:
    """The parts ``params_file`` lists under ``parts``; every part when the key is absent.

    A project made before parts existed ran every stage, so an absent key keeps that meaning.

    Raises:
        InputError: ``parts`` is not a list of part names.
    """
    from assay.core.io import read_yaml

    data = read_yaml(params_file) or {}
    if not isinstance(data, dict) or "parts" not in data:
        return PARTS
    value = data["parts"]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError([Problem(str(params_file), None, "parts", f"{value!r} is not a list of part names",
                                  f"write for example 'parts: [core, judge]' (parts: {', '.join(PARTS)})")])
    return resolve_parts(value, str(params_file))
