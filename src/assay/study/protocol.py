"""The study file (``data/relevance/study.yaml``): protocol version, roles, exclusions, split, pooling.

Shape::

    protocol_version: assay-relevance-study/1
    synthetic: true                      # the demo; a real study says false
    roles: {coordinator: CRD-01, annotator_a: ANN-A01, annotator_b: ANN-B01, arbiter: ARB-C01}
    excluded: [DEV-R01]                  # changed the ranking or chose the mode under test
    corpus: data/relevance/corpus.jsonl  # a path, or $ASSAY_EVIDENCE_ROOT/... for one under the root
    queries: data/relevance/queries.jsonl
    split: {holdout_share: 0.3, seed: 2026, paraphrase_threshold: 0.9}
    pooling: {k: 10, random: 5, seed: 2026}
    thresholds: data/relevance/thresholds.yaml
    demo_evidence: data/relevance/evidence.synthetic   # only with synthetic: true
    names: data/relevance/names.txt      # optional: participants' and customers' names, one a line

``names`` (optional) is the coordinator's list of the study's participants and customers, one name a
line (``#`` comments), a path inside the repository (:data:`assay.core.confinement.ProjectPath`);
the de-identification scan reports each as "possible personal name" (:func:`assay.study.scan.read_names`).

The roles validator (:func:`role_problems`) refuses, each at its YAML line:

* one pseudonym in two roles (A, B and C must be different people; the coordinator grades nothing
  but must not be A, B or C either);
* an annotator A or B, or the arbiter C, listed in ``excluded`` (a person who changed the ranking
  or chose the mode under test must not grade that comparison). The coordinator may be listed:
  the coordinator gives no grade.

Pseudonyms look like ``ANN-A01``: capital letters, a hyphen, then letters and digits
(:data:`PSEUDONYM`), so a name or an e-mail address cannot be entered by mistake.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from assay.core.confinement import ProjectPath
from assay.core.errors import InputError, Problem
from assay.core.io import read_yaml
from assay.core.records import problems_from
from assay.data.plan import locate
from assay.study.evidence import ENV, EvidenceRoot

STUDY_FILE = "data/relevance/study.yaml"
PSEUDONYM = r"^[A-Z]{2,6}-[A-Z0-9]{2,8}$"
ROLES = ("coordinator", "annotator_a", "annotator_b", "arbiter")
GRADING_ROLES = ("annotator_a", "annotator_b", "arbiter")


def _pseudonym(value: str) -> str:
    if re.fullmatch(PSEUDONYM, value) is None:
        # the value is not repeated: it may be a name or an address, which must not reach a log
        raise PydanticCustomError("pseudonym", "is not a pseudonym like ANN-A01 (value not shown)",
                                  {"fix": "use a pseudonym (capital letters, a hyphen, letters or digits); never a "
                                          "name or a contact"})
    return value


Pseudonym = Annotated[str, AfterValidator(_pseudonym)]
ROOT_PREFIX = f"${ENV}/"


class Roles(BaseModel):
    """The protocol's four roles, each one pseudonym."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    coordinator: Pseudonym
    annotator_a: Pseudonym
    annotator_b: Pseudonym
    arbiter: Pseudonym


class SplitSettings(BaseModel):
    """Development / sealed holdout by document family.

    ``seed`` salts the family hash; ``paraphrase_threshold`` is the character n-gram cosine at or
    above which two documents of different families count as paraphrases and are kept on one side.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    holdout_share: float = Field(gt=0, lt=1)
    seed: StrictInt
    paraphrase_threshold: float = Field(default=0.9, gt=0, le=1)


class PoolingSettings(BaseModel):
    """Per query: the union of every mode's top ``k`` plus ``random`` documents no mode retrieved, shuffled by ``seed``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    k: StrictInt = Field(ge=1)
    random: StrictInt = Field(ge=0)
    seed: StrictInt


class Study(BaseModel):
    """``data/relevance/study.yaml`` (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    protocol_version: str = Field(min_length=1)
    synthetic: bool
    roles: Roles
    excluded: tuple[Pseudonym, ...] = ()
    corpus: str
    queries: str
    split: SplitSettings
    pooling: PoolingSettings
    thresholds: str
    demo_evidence: str | None = None
    names: ProjectPath | None = None

    @model_validator(mode="after")
    def _demo_only_when_synthetic(self) -> Study:
        if self.demo_evidence is not None and not self.synthetic:
            raise ValueError("demo_evidence is only allowed in a synthetic study: a real study's evidence is "
                             f"named by {ENV} alone")
        return self

    def resolve(self, value: str, root: EvidenceRoot | None = None) -> Path:
        """The file a study path names: ``$ASSAY_EVIDENCE_ROOT/x`` under ``root``, anything else as written.

        Raises:
            ValueError: the path is under the evidence root and no root is given.
        """
        if value.startswith(ROOT_PREFIX):
            if root is None:
                raise ValueError(f"{value} needs the evidence root")
            return root.path / value[len(ROOT_PREFIX):]
        return Path(value)


def role_problems(study: Study, path: str) -> list[Problem]:
    """Every role conflict of ``study`` (see the module docstring), named by field; empty when none."""
    problems = []
    holder: dict[str, str] = {}
    for role in ROLES:
        who = getattr(study.roles, role)
        if who in holder:
            problems.append(Problem(path, None, f"roles.{role}", f"{who} already holds the role {holder[who]}; "
                                    "coordinator, annotator A, annotator B and arbiter C must be different people",
                                    "give each role its own pseudonym"))
        else:
            holder[who] = role
    excluded = set(study.excluded)
    for role in GRADING_ROLES:
        who = getattr(study.roles, role)
        if who in excluded:
            problems.append(Problem(path, None, f"roles.{role}", f"{who} is listed in excluded (changed the ranking "
                                    "or chose the mode under test) and may not grade this comparison",
                                    "choose another person for this role"))
    return problems


def load_study(path: str | Path = STUDY_FILE) -> Study:
    """Read and validate the study file, roles included.

    Raises:
        InputError: every bad field and every role conflict at once, each at its YAML line.
    """
    p = Path(path)
    data = read_yaml(p)
    if not isinstance(data, dict):
        raise InputError([Problem(str(p), None, None, "expected a mapping (protocol_version, roles, ...)",
                                  "see assay.study.protocol for the study file's shape")])
    try:
        study = Study.model_validate(data)
    except ValidationError as error:
        raise InputError([locate(q, p) for q in problems_from(error, str(p), None, Study)]) from None
    problems = role_problems(study, str(p))
    if problems:
        raise InputError([locate(q, p) for q in problems])
    return study


def evidence_root(study: Study, environ: dict | None = None) -> EvidenceRoot:
    """The evidence root: ``$ASSAY_EVIDENCE_ROOT`` when set, else a synthetic study's ``demo_evidence``.

    Raises:
        EvidenceRootError: the variable is unset and the study is not a synthetic demo (or names no
            demo folder), or the folder does not exist.
    """
    import os

    env = os.environ if environ is None else environ
    if not env.get(ENV, "").strip() and study.synthetic and study.demo_evidence:
        return EvidenceRoot.from_env({ENV: study.demo_evidence})
    return EvidenceRoot.from_env(env)
