"""Count the places a stage's contract is spelled (issue 34 §1): output paths, provenance input names and
params sections, as literal text in the library, the stage scripts and the dvc.yaml template.

Usage: ``python benchmarks/count_contract.py`` from the repository root (after ``dvc repro``: the
input names are read from ``reports/provenance/*.json``). A count, not a timing: it says how many
places a rename would touch, the figure issue 34 wants brought to one each.

How each is counted (substring matches, so a short name such as ``plan`` is over-counted):

- an output: every ``outs``/``metrics``/``plots`` path of dvc.yaml, spelled as its text before the
  first ``${`` (or after the last ``}`` when that prefix is shorter than 8 characters);
- an input name: every key of ``inputs`` in the provenance files (``run_<version>`` and
  ``review_<name>:snapshot`` folded into ``run_`` and ``review_``), found quoted or as ``name=``
  in Python;
- a params section: every top-level mapping of params.yaml, found quoted in Python (``"judge"``,
  ``'judge.``) and as a ``- section`` or ``- section.key`` line of the template.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

TEMPLATE = Path("src/assay/pipeline/templates/pipeline.yaml")


def sources() -> dict[Path, str]:
    files = [*Path("src/assay").rglob("*.py"), *Path("stages").glob("*.py"), TEMPLATE]
    return {f: f.read_text(encoding="utf-8") for f in files}


def output_paths() -> set[str]:
    paths = set()
    for stage in yaml.safe_load(Path("dvc.yaml").read_text(encoding="utf-8"))["stages"].values():
        body = stage.get("do", stage)
        for section in ("outs", "metrics", "plots"):
            paths |= {o if isinstance(o, str) else next(iter(o)) for o in body.get(section, [])}
    return paths


def spelling(path: str) -> str:
    literal = path.split("${")[0]
    return literal if len(literal) >= 8 else path.split("}")[-1]


def input_names() -> set[str]:
    names: set[str] = set()
    for f in Path("reports/provenance").glob("*.json"):
        names |= set(json.loads(f.read_text(encoding="utf-8")).get("inputs", {}))
    return {re.sub(r"^(run|review)_\w+?(:snapshot)?$", r"\1_", n) for n in names}


def main() -> None:
    text = sources()
    python = [t for f, t in text.items() if f.suffix == ".py"]
    outs = output_paths()
    out_places = {o: sum(t.count(spelling(o)) for t in text.values()) for o in outs}
    print(f"outputs: {len(outs)}, spelled in {sum(out_places.values())} places; "
          f"{sum(n > 1 for n in out_places.values())} spelled in more than one")
    names = input_names()
    name_places = {n: sum(len(re.findall(rf"[\"']{re.escape(n)}|\b{re.escape(n)}=", t)) for t in python) for n in names}
    print(f"provenance input names: {len(names)}, spelled in {sum(name_places.values())} places")
    params = yaml.safe_load(Path("params.yaml").read_text(encoding="utf-8"))
    template = text[TEMPLATE]
    sections = {s: sum(len(re.findall(rf"[\"']{s}[\"'.]", t)) for t in python)
                + len(re.findall(rf"^\s+- {s}(\.|\s*$)", template, re.MULTILINE))
                for s, v in params.items() if isinstance(v, dict)}
    print(f"params sections: {len(sections)}, spelled in {sum(sections.values())} places: "
          + ", ".join(f"{s} {n}" for s, n in sections.items()))


if __name__ == "__main__":
    main()
