"""The study file and its roles validator."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay.core.errors import InputError
from assay.study.evidence import ENV, EvidenceRootError
from assay.study.protocol import STUDY_FILE, evidence_root, load_study

ROOT = Path(__file__).resolve().parents[1]


def study_file(tmp_path: Path, **over) -> Path:
    data = yaml.safe_load((ROOT / STUDY_FILE).read_text(encoding="utf-8"))
    for key, value in over.items():
        if key.startswith("roles."):
            data["roles"][key.split(".", 1)[1]] = value
        elif value is None:
            data.pop(key, None)
        else:
            data[key] = value
    p = tmp_path / "study.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return p


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if text in line)


def test_the_committed_study_file_is_valid_and_synthetic():
    study = load_study(ROOT / STUDY_FILE)
    assert study.synthetic and study.demo_evidence == "data/relevance/evidence.synthetic"
    assert len({study.roles.coordinator, study.roles.annotator_a, study.roles.annotator_b, study.roles.arbiter}) == 4
    assert study.thresholds == "data/relevance/thresholds.yaml"


def test_one_pseudonym_in_two_roles_is_refused_at_its_line(tmp_path):
    p = study_file(tmp_path, **{"roles.arbiter": "ANN-A01"})
    with pytest.raises(InputError) as error:
        load_study(p)
    assert str(error.value).startswith(f"{p}:{line_of(p, 'arbiter:')}: field 'roles.arbiter': ANN-A01 already holds "
                                       "the role annotator_a")


def test_the_coordinator_may_not_be_an_annotator_either(tmp_path):
    p = study_file(tmp_path, **{"roles.annotator_b": "CRD-01"})
    with pytest.raises(InputError, match="CRD-01 already holds the role coordinator"):
        load_study(p)


@pytest.mark.parametrize("role", ["annotator_a", "annotator_b", "arbiter"])
def test_a_grader_among_the_excluded_is_refused(tmp_path, role):
    p = study_file(tmp_path, **{f"roles.{role}": "DEV-R01"})
    with pytest.raises(InputError) as error:
        load_study(p)
    assert f"field 'roles.{role}': DEV-R01 is listed in excluded" in str(error.value)


def test_the_coordinator_may_be_among_the_excluded(tmp_path):
    p = study_file(tmp_path, **{"roles.coordinator": "DEV-R01"})
    assert load_study(p).roles.coordinator == "DEV-R01"


def test_every_conflict_is_reported_in_one_run(tmp_path):
    p = study_file(tmp_path, **{"roles.annotator_b": "ANN-A01", "roles.arbiter": "DEV-M02"})
    with pytest.raises(InputError) as error:
        load_study(p)
    assert len(error.value.problems) == 2


@pytest.mark.parametrize("value", ["Rina Akter", "rina@example.com", "ann-a01", ""])
def test_a_role_must_be_a_pseudonym(tmp_path, value):
    p = study_file(tmp_path, **{"roles.annotator_a": value})
    with pytest.raises(InputError, match="roles.annotator_a"):
        load_study(p)


def test_excluded_holds_pseudonyms_only(tmp_path):
    p = study_file(tmp_path, excluded=["DEV-R01", "someone@example.com"])
    with pytest.raises(InputError, match="excluded.1"):
        load_study(p)


def test_unknown_keys_and_a_missing_role_are_refused(tmp_path):
    p = study_file(tmp_path, pooling={"k": 10, "random": 5, "seed": 1, "depht": 3})
    with pytest.raises(InputError, match="pooling.depht"):
        load_study(p)
    data = yaml.safe_load(p.read_text(encoding="utf-8"))
    del data["roles"]["arbiter"]
    data["pooling"] = {"k": 10, "random": 5, "seed": 1}
    p.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(InputError, match="roles.arbiter"):
        load_study(p)


def test_demo_evidence_only_in_a_synthetic_study(tmp_path):
    p = study_file(tmp_path, synthetic=False)
    with pytest.raises(InputError, match="demo_evidence is only allowed in a synthetic study"):
        load_study(p)


def test_the_environment_variable_wins_over_the_demo_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    study = load_study(ROOT / STUDY_FILE)
    assert evidence_root(study, {}).path == Path("data/relevance/evidence.synthetic")
    assert evidence_root(study, {ENV: str(tmp_path)}).path == tmp_path


def test_a_real_study_needs_the_variable(tmp_path):
    study = load_study(study_file(tmp_path, synthetic=False, demo_evidence=None))
    with pytest.raises(EvidenceRootError) as error:
        evidence_root(study, {})
    assert ENV in str(error.value) and error.value.exit_code == 2


def test_a_path_under_the_root_resolves_there(tmp_path):
    study = load_study(study_file(tmp_path, queries=f"${ENV}/queries.jsonl"))
    from assay.study.evidence import EvidenceRoot

    assert study.resolve(study.queries, EvidenceRoot(tmp_path)) == tmp_path / "queries.jsonl"
    with pytest.raises(ValueError):
        study.resolve(study.queries)
