"""assay.release.params_check: every section of params.yaml against its stage's model, in one run."""

import pytest
import yaml

from assay.core.errors import Problem
from assay.release.params_check import SECTIONS, check_params

from conftest import ROOT


def write_params(tmp_path, edit) -> str:
    data = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def line_of(path, text: str) -> int:
    return next(i for i, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in ln)


def test_the_project_params_are_valid_and_every_section_has_a_model():
    assert check_params(ROOT / "params.yaml") == []
    assert set(yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))) == set(SECTIONS) | {"parts"}


@pytest.mark.parametrize("section, typo, right", [("split", "holdout_shares", "holdout_share"),
                                                  ("leakage", "treshold", "threshold"),
                                                  ("gate", "requre_agreement", "require_agreement")])
def test_a_misspelt_key_names_the_key_the_suggestion_and_the_known_keys(tmp_path, section, typo, right):
    path = write_params(tmp_path, lambda d: d[section].__setitem__(typo, 1))
    [problem] = check_params(path)
    known = ", ".join(SECTIONS[section].model_fields)
    assert problem == Problem(str(path), line_of(path, f"{typo}:"), f"{section}.{typo}",
                              f"unknown field; did you mean {right!r}?", f"rename it to {right!r} (known: {known})")


def test_every_problem_in_one_run(tmp_path):
    def edit(d):
        d["splitt"] = {"salt": "x"}
        d["split"]["holdout_share"] = 1.5
        d["leakage"]["zzz"] = 1
        d["judge"]["openai"] = {"base_url": "ftp://x", "model": "m", "temprature": 0}
        d["compare"]["candidate"] = "candiate"
        d["rag"]["versions"]["baseline"]["min_score"] = "high"
        d["gate"] = ["not", "a", "mapping"]

    path = write_params(tmp_path, edit)
    found = {(p.field, p.message.split(";")[0].split(" (")[0][:40]) for p in check_params(path)}
    assert found == {
        ("splitt", "unknown section"),
        ("split.holdout_share", "1.5: Input should be less than 1"),
        ("leakage.zzz", "unknown field"),
        ("judge.openai.base_url", "'ftp://x' must start with http:// or htt"),
        ("judge.openai.temprature", "unknown field"),
        ("rag.versions.baseline.min_score", "'high' is not valid: input should be a v"),
        ("compare.candidate", "'candiate' is not a version in rag.versi"),
        ("gate", "expected a mapping, got list"),
    }


def test_a_misspelt_compare_version_lists_the_known_versions(tmp_path):
    path = write_params(tmp_path, lambda d: d["compare"].__setitem__("baseline", "prod"))
    [problem] = check_params(path)
    assert str(problem) == (f"{path}:{line_of(path, 'baseline: prod')}: field 'compare.baseline': 'prod' is not a version "
                            "in rag.versions (fix: use one of baseline, candidate, or add it under rag.versions)")


def test_missing_or_broken_files_are_problems_not_crashes(tmp_path):
    assert [p.message for p in check_params(tmp_path / "nope.yaml")] == ["file not found"]
    bad = tmp_path / "params.yaml"
    bad.write_bytes(b"split: {salt: \xff}\n")
    assert check_params(bad)[0].message.startswith("not valid UTF-8")
    bad.write_text("- a\n- b\n", encoding="utf-8")
    assert check_params(bad)[0].message == "expected a mapping of sections, got list"
