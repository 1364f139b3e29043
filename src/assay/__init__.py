"""assay: a reproducible evaluation pipeline for RAG systems and the LLM judges that score them.

``__version__`` is the installed distribution's version (``importlib.metadata``), so a release that
bumps only ``pyproject.toml`` is the version every pin check, provenance record and ``assay --version``
sees. Run from a source tree that was never installed, it is ``0+unknown``.
"""

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "assay-eval"

try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # a checkout on sys.path without `pip install -e .`
    __version__ = "0+unknown"
