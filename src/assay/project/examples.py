"""The example data ``assay init`` writes: which files each part needs, and where they come from.

``demo`` is the NodiNet demo, the data of assay's own repository (shipped in the wheel as
``assay/_demo``); ``minimal`` is a small starter for ``core`` and ``judge`` (30 cases, 7 pages,
18 labelled pairs) plus a callable RAG system in ``systems/my_rag.py``. For ``queue``, ``retrieval``
and ``study`` the minimal example uses the demo's files, which are small already.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import assay

EXAMPLES: tuple[str, ...] = ("minimal", "demo")
#: part -> the demo's files and folders it needs, relative to the demo's data folder
DEMO_FILES: dict[str, tuple[str, ...]] = {
    "core": ("plan.yaml", "cases.jsonl", "corpus", "sources", "tools.yaml"),
    "judge": ("pairs.jsonl", "guidelines.md", "prompts"),
    "queue": ("reviews", "queues", "rubric.yaml"),
    "retrieval": ("relevance/corpus.jsonl", "relevance/queries.jsonl", "relevance/qrels.synthetic.trec",
                  "relevance/thresholds.yaml"),
    "study": ("relevance/study.yaml", "relevance/received.json", "relevance/evidence.synthetic"),
}
#: the parts whose files the minimal example has of its own
MINIMAL_PARTS = ("core", "judge")
#: files under an example's data folder that are templates (part blocks), rendered rather than copied
RENDERED = ("plan.yaml",)
#: never copied: logs a study appends to as it runs
SKIPPED_NAMES = ("access.log",)


def demo_data() -> Path:
    """The demo's data folder: ``assay/_demo`` in an installed wheel, ``data/`` in assay's own checkout.

    Raises:
        FileNotFoundError: neither exists (an editable install whose repository lost its data/).
    """
    package = Path(assay.__file__).resolve().parent
    for candidate in (package / "_demo", package.parents[1] / "data"):
        if (candidate / "plan.yaml").exists() and (candidate / "cases.jsonl").exists():
            return candidate
    raise FileNotFoundError("the demo's data is not installed (reinstall assay-eval)")


def minimal_root() -> Path:
    """The minimal example's folder (``data/`` and ``systems/`` under it)."""
    return Path(str(resources.files("assay.project").joinpath("examples/minimal")))


def files_for(example: str, parts: tuple[str, ...]) -> list[tuple[Path, str]]:
    """``(source file, project-relative destination)`` for every file ``example`` writes for ``parts``, sorted.

    Folders are walked; ``__pycache__`` and :data:`SKIPPED_NAMES` are left out.
    """
    pairs: list[tuple[Path, str]] = []
    for part in parts:
        if example == "minimal" and part in MINIMAL_PARTS:
            base = minimal_root()
            names = [p.relative_to(base / "data").as_posix() for p in (base / "data").iterdir()
                     if _part_of(p.name) == part]
            pairs += _walk(base / "data", names, "data")
            if part == "core":
                pairs += _walk(base, ["systems/my_rag.py"], "")
        else:
            pairs += _walk(demo_data(), list(DEMO_FILES[part]), "data")
    return sorted(set(pairs), key=lambda pair: pair[1])


def _part_of(name: str) -> str | None:
    for part, names in DEMO_FILES.items():
        if name in names:
            return part
    return None


def _walk(base: Path, names: list[str], prefix: str) -> list[tuple[Path, str]]:
    out = []
    for name in names:
        path = base / name
        found = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for f in found:
            if "__pycache__" in f.parts or f.name in SKIPPED_NAMES:
                continue
            rel = f.relative_to(base).as_posix()
            out.append((f, f"{prefix}/{rel}" if prefix else rel))
    return out
