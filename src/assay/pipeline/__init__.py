"""The pipeline as data: which parts a project uses and the dvc.yaml generated for them.

Owns the parts (:mod:`assay.pipeline.parts`), the dvc.yaml template with one block per part
(``templates/pipeline.yaml``), the small template language both it and the project templates use
(:mod:`assay.pipeline.template`) and the generator (:mod:`assay.pipeline.generate`).
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.pipeline.generate": ["PIN_FILE", "Layout", "detect_layout", "dvc_yaml", "write_pipeline"],
    "assay.pipeline.parts": ["DEFAULT_PARTS", "PARTS", "project_parts", "resolve_parts"],
})
