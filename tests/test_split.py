"""The split: the hash rule against values computed outside Python, and the split stage's output
table (data/derived/split.parquet) checked for duplicate ids, coverage and stability under added cases."""

import hashlib
import runpy
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.core.io import write_parquet
from assay.data.cases import CaseRecord, cases_table
from assay.data.split import assign, split_counts, unit_hash

from conftest import ROOT, case

ids = st.lists(st.from_regex(r"[a-z][0-9]{1,4}", fullmatch=True), min_size=1, max_size=40, unique=True)


def make(id_list, groups=None):
    groups = groups or {}
    return [CaseRecord.model_validate(case(i, group=groups.get(i))) for i in id_list]


def split_stage(folder: Path, cases: list[CaseRecord], salt: str = "s", share: float = 0.3) -> list[tuple[str, str]]:
    """Run stages/split.py in ``folder`` on ``cases``; the (id, side) rows of the table it writes, in file order."""
    (folder / "data" / "derived").mkdir(parents=True, exist_ok=True)
    (folder / "params.yaml").write_text(f"split:\n  salt: {salt}\n  holdout_share: {share}\n", encoding="utf-8")
    write_parquet(folder / "data" / "derived" / "cases.parquet", cases_table(cases))
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        runpy.run_path(str(ROOT / "stages" / "split.py"), run_name="__main__")
    table = pq.read_table(folder / "data" / "derived" / "split.parquet").to_pydict()
    return list(zip(table["id"], table["side"], strict=True))


def test_unit_hash_matches_sha256sum():
    # printf 'salt:g01' | sha256sum -> 6b815d8fbec4f067 69f3...; the first 8 bytes over 2**64
    assert unit_hash("salt", "g01") == 0x6b815d8fbec4f067 / 2**64
    assert round(unit_hash("salt", "g01"), 6) == 0.419943


def test_the_stage_writes_one_row_per_case_sorted_with_the_hash_rule(tmp_path):
    # g02 and p01 share the group late-fee, which hashes to the holdout while each id alone would go to
    # dev (worked with sha256sum in test_demo_data.py)
    groups = {"g02": "late-fee", "p01": "late-fee"}
    cases = make([f"c{i}" for i in range(60)] + list(groups), groups)
    rows = split_stage(tmp_path, cases, salt="assay-demo-v1", share=0.3)
    found = [i for i, _ in rows]
    assert found == sorted(c.id for c in cases)  # every case once: no id on both sides, none dropped
    for key, side in rows:
        digest = hashlib.sha256(f"assay-demo-v1:{groups.get(key, key)}".encode()).digest()
        assert side == ("holdout" if int.from_bytes(digest[:8], "big") < 0.3 * 2**64 else "dev"), key
    assert dict(rows)["g02"] == dict(rows)["p01"] == "holdout"
    assert {side for _, side in rows} == {"dev", "holdout"}


@settings(max_examples=25, deadline=None)
@given(ids, ids)
def test_adding_cases_never_moves_an_old_case_in_the_stage_output(old, extra):
    new = [i for i in extra if i not in old]
    with tempfile.TemporaryDirectory() as d:
        before = split_stage(Path(d) / "before", make(old))
        after = split_stage(Path(d) / "after", make(old + new))
    assert len(after) == len({i for i, _ in after}) == len(old) + len(new)
    assert [row for row in after if row[0] in set(old)] == before


def test_groups_stay_together():
    groups = {f"c{i}": "returns" for i in range(10)}
    sides = assign(make(list(groups), groups), "s", 0.5)
    assert len(set(sides.values())) == 1


def test_share_is_close_on_many_cases():
    sides = assign(make([f"c{i}" for i in range(4000)]), "assay", 0.3)
    counts = split_counts(sides)
    # binomial sd = sqrt(4000 * 0.3 * 0.7) = 29; allow 5 sd
    assert abs(counts["holdout"] - 1200) < 145


def test_salt_changes_the_split():
    cases = make([f"c{i}" for i in range(200)])
    assert assign(cases, "a", 0.3) != assign(cases, "b", 0.3)
