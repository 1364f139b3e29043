"""Starting and growing an evaluation project: ``assay init`` and ``assay add``.

Owns the project templates (``templates/``: params.yaml, the project README, the CI workflow), the
starter data of ``--example minimal`` (``examples/minimal/``) and where the NodiNet demo's data is
found (:mod:`assay.project.examples`), the pin of assay as it was installed and the constraints file
of the environment (:mod:`assay.project.install`), and the writing of a project (:mod:`assay.project.init`).
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {"assay.project.init": ["InitResult", "add_part", "init_project"]})
