from hypothesis import given, settings
from hypothesis import strategies as st

from assay.data.cases import CaseRecord
from assay.data.split import assign, split_counts, unit_hash

from conftest import case

ids = st.lists(st.from_regex(r"[a-z][0-9]{1,4}", fullmatch=True), min_size=1, max_size=40, unique=True)


def make(id_list, groups=None):
    groups = groups or {}
    return [CaseRecord.model_validate(case(i, group=groups.get(i))) for i in id_list]


def test_unit_hash_matches_a_hand_computation():
    import hashlib

    digest = hashlib.sha256(b"salt:g01").digest()
    assert unit_hash("salt", "g01") == int.from_bytes(digest[:8], "big") / 2**64


@settings(max_examples=80, deadline=None)
@given(ids, ids)
def test_adding_cases_never_moves_an_old_case(old, extra):
    new = [i for i in extra if i not in old]
    before = assign(make(old), "s", 0.3)
    after = assign(make(old + new), "s", 0.3)
    assert {i: after[i] for i in old} == before


@settings(max_examples=80, deadline=None)
@given(ids)
def test_sides_are_disjoint_and_cover_every_case(id_list):
    sides = assign(make(id_list), "s", 0.5)
    dev = {i for i, s in sides.items() if s == "dev"}
    hold = {i for i, s in sides.items() if s == "holdout"}
    assert dev.isdisjoint(hold) and dev | hold == set(id_list)


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
