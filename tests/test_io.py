import json
import math

import pyarrow as pa
import pytest

from assay.core.errors import InputError
from assay.core.io import atomic_path, dumps_json, read_jsonl, read_table_rows, sha256_tree, write_json, write_parquet


def test_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "m.json"
    write_json(target, {"a": 1})
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("boom")
    assert json.loads(target.read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_json_is_sorted_stable_and_nan_is_null():
    text = dumps_json({"b": math.nan, "a": (1, 2), "c": {"z": 1, "y": "বাংলা"}})
    assert text == '{\n  "a": [\n    1,\n    2\n  ],\n  "b": null,\n  "c": {\n    "y": "বাংলা",\n    "z": 1\n  }\n}\n'


def test_parquet_is_byte_stable(tmp_path):
    table = pa.table({"id": ["b", "a"], "x": [1.5, None]})
    write_parquet(tmp_path / "1.parquet", table)
    write_parquet(tmp_path / "2.parquet", table)
    assert (tmp_path / "1.parquet").read_bytes() == (tmp_path / "2.parquet").read_bytes()


def test_jsonl_errors_name_every_bad_line(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n\n[1, 2]\n{"a":\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_jsonl(path)
    assert str(err.value).splitlines() == [
        f"{path}:3: expected a JSON object, got list (fix: write one JSON object per line)",
        f"{path}:4: not valid JSON (Expecting value at column 6) (fix: write one JSON object per line)",
    ]


def test_csv_rows_count_the_header_as_line_one(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    assert read_table_rows(path) == [(2, {"a": "1", "b": "2"})]


def test_tree_hash_sees_names_and_bytes_not_order(tmp_path):
    (tmp_path / "a.md").write_text("x")
    (tmp_path / "b.md").write_text("y")
    before = sha256_tree(tmp_path)
    (tmp_path / "b.md").write_text("y!")
    assert sha256_tree(tmp_path) != before
    (tmp_path / "b.md").write_text("y")
    assert sha256_tree(tmp_path) == before
    (tmp_path / "b.md").rename(tmp_path / "c.md")
    assert sha256_tree(tmp_path) != before


def test_parquet_carries_its_provenance(tmp_path):
    import pyarrow.parquet as pq

    write_parquet(tmp_path / "p.parquet", pa.table({"id": ["a"]}), {"inputs": {"cases": "h"}})
    meta = pq.read_schema(tmp_path / "p.parquet").metadata
    assert set(meta) == {b"assay"} and json.loads(meta[b"assay"]) == {"inputs": {"cases": "h"}}
    write_parquet(tmp_path / "q.parquet", pa.table({"id": ["a"]}))
    assert pq.read_schema(tmp_path / "q.parquet").metadata is None


def test_atomic_paths_change_every_target_or_none(tmp_path):
    from assay.core.io import atomic_paths, write_jsonl

    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("old a\n", encoding="utf-8")

    def rows():
        yield {"n": 1}
        raise RuntimeError("the judge failed half way")

    with pytest.raises(RuntimeError), atomic_paths([first, second]) as (tmp_a, tmp_b):
        write_jsonl(tmp_a, [{"n": 0}])
        write_jsonl(tmp_b, rows())  # a generator that fails: the written half is dropped too
    assert first.read_text(encoding="utf-8") == "old a\n" and not second.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl"]  # no temporary file left behind
    with atomic_paths([first, second]) as (tmp_a, tmp_b):
        write_jsonl(tmp_a, iter([{"n": 0}]))
        write_jsonl(tmp_b, ({"n": n} for n in range(2)))
    assert first.read_text(encoding="utf-8") == '{"n": 0}\n' and second.read_text(encoding="utf-8") == '{"n": 0}\n{"n": 1}\n'
