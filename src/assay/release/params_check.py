"""Checking every section of params.yaml against the model of the stage that reads it.

DVC tracks params key by key, so a misspelt key (``split.holdout_shares``, ``leakage.treshold``)
changes nothing DVC watches and no stage runs to refuse it. :func:`check_params` validates the
whole file regardless of what DVC thinks changed; ``assay validate params.yaml`` runs it, and so
can the gate. It reports, all in one run and each at its YAML line:

- a section no stage reads (with the closest known section name);
- an unknown key in a section (with the closest known key and the known keys);
- every value the section's model refuses (types, ranges, required keys);
- ``judge.openai`` settings against :class:`~assay.judge.openai.OpenAIJudgeParams` when given
  (or when ``judge.kind`` is ``openai``);
- ``compare.baseline`` / ``compare.candidate`` naming no version in ``rag.versions``;
- ``parts`` naming an unknown part, and a section of a part that ``parts`` does not list (a part that
  is not chosen has no stage, so its settings would be silently ignored);
- ``judge.prompt_version`` or ``judge.sensitivity_versions`` naming no ``pairwise_v<N>.md`` in
  ``inputs.prompts`` (when that folder exists).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from assay.core.errors import InputError, Problem
from assay.core.io import read_yaml
from assay.pipeline.parts import PARTS, project_parts
from assay.pipeline.parts import SECTIONS as PART_OF
from assay.core.records import problems_from, unknown_name
from assay.data.leakage import LeakageParams
from assay.data.plan import PlanParams, locate
from assay.data.split import SplitParams
from assay.judge.params import JudgeParams
from assay.judge.openai import OpenAIJudgeParams
from assay.rag.compare import CompareParams, version_problems
from assay.rag.runner import RagParams
from assay.release.checks import GateParams
from assay.data.pairs import AgreementParams

from assay.core.paths import InputPaths
from assay.queue.corrected import CorrectedParams
from assay.queue.snapshot import ReviewParams
from assay.relevance.params import RelevanceParams
from assay.study.params import StudyParams

# params.yaml section -> the model of the stage (or command) that reads it

S = TypeVar("S", bound=BaseModel)

SECTIONS: dict[str, type[BaseModel]] = {
    "inputs": InputPaths,
    "plan": PlanParams,
    "split": SplitParams,
    "leakage": LeakageParams,
    "agreement": AgreementParams,
    "judge": JudgeParams,
    "rag": RagParams,
    "compare": CompareParams,
    "gate": GateParams,
    "review": ReviewParams,
    "ppi": CorrectedParams,
    "relevance": RelevanceParams,
    "study": StudyParams,
}


def _validate(model: type[BaseModel], value: object, where: str, prefix: str) -> tuple[BaseModel | None, list[Problem]]:
    try:
        return model.model_validate(value, context={"root": Path(where).parent}), []
    except ValidationError as error:
        return None, problems_from(error, where, None, model, prefix=prefix)


def _prompt_problems(judge: JudgeParams, folder: Path, shown: str, where: str) -> list[Problem]:
    """``judge.prompt_version`` and each of ``judge.sensitivity_versions`` naming no prompt file in ``inputs.prompts``."""
    if not folder.is_dir():
        return []  # a missing prompts folder is the stage's own error, with its path
    known = sorted(int(p.stem.rpartition("_v")[2]) for p in folder.glob("pairwise_v*.md") if p.stem.rpartition("_v")[2].isdigit())
    problems = []
    for field, version in [("judge.prompt_version", judge.prompt_version),
                           *((f"judge.sensitivity_versions.{i}", v) for i, v in enumerate(judge.sensitivity_versions))]:
        if version not in known:
            problems.append(Problem(where, None, field, f"{version} names no prompt: {shown}/pairwise_v{version}.md does not "
                                    f"exist (known versions: {', '.join(map(str, known)) or 'none'})",
                                    f"use one of {', '.join(map(str, known))}, or write {shown}/pairwise_v{version}.md"))
    return problems


def check_params(path: str | Path = "params.yaml") -> list[Problem]:
    """Every problem of params.yaml, each naming the dotted key, its line where found, and the fix.

    A section that is absent is validated as ``{}`` (as the stages do), so a section whose model
    has required keys (``split``, ``leakage``) is reported missing. Returns ``[]`` for a good file.
    Never raises for a bad file: a missing file or broken YAML is returned as a Problem too.
    """
    where = str(path)
    try:
        data = read_yaml(path)
    except InputError as error:
        return list(error.problems)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return [Problem(where, None, None, f"expected a mapping of sections, got {type(data).__name__}",
                        f"write one section per stage: {', '.join(SECTIONS)}")]
    problems: list[Problem] = []
    try:
        parts = project_parts(path)
    except InputError as error:
        problems += error.problems
        parts = PARTS
    problems += _section_name_problems(data, parts, where)
    valid, found = _valid_sections(data, parts, where)
    problems += found
    judge = _section(valid, "judge", JudgeParams)
    if judge is not None and (judge.openai or judge.kind == "openai"):
        problems += _validate(OpenAIJudgeParams, judge.openai or {}, where, "judge.openai")[1]
    inputs = _section(valid, "inputs", InputPaths)
    if judge is not None and inputs is not None:
        problems += _prompt_problems(judge, Path(path).parent / inputs.prompts, inputs.prompts, where)
    rag, compare = _section(valid, "rag", RagParams), _section(valid, "compare", CompareParams)
    if compare is not None and isinstance(data.get("rag"), dict):
        versions = rag.versions if rag is not None else data["rag"].get("versions")
        if isinstance(versions, dict):
            problems += version_problems(compare, versions, where)
    return [locate(p, Path(path)) for p in problems]


def _section_name_problems(data: dict, parts: Collection[str], where: str) -> list[Problem]:
    """Sections of a part ``parts`` does not list, and names that are no section."""
    problems = []
    for name in data:
        if name == "parts":
            continue
        if name in SECTIONS and PART_OF[name] not in parts:
            problems.append(Problem(where, None, str(name), f"section of part {PART_OF[name]}, which parts does not list",
                                    f"add {PART_OF[name]} to parts (`assay add {PART_OF[name]}`) or delete the section"))
        elif name not in SECTIONS:
            message, fix = unknown_name(str(name), [*SECTIONS, "parts"], what="section")
            problems.append(Problem(where, None, str(name), message, fix))
    return problems


def _valid_sections(data: dict, parts: Collection[str], where: str) -> tuple[dict[str, BaseModel], list[Problem]]:
    """Each section of a listed part validated (absent as ``{}``): the valid ones by name, and the problems."""
    problems: list[Problem] = []
    valid: dict[str, BaseModel] = {}
    for name, model in SECTIONS.items():
        if PART_OF[name] not in parts:
            continue
        section = data.get(name)
        if section is not None and not isinstance(section, dict):
            problems.append(Problem(where, None, name, f"expected a mapping, got {type(section).__name__}",
                                    f"write the {name} settings as 'key: value' lines under '{name}:'"))
            continue
        record, found = _validate(model, section or {}, where, name)
        problems += found
        if record is not None:
            valid[name] = record
    return valid, problems


def _section(valid: dict[str, BaseModel], name: str, model: type[S]) -> S | None:
    """The section ``name`` as validated (``SECTIONS[name]`` is ``model``); ``None`` when absent or invalid."""
    record = valid.get(name)
    return record if isinstance(record, model) else None
