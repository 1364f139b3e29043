"""Running RAG versions and comparing them: chunking and retrieval, the systems (reference, answers
file, and the called ones: a callable or a service behind HTTP, run concurrently with stored
replies), the per-case runner with its metric families, and the paired comparison of two runs.
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.rag.runner": ["RagParams", "run_version"],
    "assay.rag.systems": ["SystemRequest"],
    "assay.rag.called": ["CaseRun"],
    "assay.rag.calls": ["Retryable"],
    "assay.rag.version_figures": ["version_metrics"],
    "assay.rag.compare": ["CompareParams", "compare_runs", "read_run"],
})
