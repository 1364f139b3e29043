"""assay's own repository is the demo that ``assay init --example demo`` writes with every part.

``python -m assay.project.source`` (``make pipeline``) writes this repository's ``dvc.yaml``,
``params.yaml`` and ``examples/ci/assay.yml`` from the same templates, in the source layout: stages run
``python stages/NAME.py`` and depend on the library's folder; the reference system's
``source`` is its module. ``tests/test_pipeline.py`` checks that the committed files are these bytes.
"""

from __future__ import annotations

from pathlib import Path

from assay.core.io import write_text
from assay.pipeline.generate import dvc_yaml
from assay.pipeline.parts import PARTS
from assay.pipeline.template import render

REFERENCE_SOURCE = "src/assay/rag/systems.py"


def source_files(root: str | Path = ".") -> dict[str, str]:
    """The three generated files of assay's repository at ``root``, by path."""
    from assay.project.init import template_text, template_values

    base = Path(root)
    values = {**template_values(base, PARTS), "reference_source": REFERENCE_SOURCE}
    return {
        "dvc.yaml": dvc_yaml(PARTS, "source"),
        "params.yaml": render(template_text("params.yaml"), (*PARTS, "demo"), values),
        "examples/ci/assay.yml": render(template_text("workflow.yml"), ("source",), values),
    }


def main(root: str | Path = ".") -> None:
    """Write the generated files that differ; print each path written."""
    base = Path(root)
    for rel, text in source_files(base).items():
        path = base / rel
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            write_text(path, text)
            print(f"wrote {rel}")


if __name__ == "__main__":
    main()
