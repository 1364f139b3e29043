"""A part added without example data (``assay add PART`` with no ``--example``).

The examples' review snapshots and queues are the NodiNet demo's synthetic data: wired into a team's
pipeline they would reach its review metrics and its training files. Without ``--example`` the part's
params lists that name example data are left empty (``review.snapshots: []``, ``ppi.reviews: []``),
the example's snapshot and queue files are not copied, and a short README stands in ``data/reviews/``
(a dependency of the training and ppi stages) saying how to export the first snapshot.
"""

from __future__ import annotations

import re

#: (params section, key) whose value names example data; emptied when no example is asked for
EXAMPLE_LISTS: tuple[tuple[str, str], ...] = (("review", "snapshots"), ("ppi", "reviews"))
#: project-relative folders of example data a part brings only with ``--example``
EXAMPLE_FOLDERS: tuple[str, ...] = ("data/reviews/", "data/queues/")
#: the one file that keeps ``data/reviews/`` (a stage dependency) in a project without snapshots
REVIEWS_README = "data/reviews/README.md"
NEXT_STEP = ("export a review snapshot from a queue: `assay queue export NAME` writes data/reviews/NAME.jsonl; "
             "then list NAME in review.snapshots (and random fills of `--from compare` queues in ppi.reviews) "
             "in params.yaml and run `dvc repro`")
README_TEXT = f"# Review snapshots\n\nNo snapshot yet. To add one, {NEXT_STEP}.\n"


def empty_example_lists(text: str) -> str:
    """``text`` (params.yaml) with every :data:`EXAMPLE_LISTS` value replaced by ``[]``, comments dropped.

    Only a key indented directly under its section is changed; a section or key that is absent is
    left alone, so the function is safe on any params text.
    """
    for section, key in EXAMPLE_LISTS:
        pattern = re.compile(rf"(^{section}:[^\n]*\n(?:[ \t]+[^\n]*\n|\n)*?[ \t]+{key}:)[^\n]*", re.MULTILINE)
        text = pattern.sub(rf"\1 []   # {key} you export (see data/reviews/README.md)", text, count=1)
    return text


def without_example_data(files: dict[str, bytes | str]) -> dict[str, bytes | str]:
    """``files`` (project-relative path -> content) without the example folders, plus the reviews README
    when the part has a reviews folder at all."""
    kept = {rel: content for rel, content in files.items() if not rel.startswith(EXAMPLE_FOLDERS)}
    if any(rel.startswith("data/reviews/") for rel in files):
        kept[REVIEWS_README] = README_TEXT
    return kept


__all__ = ["NEXT_STEP", "empty_example_lists", "without_example_data"]
