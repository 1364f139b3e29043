"""Development / holdout split by a salted hash of each case's id (or its group).

A case goes to the holdout when ``sha256(salt + ":" + key)``, read as a number in [0, 1), is below
``holdout_share``; the key is the case's ``group`` when it has one (so paraphrases of one question
stay on one side), else its ``id``. The side depends only on the salt, the share and the key, so
the split is reproducible and adding or removing cases never moves an existing case. The realised
holdout share of a small set can differ from ``holdout_share`` by chance.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field

from assay.data.cases import CaseRecord
from assay.core.records import InputModel

if TYPE_CHECKING:
    import pyarrow as pa

SIDES = ("dev", "holdout")


class SplitParams(InputModel):
    """params.yaml section ``split``."""

    model_config = ConfigDict(extra="forbid")
    salt: str = Field(min_length=1)
    holdout_share: float = Field(gt=0, lt=1)


def unit_hash(salt: str, key: str) -> float:
    """The first 8 bytes of ``sha256(salt:key)`` as a number in [0, 1).

    >>> 0 <= unit_hash("s", "g01") < 1
    True
    """
    digest = hashlib.sha256(f"{salt}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_key(case: CaseRecord) -> str:
    """What a case is split by: its group when present, else its id."""
    return case.group or case.id


def assign(cases: Iterable[CaseRecord], salt: str, holdout_share: float) -> dict[str, str]:
    """Map each case id to ``dev`` or ``holdout`` (see the module docstring)."""
    return {c.id: ("holdout" if unit_hash(salt, split_key(c)) < holdout_share else "dev") for c in cases}


def split_counts(sides: dict[str, str]) -> dict[str, int]:
    """Number of cases on each side, both sides always present."""
    counts = {s: 0 for s in SIDES}
    for side in sides.values():
        counts[side] += 1
    return counts


def split_table(sides: dict[str, str]) -> pa.Table:
    """The id -> side table as a pyarrow Table (columns ``id``, ``side``), sorted by id."""
    import pyarrow as pa

    ids = sorted(sides)
    return pa.table({"id": ids, "side": [sides[i] for i in ids]})


def read_split_table(path: str) -> pa.Table:
    """The split table written by the split stage as a pyarrow Table (columns ``id``, ``side``, sorted by id)."""
    import pyarrow.parquet as pq

    # ParquetFile.read, not pq.read_table: the dataset reader behind read_table imports pandas
    return pq.ParquetFile(path).read(columns=["id", "side"])


def read_split(path: str) -> dict[str, str]:
    """The id -> side table written by the split stage (Parquet with columns ``id`` and ``side``)."""
    table = read_split_table(path).to_pydict()
    return dict(zip(table["id"], table["side"], strict=True))
