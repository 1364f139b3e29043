"""assay: a reproducible evaluation pipeline for RAG systems and the LLM judges that score them."""

__version__ = "0.1.0"
