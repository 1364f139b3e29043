"""Running RAG versions and comparing them: chunking and retrieval, the systems (reference and
plug-ins), the per-case runner with its metric families, and the paired comparison of two runs.

May import: ``assay.core``, ``assay.stats``, ``assay.artifacts``, ``assay.data``.
"""
